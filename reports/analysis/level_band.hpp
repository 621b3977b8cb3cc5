// Whether a run's level is new to a machine, judged against the levels of the runs before it: the rule for a
// metric measured once per run (achieved occupancy, DRAM bytes, a recorded kernel's totals), where no sample
// test is possible. `compare`/`check --history` and detect's unconfirmed changes (tail_changes.hpp) share it.
//
// One value per run shows nothing of its own noise; the earlier runs show the run-to-run noise. A level is
// new only where it lies
//   1. outside the range of the earlier levels by more than a margin: a percentage of the nearer end of the
//      range and an absolute floor in the metric's unit, whichever is larger (a level the machine produced
//      before is not new; the margin is the metric's effect floor), and
//   2. beyond a prediction bound of their spread: median +- t(p, m - 1) * sd * sqrt(1 + 1/m) with Student's
//      t of m - 1 degrees of freedom, the interval one more run of the same normal population falls
//      outside of with probability 1 - p per direction. The standard deviation, not a robust scale: a
//      heavy-tailed history widens the bound, as it should.
#pragma once

#include <cstddef>
#include <vector>

#include "core/result.hpp"

namespace gpuperf::analysis {

struct LevelBand {
  std::size_t m = 0;         // earlier levels
  double level = 0;          // their median
  double sd = 0;             // their standard deviation (n - 1)
  double low = 0, high = 0;  // their range
};

// True for a metric whose one value per run is judged by these rules: every metric but the duration (always
// sampled; a summary imported without samples gives no evidence) and GB/s and GFLOP/s (computed from the
// median duration: the duration's test is theirs).
bool judged_by_level(const MetricInfo& metric);

// The band of `levels` (at least 2; with fewer, m says so and sd is 0).
LevelBand level_band(const std::vector<double>& levels);

// t(p, m - 1) * sd * sqrt(1 + 1/m), for p in (0.5, 1): rule 2's half-width. Infinite for m < 2.
double prediction_bound(const LevelBand& band, double p);

// +1 when `v` lies above the band by rules 1 and 2 (margin_pct and abs_floor for rule 1, `bound` for
// rule 2), -1 below, 0 when either rule keeps it inside.
int outside_band(double v, const LevelBand& band, double margin_pct, double abs_floor, double bound);

}  // namespace gpuperf::analysis
