#include "cli/measure.hpp"

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "core/errors.hpp"
#include "gpuperf/version.hpp"
#include "profiler/collector.hpp"
#include "profiler/cupti/range_backend_loader.hpp"
#include "profiler/cupti/sass_backend.hpp"
#include "profiler/metric_catalog.hpp"
#include "profiler/phase_log.hpp"
#include "profiler/runner.hpp"
#include "profiler/source_line_pass.hpp"

namespace gpuperf::cli {

void add_measure_options(CLI::App* cmd, MeasureArgs& a) {
  cmd->add_option("--filter", a.filter,
                  "ECMAScript regex searched in instance names, e.g. 'matmul|transpose/naive' (also selects opt-in "
                  "benchmarks)");
  cmd->add_flag("--quick", a.quick, "Fewer samples (5..50, 0.1 s per instance): smoke tests");
  cmd->add_flag("--hot", a.hot, "Launch back to back with warm caches (default: flush L2 before each sample)");
  cmd->add_option("--commit", a.commit, "Commit to record (default: git rev-parse HEAD)");
  cmd->add_option("--branch", a.branch, "Branch to record (default: the checkout's branch)");
  cmd->add_option("--label", a.label, "Free-form label of the stored run, e.g. nightly");
  cmd->add_option("--metrics", a.metrics,
                  "Hardware metrics after timing: none, default, all, or a comma-separated list of gpuperf and "
                  "Perfworks names");
  auto* on = cmd->add_flag("--source-lines", a.source_lines,
                           "Per-source-line counters even with --metrics none (default: with hardware metrics)");
  cmd->add_flag("--no-source-lines", a.no_source_lines,
                "No per-source-line counters (their pass instruments each kernel for one launch)")
      ->excludes(on);
  cmd->add_option("--seed", a.seed, "Input seed (default: a fresh random seed per run, printed with a wrong answer)")
      ->default_str("");
}

const Registry& registered_benchmarks() {
  const Registry& registry = Registry::global();
  if (registry.benchmarks().empty()) {
    throw InputError(
        "this executable registers no benchmark: put GPUPERF_BENCHMARK(...) in one of its own source files (a "
        "static library's unreferenced objects are dropped by the linker), or link gpuperf::builtin_kernels for "
        "the built-in suite");
  }
  return registry;
}

std::vector<InstanceRef> select_instances(const std::string& filter) {
  auto instances = registered_benchmarks().instances(filter);
  if (instances.empty()) {
    throw InputError("no benchmark instance matches --filter '" + filter + "' (see `gpuperf list`)");
  }
  return instances;
}

namespace {
// "[ 3/33] matmul/tiled[n=1024,tile=16]" rewritten in place on a terminal.
void print_progress(const ProgressEvent& e) {
  if (e.phase != ProgressEvent::Phase::starting) return;
  std::fprintf(stderr, "\r\033[K[%*zu/%zu] %s", static_cast<int>(std::to_string(e.total).size()), e.index + 1, e.total,
               e.instance->instance().display_name().c_str());
  std::fflush(stderr);
}
// Code fingerprints (profiler/cubin/code_fingerprint.hpp) of the modules CUDA loads from now on, through the
// SASS back end's module tracking, which the source-line pass shares. Unset where libcupti or the back-end
// module is missing or another tool holds CUPTI's one subscriber: results then keep their launch shapes alone.
std::function<std::map<std::string, std::string>()> track_code_fingerprints() {
  try {
    const cupti::SassBackendFactory& factory = cupti::load_sass_backend();
    if (!factory.track_modules().empty()) return {};
    return [&factory] { return factory.function_fingerprints(); };
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace

Measured measure(const Context& ctx, const MeasureArgs& a, const std::vector<InstanceRef>& instances, int device) {
  const MetricSelection metrics = parse_metrics_option(a.metrics);
  std::unique_ptr<MetricCollector> collector;
  CollectorOptions copts;
  PhaseTimer phase;
  if (metrics.enabled) {
    // Before the timing, not beside it (as `gpuperf profile` does): starting CUPTI's profiler on another
    // thread while the timing loop starts its activity tracing failed on an H100
    // (cuptiActivityRegisterCallbacks: CUPTI_ERROR_NOT_INITIALIZED).
    copts.device = device;
    copts.metrics = metrics.names;
    // Today's speed-of-light names: on an H200 the TriageCompute SM and L2 throughputs read 0.4x of ncu's
    // sm__throughput and lts side on 32 of 33 and 27 of 33 default instances (docs/metrics.md), so a suite's
    // sm_throughput and memory_throughput series stay as they are; `record` reads the TriageCompute names.
    copts.triage_speed_of_light = false;
    collector = make_cupti_collector(copts);
    phase.lap("collector start (CUPTI, configuration)");
  }
  // Started before the first benchmark kernel loads its module: CUDA loads modules lazily, at a kernel's
  // first use, and the pass maps instructions to lines through the cubins it sees loaded.
  std::unique_ptr<SourceLineCollector> lines;
  if (a.source_lines || (metrics.enabled && !a.no_source_lines)) {
    SourceLineOptions lopts;
    lopts.device = device;
    lines = make_cupti_source_line_collector(lopts);
    phase.lap("source-line pass start (CUPTI SASS metrics)");
    if (!lines->unavailable().empty() && !ctx.quiet) {
      std::fprintf(stderr, "note: no source lines in this run: %s\n", lines->unavailable().c_str());
    }
  }
  double collect_seconds = 0;
  RunOptions options;
  // Before the first benchmark kernel loads its module, as the source-line pass.
  options.code_fingerprints = track_code_fingerprints();
  options.device = device;
  options.timing = a.quick ? TimingOptions::quick() : TimingOptions{};
  if (a.hot) options.timing.mode = TimingMode::hot;
  options.seed = a.seed;
  options.commit = a.commit;
  options.branch = a.branch;
  options.label = a.label;
  options.tool_version = GPUPERF_VERSION;
  if (collector) {
    // One collector session per group of live instances (as `gpuperf profile`), not one per instance.
    options.collect = [&collector, &collect_seconds](const std::vector<ProfileTarget>& targets, StreamHandle s) {
      PhaseTimer group;
      auto out = collector->collect_batch(targets, s);
      collect_seconds += group.lap("collect group of " + std::to_string(targets.size()));
      return out;
    };
    options.max_group = copts.max_ranges_per_session;
  }
  if (lines) {
    options.collect_lines = [&lines, &collect_seconds](const std::vector<ProfileTarget>& targets, StreamHandle s) {
      PhaseTimer group;
      auto out = lines->collect_batch(targets, s);
      collect_seconds += group.lap("source lines of a group of " + std::to_string(targets.size()));
      return out;
    };
    if (!collector) options.max_group = copts.max_ranges_per_session;
  }
  const bool progress = ctx.progress_enabled();
  if (progress) options.progress = print_progress;
  Measured out{run_benchmarks(instances, options), ""};
  const double run_seconds = phase.lap("run (timing and profiling)");
  if (phase_log_enabled()) {
    std::fprintf(stderr, "gpuperf phase: run less profiling (setup, timing) %.3f s\n", run_seconds - collect_seconds);
  }
  print_phase_totals();
  if (progress) std::fprintf(stderr, "\r\033[K");
  if (lines) {
    std::size_t with_lines = 0, line_count = 0, without = 0;
    std::string why;
    for (const Result& r : out.run.results) {
      if (r.source.status == Status::ok) {
        ++with_lines;
        line_count += r.source.lines.size();
      } else if (r.source.status == Status::failed || r.source.status == Status::unsupported) {
        ++without;
        if (why.empty()) why = r.source.message;
      }
    }
    if (phase_log_enabled()) {
      std::fprintf(stderr, "gpuperf phase: source lines of %zu of %zu instances, %zu lines\n", with_lines,
                   out.run.results.size(), line_count);
    }
    // Said once for the run (the first reason), when the pass was available but some instances got none.
    if (without > 0 && lines->unavailable().empty() && !ctx.quiet) {
      std::fprintf(stderr, "note: no source lines for %zu instance(s): %s\n", without, why.c_str());
    }
  }
  if (collector) out.profiling_error = collector->environment_error();
  return out;
}

}  // namespace gpuperf::cli
