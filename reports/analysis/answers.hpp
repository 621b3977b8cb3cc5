// What a team's answers (db/answers.hpp) change in the analysis: an acknowledged change is answered, not open;
// an accepted step is the series' new baseline for `check` and `compare`.
#pragma once

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
