// Unconfirmed changes: a step in the newest runs of a series, before the segmentation can confirm it.
//
// find_change_points() needs min_segment runs on each side of a change, so a step shows up min_segment
// nights (often more) after it lands. A nightly user needs it the night it lands. Here the newest k runs
// (k = 1 .. max_runs) are tested against the previous segment (at least min_history runs), run by run,
// with what one night offers: the run's raw samples (hundreds) and the run medians before it. Each run of
// the tail must
//   1. lie outside the range of the previous segment's newest `level_runs` run medians, by more than
//      `range_margin_pct`: the base-history rule of `compare --history` (a level this machine produced
//      before is not a new level) over a longer window, since the segment is one level by construction;
//      the margin keeps a kernel's second mode from reading as new each time it lands a little past
//      the runs seen in it before;
//   2. lie beyond a prediction bound of those medians, level +- t * sd * sqrt(1 + 1/m) with Student's t
//      of m - 1 degrees of freedom: at 1 - alpha for a lone run, at 1 - sqrt(alpha) for each run of a
//      longer tail (under normal run-to-run noise, one run or two in a row pass by chance with probability
//      alpha per direction). Samples within one run cannot show run-to-run noise; the history does. The
//      standard deviation, not a robust scale: a heavy-tailed history widens the bound, as it should;
//   3. differ in its raw samples from the pooled samples of the newest `sample_runs` runs of the segment
//      exactly as `compare` decides (compare_measurement(): Mann-Whitney, the Hodges-Lehmann interval
//      beyond compare's effect floor, medians outside each other's 10-90% range, confirmed in cycles
//      where clocks moved);
//   4. for a tail of one run (night one), a stricter rule 2 and a level the series has not visited: one
//      run is judged by the series' own noise, not by a fixed percentage. It must lie beyond the
//      prediction bound at 1 - `night_one_alpha` (per direction: about 3.7 run-to-run sigmas with 30 runs),
//      and not within `range_margin_pct` of `visited_runs` or more of the series' newest `level_runs` run
//      medians before it, across change points (a kernel with two modes a few percent apart, H200
//      transpose/padded at 34.1 or 35.4 us, lands in a mode it visited before: not a step; a step lands
//      where the series never was). While the segment is shorter than `full_history`, every run of a tail
//      must: a few runs show too little of a kernel's modes and tails to trust a spread of their own
//      (a new benchmark, or one right after a change point). `night_one_min_effect_pct` (0 by default)
//      adds a fixed floor on top for users who want one.
// All in the same direction. A tail also stands when one weak run would otherwise cut it short (see
// extends() in the .cpp): it keeps an alarm alive until the segmentation confirms it. The longest tail
// that passes wins. Runs without raw samples give no evidence, except runs of a metric measured once per run
// (achieved occupancy, DRAM bytes, a recorded kernel's totals): there is no rule 3 for them, and rule 1's
// margin is the metric's compare floor instead (5% and 1 MB for DRAM bytes), as `compare --history` judges
// one value (level_band.hpp). bench/detect/detect_eval.py latency measures the
// nights to a first flag and the false alarms these rules give (README, "Regressions: compare, check, detect").
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/result.hpp"
#include "reports/analysis/thresholds.hpp"

namespace gpuperf::analysis {

struct TailOptions {
  // Effect floors and alpha of the per-run sample test (rule 3): compare's (duration 2%, alpha 0.01).
  Thresholds thresholds = Thresholds::for_compare();
  std::size_t level_runs = 30;          // rules 1 and 2: the previous segment's newest runs
  std::size_t sample_runs = 10;         // rule 3: whose raw samples are pooled (compare's --history window)
  double alpha = 0.005;                 // rule 2, per direction and night under normal noise
  double night_one_alpha = 0.0005;      // rule 4: rule 2's level for night one, per direction
  std::size_t visited_runs = 2;         // rule 4: earlier runs this near make a level visited
  double night_one_min_effect_pct = 0;  // rule 4: an optional fixed floor (percent) on top
  double range_margin_pct = 1;          // rules 1 and 4 (detect_changes() passes its noisy floor)
  std::size_t min_history = 3;          // runs the previous segment needs at least
  std::size_t full_history = 8;         // with fewer, rule 4 holds for every run of a tail
};

// One usable run of a series: its median and, when loaded, its raw samples and SM clocks.
struct TailRun {
  double level = 0;
  const std::vector<double>* samples = nullptr;
  const std::vector<double>* sm_clock_mhz = nullptr;
  bool one_value = false;  // the run measured one value: judged by its level alone (no rule 3)
};

struct TailChange {
  std::size_t index = 0;  // first run of the tail (position in `runs`)
  std::size_t runs = 0;   // runs in the tail: runs.size() - index
  double before = 0;      // median of the previous segment's newest `level_runs` run medians
  double after = 0;       // median of the tail's run medians
  // Two-sided p of the tail's median against the segment's levels, as if it were the mean of k runs under
  // normal noise (Student's t, m - 1 d.f.): an indication of strength for ChangePoint::confidence.
  double p_value = 1;
};

// The longest tail of `runs` (at most `max_runs` runs) that moved, tested against the previous segment
// [segment_start, tail start), which must hold at least `min_segment` runs. Nothing when no tail passes.
std::optional<TailChange> find_tail_change(const std::vector<TailRun>& runs, std::size_t segment_start,
                                           const MetricInfo& metric, std::size_t max_runs, const TailOptions& options);

}  // namespace gpuperf::analysis
