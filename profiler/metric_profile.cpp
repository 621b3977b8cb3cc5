#include "profiler/metric_profile.hpp"

#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <memory>
#include <utility>

#include "core/errors.hpp"
#include "profiler/collector_start.hpp"
#include "profiler/gpu/device_info.hpp"
#include "profiler/gpu/stream.hpp"
#include "profiler/live_groups.hpp"
#include "profiler/metric_device.hpp"
#include "profiler/phase_log.hpp"
#include "profiler/runner.hpp"

namespace gpuperf {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw EnvironmentError(std::string(what) + " failed: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
  }
}

class OwnedStream {
 public:
  OwnedStream() { check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
  ~OwnedStream() { (void)cudaStreamDestroy(s_); }  // teardown
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  StreamHandle get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// Verifies `instances` in order, keeping the verified workloads alive in groups of the collector's session
// size, ended early when memory runs low (live_groups.hpp). profile_instances and launch_instances_once both
// use it, so an external profiler over the launch-only mode sees every buffer where the collector saw it,
// and `gpuperf run` (which also times each instance before keeping it) groups the same way.
void for_each_group(const std::vector<InstanceRef>& instances, std::uint64_t seed, StreamHandle stream,
                    std::size_t max_group, double min_free_fraction, std::vector<Result>& results,
                    double& setup_seconds, const std::function<void(const std::string&)>& progress,
                    const GroupFn& run_group) {
  results.resize(instances.size());
  GroupLimits limits;
  limits.max_instances = max_group;
  limits.memory_low = [min_free_fraction] { return gpu::free_memory_fraction() < min_free_fraction; };
  for_each_live_group(
      instances, limits,
      [&](std::size_t i) {
        const auto t0 = Clock::now();
        if (progress) progress("verifying " + instances[i].instance().display_name());
        auto w = verify_instance(instances[i], seed, stream, results[i]);
        setup_seconds += seconds_since(t0);
        return w;
      },
      run_group);
}

}  // namespace

ProfileReport profile_instances(const std::vector<InstanceRef>& instances, const ProfileOptions& options) {
  ProfileReport report;
  gpu::select_device(options.collector.device);
  // The collector starts beside the verification of the first group (collector_start.hpp).
  CollectorStart collector(options.collector);
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, options.collector.device), "cudaGetDeviceProperties");
  report.device_name = prop.name;
  OwnedStream stream;

  for_each_group(instances, options.seed, stream.get(), options.collector.max_ranges_per_session,
                 options.min_free_memory_fraction, report.results, report.setup_seconds, options.progress,
                 [&](const std::vector<ProfileTarget>& targets, const std::vector<std::size_t>& index) {
                   if (options.progress) {
                     options.progress("profiling " + std::to_string(targets.size()) + " instance(s)");
                   }
                   const auto t_wait = Clock::now();
                   MetricCollector& started = collector.get();  // waits for the start, or rethrows its failure
                   report.init_wait_seconds += seconds_since(t_wait);
                   const auto t0 = Clock::now();
                   auto measured = started.collect_batch(targets, stream.get());
                   report.collect_seconds += seconds_since(t0);
                   ++report.sessions;
                   for (std::size_t k = 0; k < index.size(); ++k) {
                     report.results[index[k]].metrics = std::move(measured[k]);
                   }
                 });
  // A profile whose environment failed part-way (permissions appear at the first session) says so too.
  const auto t_wait = Clock::now();
  MetricCollector& started = collector.get();  // rethrows a failed start
  report.init_wait_seconds += seconds_since(t_wait);
  report.init_seconds = collector.seconds();
  report.environment_error = started.environment_error();
  report.metric_names = started.metric_names();
  report.passes = started.passes();
  print_phase_totals();
  return report;
}

std::vector<std::string> launch_instances_once(const std::vector<InstanceRef>& instances, int device,
                                               std::uint64_t seed,
                                               const std::function<void(const std::string&)>& progress, bool flush_l2) {
  gpu::select_device(device);
  std::unique_ptr<DeviceOps> device_ops;
  if (flush_l2) device_ops = make_cuda_device_ops(device);
  OwnedStream stream;
  const ProfileOptions defaults;  // the collector's grouping, so buffers lie where they lie there
  std::vector<Result> results;
  double setup_seconds = 0;
  std::vector<std::string> names;
  for_each_group(instances, seed, stream.get(), defaults.collector.max_ranges_per_session,
                 defaults.min_free_memory_fraction, results, setup_seconds, nullptr,
                 [&](const std::vector<ProfileTarget>& targets, const std::vector<std::size_t>&) {
                   for (const ProfileTarget& t : targets) {
                     Workload& w = *t.workload;
                     // The collector's steps before a profiled launch, outside the window: a warm launch
                     // (without it the translations are cold after the group's other instances, which moves
                     // occupancy by a point), and with `flush_l2` its flush.
                     w.launch(stream.get());
                     if (device_ops) device_ops->flush_l2(stream.get());
                     check(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize");
                     const std::string name = t.ref->instance().display_name();
                     check(cudaProfilerStart(), "cudaProfilerStart");
                     nvtxRangePushA(name.c_str());
                     w.launch(stream.get());
                     check(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize");
                     nvtxRangePop();
                     check(cudaProfilerStop(), "cudaProfilerStop");
                     names.push_back(name);
                   }
                 });
  if (progress) {
    for (const Result& r : results) {
      if (r.status != Status::ok && !r.message.empty())
        progress("skipped " + r.instance.display_name() + ": " + r.message);
    }
  }
  return names;
}

}  // namespace gpuperf
