// Evaluation into gpuperf measurements: a range's Perfworks values and a kernel's static attributes
// become one Measurement per requested metric (single value, unit, direction, determinism, status).
// Plain C++, unit-tested.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "profiler/metric_plan.hpp"

namespace gpuperf {

// What cudaFuncGetAttributes and the occupancy API say about a kernel at its launch shape.
struct StaticAttributes {
  int registers = 0;                    // per thread
  std::size_t static_shared_bytes = 0;  // per block
  std::size_t local_bytes = 0;          // per thread (spills, stack)
  int threads_per_block = 0;            // of the launch
  int active_blocks_per_sm = 0;         // cudaOccupancyMaxActiveBlocksPerMultiprocessor at that launch
  int max_threads_per_sm = 0;           // cudaDevAttrMaxThreadsPerMultiProcessor
  int warp_size = 32;
};

// Resident warps per SM at the launch shape / the SM's maximum, in percent (0 when undefined).
double theoretical_occupancy_pct(const StaticAttributes& a);

Measurement failed_measurement(const MetricInfo& info, Status status, const std::string& message);

// One Measurement per request of `plan`, in order.
// `values`: the target's range values (one per plan.perfworks), or null when profiling failed for it, with
//   `profiler_failure` saying why (and `profiler_status`, failed or unsupported).
// `statics`: the kernel's static attributes, or null with `static_failure` saying why.
// A non-finite value (a ratio whose denominator is zero: no operations of that kind) is status skipped.
std::vector<Measurement> evaluate_target(const MetricPlan& plan, const std::vector<double>* values,
                                         Status profiler_status, const std::string& profiler_failure,
                                         const StaticAttributes* statics, const std::string& static_failure);

}  // namespace gpuperf
