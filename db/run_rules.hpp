// What a run must be before any engine stores it: the checks the schema cannot make.
#pragma once

#include <string>

#include "core/result.hpp"

namespace gpuperf::db {

// InputError naming the run (and instance, metric) for: no uuid, a time that is not ISO 8601 UTC, a
// machine with no name, an instance or metric twice, a sample or clock that is not finite, clocks that do
// not match the samples.
void validate_run(const Run& run);

// InputError naming `where` when metric `m` differs from the database's `stored` traits of the same name
// (its unit, direction or determinism).
void check_metric_traits(const MetricInfo& m, const MetricInfo& stored, const std::string& where);

}  // namespace gpuperf::db
