#include "profiler/runner.hpp"

#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>

#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "gpuperf/version.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/host_data.hpp"
#include "profiler/cubin/code_fingerprint.hpp"
#include "profiler/cupti/activity_tracer.hpp"
#include "profiler/git_info.hpp"
#include "profiler/gpu/cuda_timing_device.hpp"
#include "profiler/gpu/device_info.hpp"
#include "profiler/gpu/stream.hpp"
#include "profiler/phase_log.hpp"
#include "profiler/sample_loop.hpp"

namespace gpuperf {
namespace {

std::string format_mhz(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

}  // namespace

std::vector<Measurement> timing_measurements(const TimingResult& timing, double bytes, double flops) {
  std::vector<Measurement> out;
  Measurement d;
  d.metric = find_metric("duration")->info;
  d.samples = timing.duration_ns;
  d.sm_clock_mhz = timing.sm_clock_mhz;
  d.summary = summarize(d.samples);
  if (d.samples.empty()) {
    d.status = Status::failed;
    d.message = "no timing samples";
  }
  const double median_ns = d.summary.median;
  out.push_back(std::move(d));
  if (median_ns > 0) {
    // bytes / ns = GB/s and FLOP / ns = GFLOP/s (decimal giga).
    if (bytes > 0) out.push_back(single_value("gbps", bytes / median_ns));
    if (flops > 0) out.push_back(single_value("gflops", flops / median_ns));
  }
  return out;
}

std::unique_ptr<Workload> verify_instance(const InstanceRef& ref, std::uint64_t seed, StreamHandle stream, Result& r) {
  r.instance = ref.instance();
  r.baseline = ref.benchmark->baseline;
  const std::string name = r.instance.display_name();
  const char* stage = "setting up the workload";
  PhaseTimer phase;
  reuse_freed_host_memory();
  std::unique_ptr<Workload> workload;
  try {
    AllocationLog allocations;
    const HostWork before = host_work();
    workload = ref.benchmark->make(ref.params, seed);
    if (!workload) throw Error("the benchmark's factory returned no workload", kExitUsage);
    workload->device_memory = std::move(allocations.ranges);
    {
      // The factory's time: random input and CPU reference as the built-in workloads count them, the rest
      // (allocation, upload) as set-up.
      const double random_s = host_work().random_input_s - before.random_input_s;
      const double reference_s = host_work().reference_s - before.reference_s;
      const double make_s = phase.split();
      phase_totals().add("set-up (allocation, upload)", make_s - random_s - reference_s);
      phase_totals().add("random inputs", random_s);
      phase_totals().add("CPU reference", reference_s);
    }
    stage = "the verification launch";
    workload->poison_outputs(stream);
    nvtxRangePushA(name.c_str());
    try {
      workload->launch(stream);
    } catch (...) {
      nvtxRangePop();
      throw;
    }
    nvtxRangePop();
    stage = "verification";
    const Verification v = workload->verify(stream);
    phase_totals().add("verification (poison, launch, download, compare)", phase.split());
    if (!v.ok) {
      r.status = Status::incorrect;
      r.message = (v.message.empty() ? std::string("output does not match the CPU reference") : v.message) +
                  " (input seed " + std::to_string(seed) + ")";
      return nullptr;  // a wrong answer is never timed nor profiled
    }
    workload->verified();
    return workload;
  } catch (const CudaError& e) {
    // This chip cannot run it (no code for its architecture, a launch beyond its limits): unsupported, not failed.
    // A launch shape beyond the limits comes back as cudaErrorInvalidValue, which alone says nothing of why.
    std::string why = device_cannot_run(e.code());
    if (why.empty() && e.code() == cudaErrorInvalidValue && workload && std::string(stage) == "the verification launch")
      why = launch_beyond_limits(workload->launch_shape());
    r.status = why.empty() ? Status::failed : Status::unsupported;
    r.message = std::string(stage) + (why.empty() ? " failed: " : " cannot run here: " + why + ": ") + e.what();
    return nullptr;
  } catch (const std::exception& e) {
    r.status = Status::failed;
    r.message = std::string(stage) + " failed: " + e.what();
    return nullptr;
  }
}

std::unique_ptr<Workload> time_instance(const InstanceRef& ref, std::uint64_t seed, StreamHandle stream,
                                        SampleTimer& timer, const TimingOptions& timing, Result& r,
                                        std::vector<std::string>* kernels) {
  auto workload = verify_instance(ref, seed, stream, r);
  if (!workload) return nullptr;
  try {
    const TimingResult t = timer.time(*workload, stream, r.instance.display_name(), timing);
    const double bytes = ref.benchmark->bytes ? ref.benchmark->bytes(ref.params) : 0.0;
    const double flops = ref.benchmark->flops ? ref.benchmark->flops(ref.params) : 0.0;
    r.metrics = timing_measurements(t, bytes, flops);
    r.code.launch.clear();
    for (const std::string& l : t.launches) r.code.launch += (r.code.launch.empty() ? "" : "; ") + l;
    if (kernels != nullptr) *kernels = t.kernels;
    if (const std::size_t throttled = t.throttled_count(); throttled > 0) {
      r.message = std::to_string(throttled) + " of " + std::to_string(t.duration_ns.size()) +
                  " samples throttled (SM clock below " + format_mhz(timing.throttle_fraction * t.reference_clock_mhz) +
                  " MHz)";
    }
  } catch (const std::exception& e) {
    r.status = Status::failed;
    r.message = std::string("timing failed: ") + e.what();
    r.metrics.clear();
    return nullptr;
  }
  return workload;
}

void add_group_metrics(const std::vector<ProfileTarget>& targets, StreamHandle stream, const MetricBatchFn& collect,
                       const std::vector<Result*>& results) {
  std::string failure;
  try {
    auto measured = collect(targets, stream);
    if (measured.size() != targets.size()) {
      throw std::runtime_error("the collector returned " + std::to_string(measured.size()) + " results for " +
                               std::to_string(targets.size()) + " instances");
    }
    for (std::size_t k = 0; k < targets.size(); ++k) {
      for (auto& m : measured[k]) results[k]->metrics.push_back(std::move(m));
    }
    return;
  } catch (const std::exception& e) {
    failure = e.what();
  }
  // The timings stand; the profile's failure is reported with each instance of the group.
  for (Result* r : results) {
    if (!r->message.empty()) r->message += "; ";
    r->message += "profiling failed: " + failure;
  }
}

void add_group_source_lines(const std::vector<ProfileTarget>& targets, StreamHandle stream,
                            const SourceLinesBatchFn& collect_lines, const std::vector<Result*>& results) {
  try {
    auto lines = collect_lines(targets, stream);
    if (lines.size() != targets.size()) {
      throw std::runtime_error("the source-line pass returned " + std::to_string(lines.size()) + " results for " +
                               std::to_string(targets.size()) + " instances");
    }
    for (std::size_t k = 0; k < targets.size(); ++k) results[k]->source = std::move(lines[k]);
  } catch (const std::exception& e) {
    for (Result* r : results) {
      r->source = SourceLines{};
      r->source.status = Status::failed;
      r->source.message = std::string("source-line pass failed: ") + e.what();
    }
  }
}

Result measure_instance(const InstanceRef& ref, std::uint64_t seed, StreamHandle stream, SampleTimer& timer,
                        const TimingOptions& timing, const MetricBatchFn& collect) {
  Result r;
  auto workload = time_instance(ref, seed, stream, timer, timing, r);
  if (workload && collect) add_group_metrics({ProfileTarget{&ref, workload.get()}}, stream, collect, {&r});
  return r;
}

Status worst_status(const std::vector<Result>& results) {
  auto rank = [](Status s) {
    switch (s) {
      case Status::incorrect: return 4;
      case Status::failed: return 3;
      case Status::unsupported: return 2;
      case Status::skipped: return 1;
      case Status::ok: return 0;
    }
    return 3;
  };
  Status worst = Status::ok;
  for (const auto& r : results) {
    if (rank(r.status) > rank(worst)) worst = r.status;
  }
  return worst;
}

int exit_code_for(const Run& run) {
  for (const auto& r : run.results) {
    if (r.status == Status::incorrect) return kExitIncorrect;
  }
  return kExitOk;
}

void add_code_fingerprints(const std::map<std::string, std::string>& fingerprints,
                           const std::vector<std::vector<std::string>>& kernels, std::vector<Result>& results) {
  for (std::size_t i = 0; i < results.size() && i < kernels.size(); ++i) {
    results[i].code.fingerprint = cubin::kernels_fingerprint(kernels[i], fingerprints);
  }
}

Run run_benchmarks(const std::vector<InstanceRef>& instances, const RunOptions& options) {
  PhaseTimer phase;
  Run run;
  run.uuid = make_uuid();
  run.started_at = now_iso8601();
  run.label = options.label;
  run.tool_version = options.tool_version.empty() ? GPUPERF_VERSION : options.tool_version;
  run.commit = options.commit;
  run.branch = options.branch;
  if (run.commit.empty() || run.branch.empty()) {
    const GitInfo git = detect_git(options.working_dir);
    if (run.commit.empty()) run.commit = git.commit;
    if (run.branch.empty()) run.branch = git.branch;
  }

  gpu::select_device(options.device);
  run.machine = gpu::describe_machine(options.device);
  run.environment = gpu::describe_environment(options.device, run.machine);
  std::uint64_t seed = options.seed;
  if (seed == 0) {
    std::random_device rd;
    seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    if (seed == 0) seed = 1;
  }

  cupti::CuptiActivitySource activity;
  gpu::CudaTimingDevice device;
  SampleLoop loop(activity, device);
  gpu::Stream stream;
  phase.lap("run set-up (git, device, machine, CUPTI activity, flush buffer, stream)");

  // Instances are measured in order; with a collector, each stays alive after its timing until its group
  // is profiled in one session (live_groups.hpp), and its "finished" event comes once its metrics are in.
  run.results.resize(instances.size());
  auto finished = [&](std::size_t i) {
    if (options.progress) {
      options.progress(
          ProgressEvent{ProgressEvent::Phase::finished, i, instances.size(), &instances[i], &run.results[i]});
    }
  };
  GroupLimits limits;
  limits.max_instances = options.max_group;
  const double min_free = options.min_free_memory_fraction;
  limits.memory_low = [min_free] { return gpu::free_memory_fraction() < min_free; };
  std::string broken;  // set once the context is unusable: the rest cannot run
  std::vector<std::vector<std::string>> kernels_of(instances.size());  // each result's kernels, for its code
  for_each_live_group(
      instances, limits,
      [&](std::size_t i) -> std::unique_ptr<Workload> {
        const InstanceRef& ref = instances[i];
        if (options.progress)
          options.progress(ProgressEvent{ProgressEvent::Phase::starting, i, instances.size(), &ref, nullptr});
        Result& r = run.results[i];
        std::unique_ptr<Workload> workload;
        if (!broken.empty()) {
          r.instance = ref.instance();
          r.baseline = ref.benchmark->baseline;
          r.status = Status::skipped;
          r.message = "not run: the GPU context broke earlier in this run: " + broken;
        } else {
          workload = time_instance(ref, seed, stream.get(), loop, options.timing, r, &kernels_of[i]);
          if (r.status == Status::failed) broken = gpu::sticky_error();
        }
        if (!workload || (!options.collect && !options.collect_lines)) {
          PhaseTimer free_time;
          workload.reset();  // freed now: nothing to profile
          phase_totals().add("freeing workloads", free_time.split());
          finished(i);
          return nullptr;
        }
        return workload;
      },
      [&](const std::vector<ProfileTarget>& targets, const std::vector<std::size_t>& index) {
        std::vector<Result*> results;
        for (std::size_t i : index) results.push_back(&run.results[i]);
        if (options.collect) add_group_metrics(targets, stream.get(), options.collect, results);
        // Apart from timing and the range profiler's sessions: kernels run instrumented in this pass.
        if (options.collect_lines) add_group_source_lines(targets, stream.get(), options.collect_lines, results);
        for (std::size_t i : index) finished(i);
      });
  if (options.code_fingerprints) add_code_fingerprints(options.code_fingerprints(), kernels_of, run.results);
  run.finished_at = now_iso8601();
  run.status = worst_status(run.results);
  return run;
}

}  // namespace gpuperf
