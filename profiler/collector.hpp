// The hardware-metric collector: CUPTI Range Profiler counters (plus static kernel attributes) for
// verified benchmark instances. The runner calls it after timing; `gpuperf profile` calls it directly.
//
// How it measures (README.md, "Profiling metrics"):
//   * one CUPTI configuration for all requested Perfworks metrics, built once per collector;
//   * idempotent benchmarks: user range + user replay. In each pass every instance of the batch is
//     launched once unprofiled (warm_launch), L2 is flushed, and it is launched again inside its own range
//     named after its display name; CUPTI needs one pass per counter group (2-4 on GH100 for the default
//     set), nothing is saved or restored;
//   * rates over elapsed cycles (speed of light) need ranges that hold the kernel alone: for idempotent
//     benchmarks a configuration of their own in auto ranges with user replay, the same launches in each
//     pass, every kernel a range (the warm launch and the flush kernels too, skipped by launch order);
//     where the instance's device memory is known (Workload::device_memory) the flush reads a word of every
//     64 KiB of it first and the warm launch is left out, one range less per instance and pass;
//   * benchmarks declared not idempotent: auto range + kernel replay (CUPTI saves and restores memory);
//   * durations never come from a user range (it includes launch gaps): duration is the timing pass's job.
//
// Nothing here includes a CUDA or CUPTI header. The CUPTI back end is a separate module
// (profiler/cupti/range_backend_cupti.cpp, libgpuperf_cupti.so) loaded at run time, so a machine without
// libcupti still runs every command that does not profile.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "kernels/benchmark.hpp"
#include "profiler/live_groups.hpp"

namespace gpuperf {

namespace cupti {
class RangeProfilerBackend;
}
class DeviceOps;

enum class ReplayMode {
  automatic,  // user replay for idempotent benchmarks (elapsed rates in auto ranges), kernel replay for the others
  user,       // always user replay in user ranges (wrong for kernels that are not idempotent)
  kernel,     // always kernel replay (slower: CUPTI saves and restores device memory between passes)
};
const char* to_string(ReplayMode m);
// "auto" | "user" | "kernel"; throws InputError otherwise.
ReplayMode replay_mode_from_string(const std::string& s);

struct CollectorOptions {
  int device = 0;
  // gpuperf metric names (core/metrics.hpp) and raw Perfworks names, in output order.
  // Empty: default_collector_metrics().
  std::vector<std::string> metrics;
  ReplayMode replay = ReplayMode::automatic;
  // Flush L2 before every pass so DRAM counters see a cold cache, as ncu's default --cache-control all.
  bool flush_l2 = true;
  // User replay: launch each instance once, outside any range, right before its flush. Every profiled
  // launch then finds the state a kernel finds after its own previous launch and a cache flush (address
  // translations and code warm, L2 empty), whatever ran before it in the batch. That is the state ncu
  // measures in (it profiles a launch that follows the verification launch) and the state of a timing
  // sample. Without it, an instance profiled after others that touched gigabytes starts with cold
  // translations: +10-20 kB of DRAM reads (page walks) and occupancy up to 1 point off on short kernels.
  // In the auto-range session an instance whose device memory is known gets the warming flush instead
  // (DeviceOps::make_warm_list): the same translations warm, one CUPTI range less.
  bool warm_launch = true;
  // Most instances profiled in one session (one range each per pass).
  std::size_t max_ranges_per_session = 64;
  // Profile SASS-patched metrics (smsp__sass_*: the efficiencies) in sessions of their own, so hardware
  // counters (occupancy, DRAM, shared memory) are read while kernels run unpatched. Costs one more session.
  bool separate_sass = false;
  // The default set was asked: its speed-of-light throughputs are read as TriageCompute metrics where the chip
  // accepts them and the set then needs fewer passes (profiler/speed_of_light.hpp, speed_of_light_names).
  bool triage_speed_of_light = false;
};

class MetricCollector {
 public:
  virtual ~MetricCollector() = default;

  // Profiles one verified instance: one Measurement per requested metric, in the requested order.
  // Never throws for a failure of this instance or of the profiler: a metric that could not be collected
  // is a Measurement with status failed (or unsupported) and the reason in `message`.
  virtual std::vector<Measurement> collect(const InstanceRef& ref, Workload& workload, StreamHandle stream) = 0;

  // The same for several live instances at once: one session, every instance in its own range in each
  // pass. Much cheaper than one collect() per instance. Returns one vector per target, in order.
  virtual std::vector<std::vector<Measurement>> collect_batch(const std::vector<ProfileTarget>& targets,
                                                              StreamHandle stream) = 0;

  // The requested metric names, resolved (what collect() returns, in order).
  virtual const std::vector<std::string>& metric_names() const = 0;
  // Replay passes one session needs for the requested metrics (0 when only static metrics are asked for).
  virtual std::size_t passes() const = 0;
  // Non-empty once profiling failed for a reason that will not go away in this process (no permission,
  // another profiler holds the counters, ...). Later calls then return failed measurements at once.
  // A caller that stored the timings anyway should still exit with kExitEnvironment (3).
  virtual std::string environment_error() const = 0;
};

// The CUPTI collector for GPU `options.device`.
// Throws InputError for an unknown metric name (the message lists close names; raw Perfworks names are
// checked against the chip's own metric list) and EnvironmentError when there is no usable GPU.
// When profiling is impossible but the GPU works (libcupti or the back-end module missing, an unsupported
// device, another profiler holding the counters) it still returns a collector: environment_error() says
// why, its profiler metrics come back failed with that reason and static attributes are still measured,
// so `gpuperf run` keeps its timings. Permission problems appear at the first collect() (CUPTI reports
// them only when the profiler is enabled on a context).
std::unique_ptr<MetricCollector> make_cupti_collector(const CollectorOptions& options);
std::unique_ptr<MetricCollector> make_cupti_collector(int device, std::vector<std::string> metric_names);

// The same collector over explicit parts: tests pass a fake back end and fake device operations.
// `backend` may be null when only static metrics are requested. Throws InputError as above.
std::unique_ptr<MetricCollector> make_collector(std::unique_ptr<cupti::RangeProfilerBackend> backend,
                                                std::unique_ptr<DeviceOps> device, const CollectorOptions& options);

// Every Perfworks metric of `chip` ("GH100") whose full name contains `filter`, sorted; only the base
// names when `filter` is empty. Needs libcupti (the host API), not a GPU. Throws EnvironmentError.
std::vector<std::string> list_chip_metrics(const std::string& chip, const std::string& filter);
// gpuperf metric `names` (the default set's) as `chip` reads them with the fewest passes: the speed-of-light
// throughputs as TriageCompute metrics where CUPTI's host API accepts them for the chip and the set then needs fewer
// passes (speed_of_light.hpp, speed_of_light_names); `names` unchanged otherwise, or when the host API cannot
// answer (no libcupti). Needs no GPU.
std::vector<std::string> speed_of_light_for_chip(const std::vector<std::string>& names, const std::string& chip);
// CUPTI's chip name for CUDA device `device` ("GH100" on an H100 or H200). Throws EnvironmentError.
std::string device_chip_name(int device);

// The metrics `gpuperf run` collects by default: default_profile_metrics() plus the static attributes
// (registers, static_shared_bytes, local_bytes, theoretical_occupancy).
std::vector<std::string> default_collector_metrics();

}  // namespace gpuperf
