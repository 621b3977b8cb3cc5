// Variant pairs of a family: which instance pairs with which, the hardware metric that tells the two apart,
// and the ratio of their durations over time.
#pragma once

#include <string>
#include <vector>

#include "reports/report_model.hpp"

namespace gpuperf::reports {

// True when every axis both instances have carries the same value (matmul/tiled[n=1024,tile=16] and
// matmul/naive[n=1024] share n=1024).
bool same_shared_axes(const Params& a, const Params& b);

// The profiler metric whose latest values differ most between the two instances, relative to the larger
// (|a - b| / max(|a|, |b|)); within 0.05 of the best, the earlier metric in the traits table wins, so the
// efficiency metrics come first. "" when no shared profiler metric differs by 5% or more.
std::string key_metric(const InstanceTrends& a, const InstanceTrends& b);

// Pairs every instance that names a baseline with the baseline's instances sharing its axes, grouped by family.
std::vector<FamilyPanel> build_family_panels(const std::vector<InstanceTrends>& instances);

}  // namespace gpuperf::reports
