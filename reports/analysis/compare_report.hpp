// The vocabulary of a comparison of two runs (`gpuperf compare`, `gpuperf check`, `bisect`): its options, each
// side, the report with its rows and what fails the job. compare.hpp computes a CompareReport; the helpers it
// calls and the writers read one; all of them include this, which includes nothing above it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "core/result.hpp"
#include "reports/analysis/gate.hpp"
#include "reports/analysis/kernel_family.hpp"
#include "reports/analysis/kind_split.hpp"
#include "reports/analysis/program_change.hpp"
#include "reports/analysis/thresholds.hpp"
#include "reports/analysis/types.hpp"

namespace gpuperf::analysis {

struct CompareOptions {
  Thresholds thresholds = Thresholds::for_compare();
  double clock_tolerance_pct = 1.0;  // median SM clocks further apart than this need cycle confirmation
  // With a history (compare_runs), a noisy change whose candidate median lies within the range of the
  // series' last `history_runs` run medians is "ambiguous": the machine has produced that level before; a
  // single value is judged against those medians (compare_history.hpp). 0 turns both off.
  std::size_t history_runs = 10;
  GateSet gate;  // which rows fail the job (gate.hpp)
  // How a recorded program's kernels are grouped into families (kernel_family.hpp): the built-in table and
  // the user's --kernel-family rules.
  KernelFamilies families;
};

// One side of a comparison, for headers and JSON.
struct RunSide {
  std::int64_t run_id = 0;
  std::string uuid, commit, branch, label, started_at, fingerprint, gpu_name;
  std::string machine_name;                         // as every command names it (core machine_name)
  std::optional<int> rank, local_rank, world_size;  // a recorded process of a distributed job (Run::rank)
  std::string uuid_shown;  // the uuid's prefix that names the run alone (Store::run_prefix); empty: 8 characters
};
RunSide run_side(const Run& run, std::int64_t run_id = 0);

struct CompareReport {
  RunSide base, candidate;
  std::vector<CompareRow> rows;  // ordered by benchmark name, params key, metric order of the traits table
  GateSet gate;                  // the gate the rows were judged by
  // Two recorded runs of which either has communication kernels: each side's GPU time by kind
  // (kind_split.hpp). Informative: it never gates (the kernels' own rows do, by the gate's rules).
  std::optional<KindSplitChange> kinds;
  // Two recorded runs: the program's verdict (program_change.hpp), which the writers lead with. A recorded
  // program's identity that is gone is reported, never failed (a program chooses its kernels at run time);
  // what fails is a gated row or, with --gate program_time, the program's time.
  std::optional<ProgramChange> program;
  // --allow-missing: a partial candidate (a filtered run) passes; by default an instance of the base with no
  // row in the candidate (every row of it "missing": its bench crashed or a filter dropped it) fails the job.
  bool allow_missing = false;
  // The instances of the base that the candidate lacks entirely, by display name, in row order.
  std::vector<std::string> missing_instances() const;
  // Any row is_regression(), the program's gated time (ProgramChange::regression), or missing_instances()
  // of a benchmark run without allow_missing.
  bool regression() const;
  // True when a missing instance fails the job: a benchmark run's, without allow_missing.
  bool missing_fails() const;
  // The environment fields that differ between the two runs (identity_findings.hpp); explanation only.
  std::vector<env::Change> environment;
};

// slower in a gated row (CompareRow::gated), or failed where the candidate failed and the base was fine (a
// kernel that used to work no longer does; always gated). A metric that failed on both sides is "failed"
// but not a regression.
bool is_regression(const CompareRow& row);
// slower in a row that does not gate: listed and explained, but the job passes.
bool is_ungated_slowdown(const CompareRow& row);

}  // namespace gpuperf::analysis
