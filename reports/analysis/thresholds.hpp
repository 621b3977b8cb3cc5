// How large a change must be before compare or detect reports it, per metric.
#pragma once

#include <map>
#include <string>

#include "profiler/model/result.hpp"

namespace gpuperf::analysis {

struct Thresholds {
  // Significance level of the statistical test (compare: Mann-Whitney on raw samples; detect: the
  // permutation test of a split).
  double alpha = 0.01;
  // Minimum effect size of noisy metrics, in percent of the base level, unless `min_effect_pct` names it.
  double default_min_effect_pct = 2.0;
  std::map<std::string, double> min_effect_pct;  // metric name -> percent
  // Deterministic counters: a relative difference above this is a change, below it rounding.
  double deterministic_tolerance_pct = 0.01;

  // Defaults of `gpuperf compare`/`check`: alpha 0.01, duration/gbps/gflops 2%, achieved_occupancy 3%,
  // dram bytes 1%. One run's samples show only within-run noise, hence the effect floor.
  static Thresholds for_compare();
  // Defaults of `gpuperf detect`: alpha 0.005 per tested segment, noisy metrics 1%. The series itself
  // shows the run-to-run noise, so the floor only hides changes too small to act on.
  static Thresholds for_detect();

  // The percent a change of `metric` must reach: min_effect_pct[name], else the default for noisy
  // metrics, else deterministic_tolerance_pct for deterministic ones.
  double min_effect_for(const MetricInfo& metric) const;
  // Applies "NAME=PCT" (e.g. "duration=3", "duration=3%", "*=2.5" for the noisy default).
  // Throws InputError on anything else, naming the spec.
  void apply(const std::string& spec);
};

}  // namespace gpuperf::analysis
