// How large a change must be before compare or detect reports it, per metric.
#pragma once

#include <map>
#include <string>

#include "core/result.hpp"

namespace gpuperf::analysis {

struct Thresholds {
  // Significance level of the statistical test (compare: Mann-Whitney on raw samples; detect: the
  // permutation test of a split).
  double alpha = 0.01;
  // Minimum effect size of noisy metrics, in percent of the base level, unless `min_effect_pct` names it.
  double default_min_effect_pct = 2.0;
  std::map<std::string, double> min_effect_pct;  // metric name -> percent
  // Differences smaller than this, in the metric's unit, are never a change (dram bytes: 1 MB, so a few kB
  // of incidental write-back do not read as +200%).
  std::map<std::string, double> min_effect_abs;
  // Deterministic counters: a relative difference above this is a change, below it rounding.
  double deterministic_tolerance_pct = 0.01;

  // Defaults of `gpuperf compare`/`check`: alpha 0.01; duration/gbps/gflops 2%; achieved_occupancy and dram
  // bytes 5% (dram also 1 MB); stall ratios 10% and 0.01 warps/issue; issue activity and the throughputs 5%
  // and 0.5 points; shared transactions 2% and bank conflicts 25% (nearly deterministic).
  // One run's samples show only within-run noise, hence the effect floor.
  static Thresholds for_compare();
  // Defaults of `gpuperf detect`: alpha 0.005 per tested segment, noisy metrics 1%, the nearly
  // deterministic counters as for compare. The series itself shows the run-to-run noise, so the floor
  // only hides changes too small to act on.
  static Thresholds for_detect();

  // The percent a change of `metric` must reach: min_effect_pct[name], else the default for noisy
  // metrics, else deterministic_tolerance_pct for deterministic ones.
  double min_effect_for(const MetricInfo& metric) const;
  // The metric's absolute floor in its unit (min_effect_abs), 0 without one.
  double abs_floor_for(const MetricInfo& metric) const;
  // True when |after - before| is below the metric's absolute floor (min_effect_abs).
  bool below_absolute_floor(const MetricInfo& metric, double before, double after) const;
  // Applies "NAME=PCT" (e.g. "duration=3", "duration=3%", "*=2.5" for the noisy default).
  // Throws InputError on anything else, naming the spec, and on an unknown metric name (gate.hpp,
  // check_metric_name()).
  void apply(const std::string& spec);
};

}  // namespace gpuperf::analysis
