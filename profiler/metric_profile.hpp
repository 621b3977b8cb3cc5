// `gpuperf profile`'s engine: verify the selected instances, keep as many live as the device's memory
// allows, and profile each group in one collector session. Also the launch-only mode bench/gpu/ncu_compare.sh
// runs under ncu: the same instances, each launched once inside cudaProfilerStart/Stop, no CUPTI of ours.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "kernels/benchmark.hpp"
#include "profiler/collector.hpp"

namespace gpuperf {

struct ProfileOptions {
  CollectorOptions collector;
  std::uint64_t seed = 1;  // input seed for every workload
  // A group is profiled (and its workloads freed) before the next workload would leave less than this
  // fraction of device memory free.
  double min_free_memory_fraction = 0.25;
  std::function<void(const std::string& line)> progress;  // optional
};

struct ProfileReport {
  std::string device_name;
  std::string environment_error;  // non-empty: profiling was impossible (see MetricCollector)
  std::vector<std::string> metric_names;
  std::size_t passes = 0;       // per session, from CUPTI
  std::size_t sessions = 0;     // collector sessions run (groups of live instances)
  std::vector<Result> results;  // one per instance, in order; incorrect ones carry no metrics
  double setup_seconds = 0;     // making, poisoning, launching and verifying workloads
  // Starting the collector: CUPTI, counter availability, configuration. It runs beside the verification of
  // the first group, so less (often none) of it adds to the wall time.
  double init_seconds = 0;
  double init_wait_seconds = 0;  // of init_seconds, what the profile waited for (the rest was hidden)
  double collect_seconds = 0;    // inside the collector: replay passes, decoding, evaluation
};

// Throws InputError (metric names), EnvironmentError (no GPU). Instance failures are in the results.
ProfileReport profile_instances(const std::vector<InstanceRef>& instances, const ProfileOptions& options);

// For an external profiler: verifies the instances and keeps them alive in the same groups as
// profile_instances (so every buffer lies where the collector's run had it), then launches each once
// between cudaProfilerStart and cudaProfilerStop (ncu --profile-from-start off sees exactly one kernel per
// instance, in order) with an NVTX range named after it. Returns the instances in launch order; incorrect
// ones are skipped and reported through `progress`. Each launch follows an unprofiled one of the same
// instance (CollectorOptions::warm_launch); with `flush_l2`, the collector's L2 flush too, completed before
// cudaProfilerStart, so an external profiler with its cache control off sees the kernel in the state
// gpuperf's collector measures it in. Throws EnvironmentError (no GPU).
std::vector<std::string> launch_instances_once(const std::vector<InstanceRef>& instances, int device,
                                               std::uint64_t seed,
                                               const std::function<void(const std::string&)>& progress,
                                               bool flush_l2 = false);

}  // namespace gpuperf
