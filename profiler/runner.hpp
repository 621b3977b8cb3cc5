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
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "kernels/benchmark.hpp"
#include "profiler/live_groups.hpp"
#include "profiler/timing.hpp"

namespace gpuperf {

// The hardware-metric collector's seam (CUPTI Range Profiler, profiler/collector.hpp's collect_batch):
// called with a group of verified, timed instances that are still alive, and the runner's stream. Returns
// one vector of Measurements per target, in order (a failed metric is a Measurement with status failed,
// not an exception).
using MetricBatchFn =
    std::function<std::vector<std::vector<Measurement>>(const std::vector<ProfileTarget>&, StreamHandle)>;

// The source-line pass's seam (profiler/source_line_pass.hpp's collect_batch): called with the same group
// after the metrics, returns one SourceLines per target, in order.
using SourceLinesBatchFn = std::function<std::vector<SourceLines>(const std::vector<ProfileTarget>&, StreamHandle)>;

struct ProgressEvent {
  enum class Phase { starting, finished };
  Phase phase = Phase::starting;
  std::size_t index = 0;  // 0-based position in the run
  std::size_t total = 0;
  const InstanceRef* instance = nullptr;
  const Result* result = nullptr;  // set when finished: the complete result, hardware metrics included
};

struct RunOptions {
  int device = 0;              // CUDA device ordinal (--device)
  TimingOptions timing;        // cold by default
  std::uint64_t seed = 0;      // input seed for every workload; 0 = a fresh random seed per run
  std::string commit, branch;  // empty: detected with git in working_dir ("" when not a git checkout)
  std::string label;
  std::string working_dir = ".";
  std::string tool_version;  // empty: this build's version
  // Hardware metrics. Empty: timing only, and each workload is freed right after its timing. Otherwise a
  // timed workload stays alive until its group (live_groups.hpp) is profiled in one collector session: a
  // group ends at `max_group` instances or when less than `min_free_memory_fraction` of device memory
  // would remain free.
  MetricBatchFn collect;
  // Per-source-line counters (an instrumented pass of its own, after `collect`), when set; a group is
  // kept alive for it as for `collect`.
  SourceLinesBatchFn collect_lines;
  // The code fingerprint of every function in the modules loaded so far, by mangled name
  // (cubin/code_fingerprint.hpp); asked once, after the last instance. Unset or empty: results keep no
  // fingerprint, only their launch shape.
  std::function<std::map<std::string, std::string>()> code_fingerprints;
  std::size_t max_group = 64;
  double min_free_memory_fraction = 0.25;
  std::function<void(const ProgressEvent&)> progress;  // optional
};

// Measures `instances` on GPU `options.device` and returns the complete run (started/finished timestamps,
// machine metadata, one Result per instance in order, status = the worst instance status).
// Throws EnvironmentError when there is no usable GPU (no driver, no device) or CUPTI cannot be loaded,
// InputError for a device ordinal this machine does not have.
Run run_benchmarks(const std::vector<InstanceRef>& instances, const RunOptions& options);

// make -> poison -> launch (inside an NVTX range named after the instance) -> verify. Fills `r`'s instance
// and baseline; returns the live workload, or null with `r` incorrect (a wrong answer, with the input seed in
// its message) or failed (the stage that failed and why). Never throws for the instance's own failures.
// `gpuperf profile` verifies through this too.
std::unique_ptr<Workload> verify_instance(const InstanceRef& ref, std::uint64_t seed, StreamHandle stream, Result& r);

// verify_instance, then time it with `timer`: `r` gets the duration and derived metrics. Returns the live
// workload (for the collector) when it was verified and timed, else null with `r` saying why.
// `kernels` (may be null) receives the mangled names of the kernels one sample ran; r.code.launch their shapes.
std::unique_ptr<Workload> time_instance(const InstanceRef& ref, std::uint64_t seed, StreamHandle stream,
                                        SampleTimer& timer, const TimingOptions& timing, Result& r,
                                        std::vector<std::string>* kernels = nullptr);

// Appends a group's hardware metrics to its results (results[k] belongs to targets[k]). A collector that
// throws leaves the timings as they are and notes "profiling failed: ..." in each result's message.
void add_group_metrics(const std::vector<ProfileTarget>& targets, StreamHandle stream, const MetricBatchFn& collect,
                       const std::vector<Result*>& results);

// Fills a group's Result::source (results[k] belongs to targets[k]). A pass that throws marks each
// result's source lines failed with the reason; nothing else changes.
void add_group_source_lines(const std::vector<ProfileTarget>& targets, StreamHandle stream,
                            const SourceLinesBatchFn& collect_lines, const std::vector<Result*>& results);

// One instance on its own: time_instance, then `collect` (when set) as a group of one.
// `stream` is passed through to the workload, the timer and the collector (it may be null in tests).
Result measure_instance(const InstanceRef& ref, std::uint64_t seed, StreamHandle stream, SampleTimer& timer,
                        const TimingOptions& timing, const MetricBatchFn& collect = {});

// The measurements gpuperf derives from a timing: "duration" (raw samples, SM clock per sample) and,
// when the benchmark declares bytes / FLOPs, "gbps" / "gflops" from the median duration (single values).
std::vector<Measurement> timing_measurements(const TimingResult& timing, double bytes, double flops);

// Sets each result's code fingerprint from the kernels its sample ran (kernels[i] for results[i]) and the
// fingerprints of the functions loaded (cubin/code_fingerprint.hpp kernels_fingerprint).
void add_code_fingerprints(const std::map<std::string, std::string>& fingerprints,
                           const std::vector<std::vector<std::string>>& kernels, std::vector<Result>& results);

// The worst status of `results` in the order incorrect > failed > unsupported > skipped > ok.
Status worst_status(const std::vector<Result>& results);
// kExitIncorrect when any result is incorrect, else kExitOk.
int exit_code_for(const Run& run);

}  // namespace gpuperf
