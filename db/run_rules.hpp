// What a run must be before any engine stores it: the checks the schema cannot make.
#pragma once

#include <optional>
#include <string>

#include "core/result.hpp"

namespace gpuperf::db {

// InputError naming the run (and instance, metric) for: no uuid, a time that is not ISO 8601 UTC, a
// machine with no name, an instance or metric twice, a sample or clock that is not finite, clocks that do
// not match the samples, rank fields that rank_problem() refuses.
void validate_run(const Run& run);

// What is wrong with a run's rank fields (Run::rank, local_rank, world_size), each optional: a rank or local
// rank below 0, a world size below 1, or a rank or local rank not below the world size (RANK counts from 0
// to WORLD_SIZE - 1, and a host's LOCAL_RANK stays below it too). `field` names the field at fault.
struct RankProblem {
  std::string field;  // "rank", "local_rank" or "world_size"
  std::string what;   // "rank 2 is not below world_size 2 (ranks count from 0 to world_size - 1)"
};
std::optional<RankProblem> rank_problem(const Run& run);

// InputError naming `where` when metric `m` differs from the database's `stored` traits of the same name
// (its unit, direction or determinism).
void check_metric_traits(const MetricInfo& m, const MetricInfo& stored, const std::string& where);

}  // namespace gpuperf::db
