// What a team's answers (db/answers.hpp) change in the analysis: an acknowledged change is answered, not open;
// an accepted step is the series' new baseline for `check` and `compare`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "db/store.hpp"
#include "reports/analysis/types.hpp"

namespace gpuperf::analysis {

// Sets ChangePoint::answer from the acknowledgements that are not undone: one of the change's series
// (`series[change.series_index]`) whose run is the change's first run at the new level or one run apart (the
// nightly's rule: an unconfirmed change the segmentation places one run over is the same change). The newest
// acknowledgement answers.
void attach_acknowledgements(std::vector<ChangePoint>& changes, const std::vector<db::Series>& series,
                             const std::vector<db::Acknowledgement>& acks);

// Whether an acknowledgement at `run_id` answers `change` of `series`: the run is the change's first run at the
// new level or one run apart from it (the nightly's rule: an unconfirmed change the segmentation places one run
// over is the same change).
bool answers_change(const ChangePoint& change, const db::Series& series, std::int64_t run_id);

// What `detect` finds, with its default options, in the series of one benchmark instance on one machine and
// branch: the findings an `ack` of that instance can answer (every metric's, the hints' own steps included).
struct InstanceFindings {
  std::vector<db::Series> series;
  std::vector<ChangePoint> changes;  // ordered by run (started_at), then as detect orders them
};
InstanceFindings instance_findings(const db::Store& store, std::int64_t machine_id, std::int64_t benchmark_id,
                                   const BenchmarkInstance& instance, const std::string& branch);

// The environment step (identity_findings.hpp) of one machine and branch that an ack at `run_id` answers:
// the duration findings of its kernels, when one of them is answered by that run (answers_change), or, with
// `commit` not empty, starts at a run of that commit. Empty when no step is there; `steps_seen` gets each step's
// description and run uuid, for a refusal that names them.
struct StepFindings {
  std::vector<db::Series> series;
  std::vector<ChangePoint> changes;  // the step's kernels' duration findings
  std::string description;           // describe_step's
  std::vector<std::string> steps_seen;
};
StepFindings environment_step_findings(const db::Store& store, std::int64_t machine_id, const std::string& branch,
                                       std::int64_t run_id, const std::string& commit);

// True when the change is answered: it is not "new", not open, fails no job.
bool is_answered(const ChangePoint& c);

// The accepted steps (not undone) of `machine_id` that lie after `base` (started later) and not after
// `candidate`: for each, `base_run` gets the measurement of its run in place of its own for that instance and
// metric, and `history` loses that series' points before it. Returns the acknowledgements applied; after
// compare_runs, mark_accepted() notes them on their rows.
std::vector<db::Acknowledgement> rebase_on_accepted(const db::Store& store, const db::RunInfo& base,
                                                    const db::RunInfo& candidate, Run& base_run,
                                                    std::vector<db::Series>& history);

// Sets CompareRow::accepted and a note ("baseline: accepted step at run 1a2b3c4d: REASON") on the rows of `applied`.
void mark_accepted(std::vector<CompareRow>& rows, const std::vector<db::Acknowledgement>& applied);

}  // namespace gpuperf::analysis
