#include "profiler/runner.hpp"

#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <memory>
#include <random>

#include "profiler/cupti/activity_tracer.hpp"
#include "profiler/git_info.hpp"
#include "profiler/gpu/cuda_timing_device.hpp"
#include "profiler/gpu/device_info.hpp"
#include "profiler/gpu/stream.hpp"
#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "profiler/sample_loop.hpp"

#ifndef GPUPERF_VERSION
#define GPUPERF_VERSION "0.0.0"
#endif

namespace gpuperf {
namespace {

Measurement single_value(const char* metric, double value) {
  Measurement m;
  m.metric = find_metric(metric)->info;
  m.samples = {value};
  m.summary = summarize(m.samples);
  return m;
}

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

Result measure_instance(const InstanceRef& ref, std::uint64_t seed, StreamHandle stream, SampleTimer& timer,
                        const TimingOptions& timing, const MetricCollectFn& collect) {
  Result r;
  r.instance = ref.instance();
  r.baseline = ref.benchmark->baseline;
  const std::string name = r.instance.display_name();
  const std::string seed_note = " (input seed " + std::to_string(seed) + ")";

  std::unique_ptr<Workload> workload;
  const char* stage = "setting up the workload";
  try {
    workload = ref.benchmark->make(ref.params, seed);
    if (!workload) throw Error("the benchmark's factory returned no workload", kExitUsage);
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
    if (!v.ok) {
      r.status = Status::incorrect;
      r.message = (v.message.empty() ? std::string("output does not match the CPU reference") : v.message) + seed_note;
      return r;  // a wrong answer is never timed
    }
    stage = "timing";
    const TimingResult t = timer.time(*workload, stream, name, timing);
    const double bytes = ref.benchmark->bytes ? ref.benchmark->bytes(ref.params) : 0.0;
    const double flops = ref.benchmark->flops ? ref.benchmark->flops(ref.params) : 0.0;
    r.metrics = timing_measurements(t, bytes, flops);
    if (const std::size_t throttled = t.throttled_count(); throttled > 0) {
      r.message = std::to_string(throttled) + " of " + std::to_string(t.duration_ns.size()) +
                  " samples throttled (SM clock below " + format_mhz(timing.throttle_fraction * t.reference_clock_mhz) +
                  " MHz)";
    }
  } catch (const std::exception& e) {
    r.status = Status::failed;
    r.message = std::string(stage) + " failed: " + e.what();
    r.metrics.clear();
    return r;
  }

  if (collect) {
    try {
      auto more = collect(ref, *workload, stream);
      for (auto& m : more) r.metrics.push_back(std::move(m));
    } catch (const std::exception& e) {
      // The timing stands; the profile's failure is reported with the instance.
      if (!r.message.empty()) r.message += "; ";
      r.message += std::string("profiling failed: ") + e.what();
    }
  }
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

Run run_benchmarks(const std::vector<InstanceRef>& instances, const RunOptions& options) {
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

  std::string broken;  // set once the context is unusable: the rest cannot run
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const InstanceRef& ref = instances[i];
    if (options.progress) options.progress(ProgressEvent{ProgressEvent::Phase::starting, i, instances.size(), &ref, nullptr});
    Result r;
    if (!broken.empty()) {
      r.instance = ref.instance();
      r.baseline = ref.benchmark->baseline;
      r.status = Status::skipped;
      r.message = "not run: the GPU context broke earlier in this run: " + broken;
    } else {
      r = measure_instance(ref, seed, stream.get(), loop, options.timing, options.collect);
      if (r.status == Status::failed) broken = gpu::sticky_error();
    }
    run.results.push_back(std::move(r));
    if (options.progress) {
      options.progress(ProgressEvent{ProgressEvent::Phase::finished, i, instances.size(), &ref, &run.results.back()});
    }
  }
  run.finished_at = now_iso8601();
  run.status = worst_status(run.results);
  return run;
}

}  // namespace gpuperf
