// gpuperf list: the benchmark instances, their declared bytes and FLOPs and baselines (no GPU needed).
// gpuperf run: verify, time and (optionally) profile the selected instances, store the run, print a summary.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/context.hpp"
#include "cli/device_workers.hpp"
#include "db/interchange.hpp"
#include "db/store.hpp"
#include "kernels/benchmark.hpp"
#include "kernels/listing.hpp"
#include "profiler/collector.hpp"
#include "profiler/gpu/device_info.hpp"
#include "profiler/model/errors.hpp"
#include "profiler/runner.hpp"
#include "profiler/summary_table.hpp"

namespace gpuperf::cli {
namespace {

struct ListArgs {
  std::string filter;
  std::string format = "text";
};

struct RunArgs {
  std::string devices = "0";
  std::string run_key;
  std::string filter;
  bool quick = false;
  bool hot = false;
  std::string commit, branch, label;
  std::string format = "text";
  std::string metrics = "default";
  std::uint64_t seed = 0;
};

std::vector<InstanceRef> select_instances(const std::string& filter) {
  Registry& registry = Registry::global();
  register_builtin_benchmarks(registry);
  return registry.instances(filter);
}

int do_list(const ListArgs& args) {
  const auto instances = select_instances(args.filter);
  if (args.format == "json") {
    std::cout << format_instance_json(instances);
  } else {
    std::cout << format_instance_table(instances);
  }
  return kExitOk;
}

// "[ 3/33] matmul/tiled[n=1024,tile=16]" rewritten in place on a terminal.
void print_progress(const ProgressEvent& e) {
  if (e.phase != ProgressEvent::Phase::starting) return;
  std::fprintf(stderr, "\r\033[K[%*zu/%zu] %s", static_cast<int>(std::to_string(e.total).size()), e.index + 1,
               e.total, e.instance->instance().display_name().c_str());
  std::fflush(stderr);
}

// With --run-key, the run's uuid follows from the key and the GPU: a run already stored under it (a rerun
// of the same night's job on the same GPU) is not measured again. Returns the uuid ("" without a key).
std::string keyed_run_uuid(const RunArgs& args, int device) {
  if (args.run_key.empty()) return "";
  return keyed_uuid(args.run_key + "\n" + gpu::describe_machine(device).fingerprint());
}

int do_run_one(const Context& ctx, const RunArgs& args, int device) {
  const MetricSelection metrics = parse_metrics_option(args.metrics);  // bad names fail before any work
  const auto instances = select_instances(args.filter);
  if (instances.empty()) {
    throw InputError("no benchmark instance matches --filter '" + args.filter + "' (see `gpuperf list`)");
  }
  gpu::select_device(device);  // exit 3 here, before anything else, on a machine without a GPU
  const std::string uuid = keyed_run_uuid(args, device);
  if (!uuid.empty() && std::filesystem::exists(ctx.db_path)) {
    const db::Store existing(ctx.db_path, db::Access::read_only);
    if (const auto stored = existing.find_run(uuid)) {
      if (!ctx.quiet) {
        std::fprintf(stderr, "device %d: run key '%s' is already stored as run %s (id %lld): not measured again\n",
                     device, args.run_key.c_str(), uuid.c_str(), static_cast<long long>(stored->id));
      }
      return stored->status == Status::incorrect ? kExitIncorrect : kExitOk;
    }
  }

  std::unique_ptr<MetricCollector> collector;
  if (metrics.enabled) {
    CollectorOptions copts;
    copts.device = device;
    copts.metrics = metrics.names;
    collector = make_cupti_collector(copts);
  }

  RunOptions options;
  options.device = device;
  options.timing = args.quick ? TimingOptions::quick() : TimingOptions{};
  if (args.hot) options.timing.mode = TimingMode::hot;
  options.seed = args.seed;
  options.commit = args.commit;
  options.branch = args.branch;
  options.label = args.label;
  options.tool_version = GPUPERF_VERSION;
  if (collector) {
    options.collect = [&collector](const InstanceRef& ref, Workload& w, StreamHandle s) {
      return collector->collect(ref, w, s);
    };
  }
  const bool progress = ctx.progress_enabled();
  if (progress) options.progress = print_progress;

  Run run = run_benchmarks(instances, options);
  if (!uuid.empty()) run.uuid = uuid;
  if (progress) std::fprintf(stderr, "\r\033[K");

  if (args.format == "json") {
    std::cout << db::to_interchange({run});
    if (progress) std::cerr << format_run_summary(run);
  } else {
    std::cout << format_run_summary(run);
  }
  std::cout.flush();

  const db::InsertOutcome stored = db::Store(ctx.db_path).insert_run(run);
  if (!ctx.quiet) {
    std::fprintf(stderr, "stored run %s (id %lld, %zu instances) in %s\n", run.uuid.c_str(),
                 static_cast<long long>(stored.run_id), run.results.size(), ctx.db_path.c_str());
  }

  const int code = exit_code_for(run);
  if (code != kExitOk) return code;
  if (collector && !collector->environment_error().empty()) {
    std::fprintf(stderr, "gpuperf: error: profiling failed: %s\n", collector->environment_error().c_str());
    return kExitEnvironment;
  }
  return kExitOk;
}

// Several devices: one worker process per GPU (cli/device_workers.hpp), their outputs in device order.
int do_run(const Context& ctx, const RunArgs& args) {
  const std::vector<int> devices = parse_device_list(args.devices);
  if (devices.size() == 1) return do_run_one(ctx, args, devices.front());
  parse_metrics_option(args.metrics);  // bad input fails once, here, not in every worker
  if (select_instances(args.filter).empty()) {
    throw InputError("no benchmark instance matches --filter '" + args.filter + "' (see `gpuperf list`)");
  }
  if (!ctx.quiet) std::fprintf(stderr, "running on %zu devices in parallel\n", devices.size());
  const std::vector<WorkerResult> workers = run_device_workers(ctx.argv, devices);

  int code = kExitOk;
  std::vector<Run> runs;
  for (const WorkerResult& w : workers) {
    // 4 (a wrong answer) outranks 3 (environment), which outranks 2 and 1: the worst news wins.
    code = std::max(code, w.exit_code);
    if (args.format == "json") {
      if (w.exit_code == kExitOk || w.exit_code == kExitIncorrect) {
        for (Run& r : db::parse_interchange(w.out, "device " + std::to_string(w.device))) runs.push_back(std::move(r));
      }
    } else {
      std::printf("== device %d (exit %d) ==\n%s", w.device, w.exit_code, w.out.c_str());
    }
    std::fputs(w.err.c_str(), stderr);
  }
  if (args.format == "json") std::cout << db::to_interchange(runs);
  return code;
}

}  // namespace

void add_list_run_commands(CLI::App& app, Context& ctx) {
  auto list_args = std::make_shared<ListArgs>();
  CLI::App* list = app.add_subcommand("list", "List benchmark instances with their bytes, FLOPs and baselines");
  list->add_option("--filter", list_args->filter,
                   "ECMAScript regex searched in instance names, e.g. 'matmul|transpose/naive' "
                   "(also selects opt-in benchmarks)");
  list->add_option("--format", list_args->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  list->callback([&ctx, list_args] { ctx.action = [list_args] { return do_list(*list_args); }; });

  auto run_args = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand(
      "run", "Verify, time and profile benchmark instances on a GPU and store the run in the database");
  run->add_option("--device", run_args->devices,
                  "CUDA device ordinal, a list (0,1) or all: one worker per GPU in parallel, each its own "
                  "machine series");
  run->add_option("--run-key", run_args->run_key,
                  "Name the run after this key and the GPU (e.g. nightly/2026-11-22/<commit>): a run already "
                  "stored under it is not measured again");
  run->add_option("--filter", run_args->filter, "ECMAScript regex searched in instance names");
  run->add_flag("--quick", run_args->quick, "Fewer samples (5..50, 0.1 s per instance): smoke tests");
  run->add_flag("--hot", run_args->hot, "Launch back to back with warm caches (default: flush L2 before each sample)");
  run->add_option("--commit", run_args->commit, "Commit to record (default: git rev-parse HEAD)");
  run->add_option("--branch", run_args->branch, "Branch to record (default: the checkout's branch)");
  run->add_option("--label", run_args->label, "Free-form label, e.g. nightly");
  run->add_option("--format", run_args->format, "text (summary table) or json (the interchange format)")
      ->check(CLI::IsMember({"text", "json"}));
  run->add_option("--metrics", run_args->metrics,
                  "Hardware metrics after timing: none, default, all, or a comma-separated list of gpuperf "
                  "and Perfworks names");
  run->add_option("--seed", run_args->seed, "Input seed (default: fresh random per run; printed with a wrong answer)");
  run->callback([&ctx, run_args] { ctx.action = [&ctx, run_args] { return do_run(ctx, *run_args); }; });
}

}  // namespace gpuperf::cli
