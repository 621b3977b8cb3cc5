// gpuperf list: the benchmark instances, their declared bytes and FLOPs and baselines (no GPU needed).
// gpuperf run: verify, time and (optionally) profile the selected instances, store the run, print a summary.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/context.hpp"
#include "cli/device_workers.hpp"
#include "cli/help.hpp"
#include "cli/measure.hpp"
#include "cli/open_store.hpp"
#include "cli/option_kinds.hpp"
#include "core/errors.hpp"
#include "db/interchange.hpp"
#include "db/store.hpp"
#include "kernels/benchmark.hpp"
#include "kernels/listing.hpp"
#include "profiler/collector.hpp"
#include "profiler/gpu/device_info.hpp"
#include "profiler/metric_catalog.hpp"
#include "profiler/phase_log.hpp"
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
  std::string format = "text";
  std::size_t repeat = 1;  // --repeat N: N runs, one after another (the next step of a "not enough data" verdict)
  MeasureArgs measure;
};

int do_list(const ListArgs& args) {
  const auto instances = registered_benchmarks().instances(args.filter);  // an empty listing is an answer, not an error
  if (args.format == "json") {
    std::cout << format_instance_json(instances);
  } else {
    std::cout << format_instance_table(instances);
  }
  return kExitOk;
}

// With --run-key, the run's uuid follows from the key and the GPU: a run already stored under it (a rerun
// of the same night's job on the same GPU) is not measured again. Returns the uuid ("" without a key).
std::string keyed_run_uuid(const RunArgs& args, int device) {
  if (args.run_key.empty()) return "";
  return run_key_uuid(args.run_key, gpu::describe_machine(device).fingerprint());
}

int do_run_one(const Context& ctx, const RunArgs& args, int device) {
  PhaseTimer before;
  parse_metrics_option(args.measure.metrics);  // bad names fail before any work
  const auto instances = select_instances(args.measure.filter);
  gpu::select_device(device);  // exit 3 here, before anything else, on a machine without a GPU
  const std::string uuid = keyed_run_uuid(args, device);
  // On a server the key is held until this run is stored: a second job given the same key waits, then finds
  // the run stored and measures nothing (a double-triggered nightly). Read-write, as a fresh server database
  // becomes gpuperf's on its first write, and a role that may not store is refused before measuring.
  std::optional<db::Store> key_holder;
  if (!uuid.empty() && db::location_exists(ctx.db_path)) {
    const bool server = db::is_server_location(ctx.db_path);
    db::Store existing = open_store(ctx, server ? db::Access::read_write : db::Access::read_only);
    existing.hold_run_key(uuid, [&] {
      if (ctx.quiet) return;
      std::fprintf(stderr,
                   "device %d: run key '%s' is being measured by another job; waiting until it has stored "
                   "the run or ended\n",
                   device, args.run_key.c_str());
    });
    if (const auto stored = existing.find_run(uuid)) {
      if (!ctx.quiet) {
        std::fprintf(stderr, "device %d: run key '%s' is already stored as run %s (id %lld): not measured again\n",
                     device, args.run_key.c_str(), uuid.c_str(), static_cast<long long>(stored->id));
      }
      return stored->status == Status::incorrect ? kExitIncorrect : kExitOk;
    }
    if (server) key_holder.emplace(std::move(existing));
  }

  if (!key_holder) check_store_writable(ctx);  // a key holder's read-write open has checked it
  before.lap("before measuring (CUDA context, store check)");
  Measured measured = measure(ctx, args.measure, instances, device);
  Run& run = measured.run;
  if (!uuid.empty()) run.uuid = uuid;
  const bool progress = ctx.progress_enabled();

  if (args.format == "json") {
    std::cout << db::to_interchange({run});
    if (progress) std::cerr << format_run_summary(run);
  } else {
    std::cout << format_run_summary(run);
  }
  std::cout.flush();

  PhaseTimer phase;
  db::Store store = open_store(ctx, db::Access::read_write);
  store_runs(ctx, store, {run}, [](const Run& r) { return ", " + std::to_string(r.results.size()) + " instances"; });
  phase.lap("store (open, insert)");

  const int code = exit_code_for(run);
  if (code != kExitOk) return code;
  if (!measured.profiling_error.empty()) {
    std::fprintf(stderr, "gpuperf: error: profiling failed: %s\n", measured.profiling_error.c_str());
    return kExitEnvironment;
  }
  return kExitOk;
}

// Several devices: one worker process per GPU (cli/device_workers.hpp), their outputs in device order.
int do_run_devices(const Context& ctx, const RunArgs& args);

// --repeat N: the whole run N times in a row, each stored as its own run; the worst exit status wins. With
// several devices each device's worker (the same command line) repeats its own runs.
int do_run(const Context& ctx, const RunArgs& args) {
  if (args.repeat > 1 && !args.run_key.empty()) {
    throw InputError("--repeat stores several runs, --run-key names one: give one of them");
  }
  if (parse_device_list(args.devices).size() > 1) return do_run_devices(ctx, args);
  int code = kExitOk;
  for (std::size_t i = 0; i < args.repeat; ++i) {
    if (args.repeat > 1 && !ctx.quiet) std::fprintf(stderr, "run %zu of %zu\n", i + 1, args.repeat);
    code = std::max(code, do_run_devices(ctx, args));
    if (code == kExitEnvironment || code == kExitUsage) break;  // the next run would meet the same
  }
  return code;
}

int do_run_devices(const Context& ctx, const RunArgs& args) {
  const std::vector<int> devices = parse_device_list(args.devices);
  if (devices.size() == 1) return do_run_one(ctx, args, devices.front());
  parse_metrics_option(args.measure.metrics);  // bad input fails once, here, not in every worker
  select_instances(args.measure.filter);
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
  choice_option(list->add_option("--format", list_args->format, "text or json"), {"text", "json"});
  set_help_footer(
      *list,
      "gpuperf list --filter 'matmul|transpose/naive'\n"
      "gpuperf list --format json",
      exit_codes({{0, "fine"}, {2, "bad usage: an unknown option, or an executable that registers no benchmark"}}));
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
  add_measure_options(run, run_args->measure);
  count_option(run->add_option("--repeat", run_args->repeat,
                               "Measure and store N runs in a row (more runs to judge a change with; default 1)"),
               1);
  choice_option(run->add_option("--format", run_args->format, "text (summary table) or json (the interchange format)"),
                {"text", "json"});
  set_help_footer(*run,
                  "gpuperf run --label nightly\n"
                  "gpuperf run --filter 'memory/' --metrics none --quick\n"
                  "gpuperf run --device all --run-key nightly/2026-11-22/3f2a1c9e",
                  exit_codes({{0, "every instance verified, measured and stored"},
                              {2,
                               "bad usage or input: an unknown option or value, a database not gpuperf's"
                               "; a filter that matches nothing"},
                              {3, "no GPU or driver, no profiling permission, a database that cannot be written"},
                              {4, "a kernel gave a wrong answer (stored as incorrect, never a baseline)"}}));
  run->callback([&ctx, run_args] { ctx.action = [&ctx, run_args] { return do_run(ctx, *run_args); }; });
}

}  // namespace gpuperf::cli
