// gpuperf profile: every hardware metric of the matching instances, printed, never stored.
//
//   gpuperf profile 'matmul/tiled[n=1024,tile=16]'          one instance by its exact name
//   gpuperf profile 'memory_access' --metrics gld_efficiency,dram__bytes_read.sum --format json
//   gpuperf profile --list-metrics dram__bytes              the GPU's Perfworks metrics containing TEXT
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/context.hpp"
#include "cli/help.hpp"
#include "cli/measure.hpp"
#include "cli/option_kinds.hpp"
#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "core/short_name.hpp"
#include "kernels/benchmark.hpp"
#include "profiler/collector.hpp"
#include "profiler/metric_catalog.hpp"
#include "profiler/metric_profile.hpp"

namespace gpuperf::cli {
namespace {

struct ProfileArgs {
  std::string pattern;
  std::string metrics = "all";
  std::string format = "text";
  std::string replay = "auto";
  int device = 0;
  std::uint64_t seed = 1;
  bool no_flush = false;
  bool no_warm_launch = false;
  bool separate_sass = false;
  bool list_metrics = false;
  std::string chip;
  bool launch_only = false;
  bool launch_flush = false;
};

// An exact display name first (names hold '[' and ']', which a regex reads as a class), else a regex;
// no pattern: the default suite.
std::vector<InstanceRef> select(const std::string& pattern) {
  const Registry& registry = registered_benchmarks();
  if (pattern.empty()) return registry.instances("");
  for (auto& ref : registry.instances(".*")) {
    if (ref.instance().display_name() == pattern) return {ref};
  }
  auto out = registry.instances(pattern);
  if (out.empty()) throw InputError("no benchmark instance matches '" + pattern + "' (see `gpuperf list`)");
  return out;
}

// The value as measured, unscaled (its unit is printed beside it): "100.00" for %, integers in full.
std::string raw_value(double v, const std::string& unit) {
  char buf[64];
  if (unit == "%") {
    std::snprintf(buf, sizeof buf, "%.2f", v);
  } else if (v == static_cast<double>(static_cast<long long>(v)) && v < 1e15 && v > -1e15) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", v);
  }
  return buf;
}

void print_text(const ProfileReport& report) {
  std::size_t width = 0;
  for (const auto& n : report.metric_names) width = std::max(width, n.size());
  for (const auto& r : report.results) {
    BenchmarkInstance shown = r.instance;
    shown.name = fold_name(shown.name);  // JSON keeps the full name
    std::printf("%s", shown.display_name().c_str());
    if (r.status != Status::ok) std::printf("  [%s] %s", to_string(r.status), r.message.c_str());
    std::printf("\n");
    for (const auto& m : r.metrics) {
      if (m.status == Status::ok && !m.samples.empty()) {
        std::printf("  %-*s  %16s %s\n", static_cast<int>(width), m.metric.name.c_str(),
                    raw_value(m.samples.front(), m.metric.unit).c_str(), m.metric.unit.c_str());
      } else {
        std::printf("  %-*s  %16s %s\n", static_cast<int>(width), m.metric.name.c_str(),
                    (std::string("[") + to_string(m.status) + "]").c_str(), m.message.c_str());
      }
    }
  }
}

nlohmann::json to_json(const ProfileReport& report, const ProfileArgs& args) {
  nlohmann::json j;
  j["format"] = "gpuperf-profile";
  j["version"] = 1;
  j["device"] = report.device_name;
  j["replay"] = args.replay;
  j["passes"] = report.passes;
  j["sessions"] = report.sessions;
  j["setup_seconds"] = report.setup_seconds;
  j["init_seconds"] = report.init_seconds;
  j["init_wait_seconds"] = report.init_wait_seconds;
  j["collect_seconds"] = report.collect_seconds;
  if (!report.environment_error.empty()) j["environment_error"] = report.environment_error;
  j["results"] = nlohmann::json::array();
  for (const auto& r : report.results) {
    nlohmann::json jr;
    jr["instance"] = r.instance.display_name();
    jr["benchmark"] = r.instance.name;
    jr["params"] = nlohmann::json::parse(params_json(r.instance.params));
    jr["status"] = to_string(r.status);
    if (!r.message.empty()) jr["message"] = r.message;
    nlohmann::json metrics = nlohmann::json::object();
    for (const auto& m : r.metrics) {
      nlohmann::json jm;
      jm["unit"] = m.metric.unit;
      jm["higher_is_better"] = m.metric.higher_is_better;
      jm["deterministic"] = m.metric.deterministic;
      jm["status"] = to_string(m.status);
      if (m.status == Status::ok && !m.samples.empty()) jm["value"] = m.samples.front();
      if (!m.message.empty()) jm["message"] = m.message;
      if (const MetricTraits* t = find_metric(m.metric.name)) {
        if (!t->perfworks.empty()) jm["perfworks"] = t->perfworks;
      } else {
        jm["perfworks"] = std::vector<std::string>{m.metric.name};
      }
      metrics[m.metric.name] = std::move(jm);
    }
    jr["metrics"] = std::move(metrics);
    j["results"].push_back(std::move(jr));
  }
  return j;
}

int do_profile(const Context& ctx, const ProfileArgs& args) {
  if (args.list_metrics) {
    const std::string chip = args.chip.empty() ? device_chip_name(args.device) : args.chip;
    std::vector<std::string> names;
    try {
      names = list_chip_metrics(chip, args.pattern);
    } catch (const Error& e) {
      // A chip name CUPTI does not know is bad input (2), not the environment: say so in words.
      if (!args.chip.empty() && std::string(e.what()).find("CUPTI_ERROR_INVALID_CHIP_NAME") != std::string::npos) {
        throw InputError("--chip: expected a chip this CUPTI knows (GH100, GA100, AD102, TU104, ...), got '" +
                         args.chip + "'");
      }
      throw;
    }
    for (const auto& name : names) std::printf("%s\n", name.c_str());
    return kExitOk;
  }
  const MetricSelection metrics = parse_metrics_option(args.metrics);
  if (!metrics.enabled) throw InputError("--metrics '" + args.metrics + "' leaves nothing to profile");
  const auto instances = select(args.pattern);
  auto progress = [&ctx](const std::string& line) {
    if (ctx.progress_enabled()) std::fprintf(stderr, "\r\033[K%s", line.c_str());
  };

  if (args.launch_only) {
    // For an external profiler (bench/gpu/ncu_compare.sh): one launch per instance, our profiler untouched.
    for (const auto& name : launch_instances_once(instances, args.device, args.seed, progress, args.launch_flush)) {
      std::printf("%s\n", name.c_str());
    }
    if (ctx.progress_enabled()) std::fprintf(stderr, "\r\033[K");
    return kExitOk;
  }

  ProfileOptions options;
  options.collector.device = args.device;
  options.collector.metrics = metrics.names;
  options.collector.replay = replay_mode_from_string(args.replay);
  options.collector.flush_l2 = !args.no_flush;
  options.collector.warm_launch = !args.no_warm_launch;
  options.collector.separate_sass = args.separate_sass;
  options.seed = args.seed;
  options.progress = progress;
  const ProfileReport report = profile_instances(instances, options);
  if (ctx.progress_enabled()) std::fprintf(stderr, "\r\033[K");

  if (args.format == "json") {
    std::cout << to_json(report, args).dump(2) << "\n";
  } else {
    print_text(report);
  }
  std::cout.flush();
  if (!ctx.quiet) {
    std::fprintf(stderr,
                 "profiled %zu instance(s) on %s: %zu metric(s), %zu pass(es), %zu session(s), %.3f s in the profiler "
                 "(%.3f s starting it, %.3f s of which beside the verification)\n",
                 report.results.size(), report.device_name.c_str(), report.metric_names.size(), report.passes,
                 report.sessions, report.init_wait_seconds + report.collect_seconds, report.init_seconds,
                 report.init_seconds - report.init_wait_seconds);
  }

  bool incorrect = false;
  for (const auto& r : report.results) incorrect = incorrect || r.status == Status::incorrect;
  if (incorrect) return kExitIncorrect;
  if (!report.environment_error.empty()) {
    std::fprintf(stderr, "gpuperf: error: profiling failed: %s\n", report.environment_error.c_str());
    return kExitEnvironment;
  }
  return kExitOk;
}

}  // namespace

void add_profile_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* cmd =
      app.add_subcommand("profile", "Print every hardware metric of the matching instances (CUPTI; nothing is stored)");
  cmd->add_option("instance", args->pattern,
                  "An instance's exact name ('matmul/tiled[n=1024,tile=16]') or an ECMAScript regex (default: "
                  "the default suite); with --list-metrics, text the listed metric names must contain");
  cmd->add_option("--metrics", args->metrics,
                  "all (default), default, or a comma-separated list of gpuperf and Perfworks names "
                  "(gld_efficiency,dram__bytes_read.sum)");
  choice_option(cmd->add_option("--format", args->format, "text or json"), {"text", "json"});
  choice_option(
      cmd->add_option("--replay", args->replay,
                      "auto (user replay for idempotent benchmarks, kernel replay for the others), user, or kernel"),
      {"auto", "user", "kernel"});
  count_option(cmd->add_option("--device", args->device, "CUDA device ordinal"), 0);
  cmd->add_option("--seed", args->seed, "Input seed of every workload");
  cmd->add_flag("--no-flush", args->no_flush, "Do not flush L2 before each profiled launch (warm-cache counters)");
  cmd->add_flag("--no-warm-launch", args->no_warm_launch,
                "Do not launch each instance once, unprofiled, before its flush and profiled launch (user replay); "
                "its translations may then be cold, as after other instances' work");
  cmd->add_flag("--separate-sass", args->separate_sass,
                "Profile SASS-patched metrics (the efficiencies) in sessions of their own, so hardware counters "
                "are read from unpatched kernels");
  cmd->add_flag("--list-metrics", args->list_metrics,
                "List the GPU's Perfworks metrics (base names; full names when TEXT is given)");
  chip_option(cmd->add_option("--chip", args->chip,
                              "With --list-metrics: a chip name (GH100) instead of the GPU's; no GPU needed"));
  cmd->add_flag("--launch-only", args->launch_only,
                "Verify, then launch each instance once more and once between cudaProfilerStart/Stop, for ncu; "
                "no metrics")
      ->group("");  // hidden: bench/gpu/ncu_compare.sh's mode
  cmd->add_flag("--launch-flush", args->launch_flush,
                "With --launch-only: flush L2 as the collector does before each profiled launch, outside the "
                "profiled window (for ncu --cache-control none)")
      ->group("");
  set_help_footer(*cmd,
                  "gpuperf profile 'matmul/tiled[n=1024,tile=16]'\n"
                  "gpuperf profile 'memory/strided' --metrics gld_efficiency,dram__bytes_read.sum\n"
                  "gpuperf profile --list-metrics --chip GH100 l1tex__data_bank",
                  exit_codes({{0, "fine"},
                              {2, "bad usage or input: an unknown option or value, a database not gpuperf's"},
                              {3, "no GPU or driver, no profiling permission, CUPTI missing"},
                              {4, "a kernel gave a wrong answer"}}));
  cmd->callback([&ctx, args] { ctx.action = [&ctx, args] { return do_profile(ctx, *args); }; });
}

}  // namespace gpuperf::cli
