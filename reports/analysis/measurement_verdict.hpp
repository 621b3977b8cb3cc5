// The verdict on one metric of one instance between two runs: the statistical rule of compare.hpp's opening
// comment (Mann-Whitney U, the Hodges-Lehmann interval, the effect floor, the 10-90% overlap, the cycle check where
// the clocks differ; deterministic counters by the rounding tolerance; one value per side by its size). Used by
// compare_runs for every row and by tail_changes for a series' last runs, which is why it stands apart.
#pragma once

#include "core/result.hpp"
#include "reports/analysis/compare_report.hpp"
#include "reports/analysis/types.hpp"

namespace gpuperf::analysis {

// Compares one metric of one instance; either side may be null (new/missing). `base_status` and
// `candidate_status` are the instance's status (an incorrect or failed instance is "failed").
CompareRow compare_measurement(const Measurement* base, Status base_status, const Measurement* candidate,
                               Status candidate_status, const CompareOptions& options);

// (ratio - 1) x 100: a ratio of medians as a change in percent.
double pct(double ratio);
// faster or slower for a candidate larger (or not) than the base, per the metric's direction.
Verdict direction(bool candidate_larger, const MetricInfo& m);

}  // namespace gpuperf::analysis
