// Raw samples for the unconfirmed-change rule, without loading a year of them: detect_changes() needs the
// samples of a series' newest runs only (its tail and the runs it is tested against).
#pragma once

#include <cstddef>
#include <vector>

#include "db/store.hpp"
#include "reports/analysis/detect.hpp"

namespace gpuperf::analysis {

// Runs per machine whose samples detect_changes() may read with `options`: the longest tail tested plus the
// runs it is pooled against, doubled for series that skip some of their machine's runs.
std::size_t recent_runs_for_samples(const DetectOptions& options);

// Fills the samples and SM clocks of the points of `series` that belong to each machine's newest `runs` runs
// of `filter` (`series` must have been read with the same filter, without samples). One more history
// query, of those runs only.
void attach_recent_samples(const db::Store& store, db::HistoryFilter filter, std::vector<db::Series>& series,
                           std::size_t runs);

}  // namespace gpuperf::analysis
