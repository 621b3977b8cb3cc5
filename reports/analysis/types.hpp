// What the analysis layer tells the CLI and the report writers. Plain data; no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "db/store.hpp"
#include "reports/analysis/line_changes.hpp"

namespace gpuperf::analysis {

// not_enough_data: the data cannot judge the change at all (one value per side and too few earlier runs to
// judge it by): CompareRow::next_step says what would settle it.
enum class Verdict { same, faster, slower, ambiguous, new_, missing, failed, not_enough_data };
// "same", "faster", "slower", "ambiguous", "new", "missing", "failed", "not enough data"
const char* to_string(Verdict v);

enum class ChangeKind { regression, improvement };
const char* to_string(ChangeKind k);  // "regression", "improvement"

// One row of `gpuperf compare` / `check`: a benchmark instance and metric on two sides.
// "faster" and "slower" mean better and worse in the metric's own direction (higher_is_better), so a
// drop of gld_efficiency from 100% to 50% is "slower".
struct CompareRow {
  std::string machine;  // fingerprint (the candidate's; the base's when the candidate lacks the row)
  BenchmarkInstance instance;
  MetricInfo metric;
  Verdict verdict = Verdict::same;
  std::optional<Summary> base, candidate;
  double change_pct = 0;                   // (candidate median / base median - 1) * 100
  double ci_low_pct = 0, ci_high_pct = 0;  // confidence interval of the ratio of medians, in percent
  double p_value = 1;                      // Mann-Whitney U, two-sided; 1 where no test ran (deterministic, n < 2)
  bool confirmed_in_cycles = true;         // false when clocks moved and the change vanishes in cycles
  std::string note;                        // why (e.g. "clock 1980 -> 1755 MHz", "status incorrect")
  std::string code;  // "same code", "code changed" or "" (identity_findings.hpp); duration rows only
  // Added by the analysis for the writers (not in the first contract):
  Status base_status = Status::ok, candidate_status = Status::ok;  // the instance's or metric's status
  double min_effect_pct = 0;                                       // the threshold the verdict used
  double base_clock_mhz = 0, candidate_clock_mhz = 0;              // median SM clock of each side; 0 when unknown
  double welch_p_value = 1;  // Welch's t-test on the same samples, for reference (the verdict uses U)
  // True when the history rule (compare_history.hpp) turned a slower/faster verdict into ambiguous.
  bool ambiguous_by_history = false;
  // True when a slower verdict of this row fails the job (gate.hpp: duration, deterministic counters, a
  // failed kernel, and what --gate adds). A slower row that does not gate is listed, not failed.
  bool gated = false;
  // The source lines whose counters moved between the two runs' results (line_findings.hpp), heaviest first;
  // empty where either side has no lines or nothing moved.
  std::vector<LineChange> lines;
  // True when a side's raw samples were pruned (`gpuperf db prune`): only its median is left, so the row is
  // judged like a single value, against the history (compare_history.hpp).
  bool samples_pruned = false;
  // The accepted step this row's base was taken from (answers.hpp's rebase_on_accepted): the runs before it
  // are no longer the reference for this series.
  std::optional<db::Acknowledgement> accepted;
  // A not_enough_data row's next step: the command whose runs would settle it, and how many runs of the base
  // branch it adds.
  std::string next_step;
  std::size_t runs_needed = 0;
};

// One change point of `gpuperf detect` in a series (machine, instance, metric).
// Where and when a change lands: its machine, the first run (and commit) at the new level and the last at the
// old one. A change point and an environment step share it.
struct ChangeSite {
  std::string machine;       // its fingerprint
  std::string machine_name;  // as every command names it (core machine_name); empty: unknown, `machine` shown
  std::int64_t run_id = 0;
  std::string run_uuid;
  std::string commit;           // the first commit at the new level
  std::string previous_commit;  // the last commit at the old level
  std::string started_at;
  std::int64_t previous_run_id = 0;  // the last run at the old level
};

struct ChangePoint : ChangeSite {
  BenchmarkInstance instance;
  MetricInfo metric;
  std::size_t index = 0;  // position of the first point at the new level within the series
  ChangeKind kind = ChangeKind::regression;
  double change_pct = 0;           // (after / before - 1) * 100
  double before = 0, after = 0;    // levels (medians of the segments)
  double confidence = 0;           // 1 - p-value of the split, in [0, 1]
  std::vector<std::string> hints;  // root-cause hints: "gld_efficiency 100% -> 50%"
  // True for a change in the newest runs that the segmentation cannot confirm yet (too few runs after it),
  // flagged from those runs' raw samples (tail_changes.hpp). Tomorrow's runs confirm it or withdraw it.
  bool unconfirmed = false;
  std::size_t runs_after = 0;  // usable runs from the change on (the new level's runs so far)
  // Added by the analysis for the writers:
  std::size_t series_index = 0;  // position of the series in the vector given to detect_changes()
  bool gated = false;            // a regression here fails `detect --fail-on-regression` (gate.hpp)
  // The source lines whose counters moved from the previous run to the run of the change (line_findings.hpp).
  std::vector<LineChange> lines;
  // The team's answer to this change (answers.hpp): acknowledged or accepted, with its reason; such a change
  // is not open (not new in the nightly, not failing `detect --fail-on-regression`).
  std::optional<db::Acknowledgement> answer;
  // What changed besides the code (identity_findings.hpp): "same code", "code changed" or "" (unknown), the
  // environment fields that differ from the previous run to this one, and, when this change is one of a night's
  // kernels that stepped together with the environment, the number (1-based) of that EnvironmentStep; 0: none.
  std::string code;
  std::vector<env::Change> environment;
  std::size_t environment_step = 0;
};

// Many kernels of one machine stepping on one night while its environment changed (identity_findings.hpp): one
// finding naming the fields and the kernels, in place of a change point per kernel.
struct EnvironmentStep : ChangeSite {
  std::vector<env::Change> environment;
  std::vector<std::size_t> changes;  // indices into the change points, in their order
  std::size_t regressions = 0;       // of them, slower
};

// Appends `text` to the row's note ("; " between notes); empty text adds nothing.
void add_note(CompareRow& row, const std::string& text);

}  // namespace gpuperf::analysis
