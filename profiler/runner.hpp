// The runner: for each benchmark instance, make its workload, poison its outputs, launch once and verify,
// then time it and (when asked) collect hardware metrics; the result is one Result per instance in one Run.
//
//   Registry::instances(filter) -> run_benchmarks(instances, options) -> Run -> db::Store::insert_run
//
// A failing instance (wrong answer, CUDA error, exception) is recorded with its reason and the run goes on;
// an incorrect instance is never timed. Nothing here stores the run: the caller does, in one transaction.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/benchmark.hpp"
#include "core/result.hpp"
#include "profiler/timing.hpp"

namespace gpuperf {

// The hardware-metric collector's seam (CUPTI Range Profiler, profiler/collector.hpp): called once per
// verified instance after timing, with the live workload and the runner's stream. Returns one Measurement
// per metric (a failed metric is a Measurement with status failed, not an exception). Empty = timing only.
using MetricCollectFn =
    std::function<std::vector<Measurement>(const InstanceRef&, Workload&, StreamHandle)>;

struct ProgressEvent {
  enum class Phase { starting, finished };
  Phase phase = Phase::starting;
  std::size_t index = 0;  // 0-based position in the run
  std::size_t total = 0;
  const InstanceRef* instance = nullptr;
  const Result* result = nullptr;  // set when finished
};

struct RunOptions {
  int device = 0;                  // CUDA device ordinal (--device)
  TimingOptions timing;            // cold by default
  std::uint64_t seed = 0;          // input seed for every workload; 0 = a fresh random seed per run
  std::string commit, branch;      // empty: detected with git in working_dir ("" when not a git checkout)
  std::string label;
  std::string working_dir = ".";
  std::string tool_version;        // empty: this build's version
  MetricCollectFn collect;         // empty: timing only
  std::function<void(const ProgressEvent&)> progress;  // optional
};

// Measures `instances` on GPU `options.device` and returns the complete run (started/finished timestamps,
// machine metadata, one Result per instance in order, status = the worst instance status).
// Throws EnvironmentError when there is no usable GPU (no driver, no device) or CUPTI cannot be loaded,
// InputError for a device ordinal this machine does not have.
Run run_benchmarks(const std::vector<InstanceRef>& instances, const RunOptions& options);

// One instance with the given timing back end: make -> poison -> launch -> verify -> time -> collect.
// Never throws for the instance's own failures: they become Status::incorrect / failed with a message.
// `stream` is passed through to the workload, the timer and the collector (it may be null in tests).
Result measure_instance(const InstanceRef& ref, std::uint64_t seed, StreamHandle stream, SampleTimer& timer,
                        const TimingOptions& timing, const MetricCollectFn& collect = {});

// The measurements gpuperf derives from a timing: "duration" (raw samples, SM clock per sample) and,
// when the benchmark declares bytes / FLOPs, "gbps" / "gflops" from the median duration (single values).
std::vector<Measurement> timing_measurements(const TimingResult& timing, double bytes, double flops);

// The worst status of `results` in the order incorrect > failed > unsupported > skipped > ok.
Status worst_status(const std::vector<Result>& results);
// kExitIncorrect when any result is incorrect, else kExitOk.
int exit_code_for(const Run& run);

}  // namespace gpuperf
