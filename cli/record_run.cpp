#include "cli/record_run.hpp"
#include "cli/option_kinds.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/open_store.hpp"
#include "core/command_line.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/short_name.hpp"
#include "core/source_roots.hpp"
#include "db/store.hpp"
#include "profiler/record/recorder/recorder.hpp"
#include "reports/format.hpp"

namespace gpuperf::cli {

std::string format_top_kernels(const Run& run, std::size_t top) {
  std::string out = "kernel (top " + std::to_string(std::min(top, run.results.size())) + " of " +
                    std::to_string(run.results.size()) + " by GPU time)  launches  median  total  share\n";
  std::vector<std::string> names;
  for (const Result& r : run.results) names.push_back(r.instance.name);
  const ShortNames short_names(names);
  for (std::size_t i = 0; i < run.results.size() && i < top; ++i) {
    const Result& r = run.results[i];
    auto value = [&](const char* metric) {
      const Measurement* m = r.find(metric);
      return m != nullptr ? m->summary.median : 0.0;
    };
    const std::string name = short_names.display_name(r.instance);
    char line[160];
    std::snprintf(line, sizeof line, "  %.0f  %s  %s  %.1f%%\n", value("launches"),
                  reports::format_value(value("duration"), "ns").c_str(),
                  reports::format_value(value("gpu_time_total"), "ns").c_str(), value("gpu_time_share"));
    out += name + line;
  }
  return out;
}

namespace {

// --pm-sampling and its window (Nsight Compute's --pm-sampling-interval and --pm-sampling-buffer-size, in ns and MiB).
void add_pm_sampling_options(CLI::App* cmd, RecordArgs& a) {
  CLI::Option* on = cmd->add_flag(
      "--pm-sampling", a.pm_sampling,
      "Sample the speed-of-light throughputs (CUPTI PM sampling, device-wide, no replay) over one window of each "
      "process, decoded after it; each kernel gets the mean and spread over its launches in it (pm_* metrics; "
      "docs/pm-sampling.md). No launch in the window is range-profiled");
  cmd->add_option("--pm-sampling-nvtx", a.pm_nvtx,
                  "With --pm-sampling: the window is the first NVTX range of this name, push to pop")
      ->needs(on);
  count_option(cmd->add_option("--pm-sampling-launch-skip", a.pm_launch_skip,
                               "With --pm-sampling: the window opens before the process's launch N+1 (default 0)")
                   ->needs(on),
               0);
  count_option(cmd->add_option("--pm-sampling-launch-count", a.pm_launch_count,
                               "With --pm-sampling: the window closes after N launches (default 1000)")
                   ->needs(on),
               1);
  count_option(cmd->add_option("--pm-sampling-interval", a.pm_interval_ns,
                               "With --pm-sampling: ns between samples (default 1000; a launch needs about two "
                               "intervals to get a sample of its own)")
                   ->needs(on),
               1);
  count_option(cmd->add_option("--pm-sampling-buffer-size", a.pm_buffer_mib,
                               "With --pm-sampling: MiB of hardware buffer holding the window (default 2048)")
                   ->needs(on),
               1);
  count_option(cmd->add_option("--pm-sampling-max-samples", a.pm_max_samples,
                               "With --pm-sampling: samples decoded at most (default 100000, about 8.8 GB of host "
                               "memory for the full set); the window closes early when it would hold more")
                   ->needs(on),
               1);
}

}  // namespace

void add_record_options(CLI::App* cmd, RecordArgs& a, bool metrics) {
  cmd->add_option("--name", a.name,
                  "Program name the kernels are stored under (default: the script an interpreter or launcher runs, "
                  "without its extension, else the executable's base name)");
  cmd->add_option(
      "--kernel-regex", a.kernel_regex,
      "Only kernels whose name matches this ECMAScript regex (with --metrics, the others are never profiled)");
  cmd->add_option(
      "--nvtx-include", a.nvtx_include,
      "Only launches whose NVTX range path (outer/inner) matches this ECMAScript regex (with --metrics, the "
      "others are never profiled)");
  count_option(cmd->add_option("--launch-skip", a.launch_skip, "Skip the first N selected launches"), 0);
  count_option(
      cmd->add_option("--launch-count", a.launch_count, "Keep at most N selected launches after the skipped ones"), 1);
  count_option(cmd->add_option("--max-samples", a.max_samples,
                               "Durations stored per kernel (the first ones; launch counts and totals cover all)"),
               1);
  choice_option(cmd->add_option("--kernel-name", a.kernel_name,
                                "demangled (template arguments kept, no parameter list), function, or mangled"),
                {"demangled", "function", "mangled"});
  cmd->add_flag("--no-nvtx", a.no_nvtx,
                "Record no NVTX range paths (saves tracing each launch call; identities then have no nvtx)");
  cmd->add_flag("--allow-empty", a.allow_empty, "Store an empty run when the program launched no kernel");
  cmd->add_option("--keep-records", a.keep_records, "Keep the raw record files in this folder");
  count_option(cmd->add_option("--profile-launches", a.profile_launches,
                               "With --metrics: launches profiled per kernel identity (kernel, launch shape, NVTX "
                               "path), the first ones (each costs a replay)"),
               1);
  count_option(cmd->add_option("--profile-budget", a.profile_budget,
                               "With --metrics: profiled launches per process at most (default 1000, 0: no limit); "
                               "identities met after it is spent keep their timing only"),
               0);
  count_option(cmd->add_option("--profile-seconds", a.profile_seconds,
                               "With --metrics: seconds of profiling per process at most (default 60, 0: no limit); "
                               "past half of it only an identity's first launch is profiled, so that late ones "
                               "still get counters; launches after it is spent keep their timing only (each "
                               "profiled launch holds the program in its launch call)"),
               0);
  count_option(
      cmd->add_option("--profile-watchdog-ms", a.profile_watchdog_ms,
                      "With --metrics: a profiled launch (or the waits of one instrumented for source lines) not "
                      "finished after this many ms is given up, and no later launch of the process is "
                      "profiled (default 30000, 0: never)"),
      0);
  cmd->add_option("--communication-kernel", a.communication_kernels,
                  "A substring of the names of the program's own kernels that wait on other processes or GPUs "
                  "(repeatable): never profiled, like NCCL's, NVSHMEM's and the other built-in ones")
      ->allow_extra_args(false);
  count_option(cmd->add_option("--profile-groups", a.profile_groups,
                               "With --metrics: split the metrics into at most N groups, one per profiled launch of "
                               "an identity in turn, whose counters combine its launches; the metrics that need "
                               "several passes alone (speed of light) are one group (default 0: one group when the "
                               "set needs at most 6 passes, else two groups when there are such metrics, those and "
                               "the rest, else as many as --profile-launches; 1: every metric in every profiled "
                               "launch)"),
               0);
  cmd->add_option("--profile-replay", a.profile_replay,
                  "With --metrics: auto (default) profiles with kernel replay of every pass a launch needs, "
                  "except that a rank of a distributed job (WORLD_SIZE above 1) replays one pass a launch, its "
                  "metrics split in one-pass groups over an identity's launches (a replay of several passes "
                  "restores memory a peer may have written into, and a collective then waits forever; metrics "
                  "needing more passes are not collected there), and another process stops range profiling at "
                  "its first communication kernel; kernel: every pass everywhere; one-pass: one pass a launch "
                  "everywhere (nothing saved or restored, so each launch starts from an emptied L2 as under "
                  "Nsight Compute, where a replay of several passes can leave a kernel's data in the L2; the "
                  "metrics that need several passes alone are not collected)")
      ->check(CLI::IsMember({"auto", "kernel", "one-pass"}));
  add_pm_sampling_options(cmd, a);
  cmd->add_option("--source-root", a.source_root,
                  "The folder the program was built from: its source lines are named relative to it whether or not "
                  "the files are on this machine (default: $GPUPERF_SOURCE_ROOT, else the git checkout holding each "
                  "file, else the path the program's line table gives)")
      ->check([](const std::string& dir) { return dir.empty() ? std::string("an empty folder name") : std::string(); });
  cmd->add_option("--env", a.environment,
                  "KEY=VALUE (repeatable): a version the program declares, stored in the run's environment as "
                  "framework.KEY (e.g. --env torch=2.9.0; `gpuperf runs show RUN` prints it)")
      ->allow_extra_args(false);
  if (!metrics) return;  // `check` has its own --metrics and --no-source-lines
  cmd->add_option("--metrics", a.metrics,
                  "Hardware metrics of the first launches of each kernel (kernel replay): none (default), default, "
                  "or a list of gpuperf and Perfworks names");
  cmd->add_flag("--no-source-lines", a.no_source_lines,
                "With --metrics: no per-source-line counters (each identity's launch after its profiled ones is "
                "otherwise instrumented, about 10x its own time)");
}

int program_exit_code(const Recorded& recorded, const RecordArgs& a) {
  if (recorded.exit_status == 0) return kExitOk;
  std::fprintf(stderr, "gpuperf: error: %s ended with %s (stored with the run)\n", a.command.front().c_str(),
               describe_exit_status(recorded.exit_status).c_str());
  return kExitProgramFailed;
}

Recorded record_and_store(const Context& ctx, const RecordArgs& a) {
  record::RecordOptions options;
  options.command = a.command;
  options.name = a.name;
  options.select.kernel_regex = a.kernel_regex;
  options.select.nvtx_include = a.nvtx_include;
  options.select.launch_skip = a.launch_skip;
  options.select.launch_count = a.launch_count;
  options.select.max_samples = a.max_samples;
  options.select.naming = record::kernel_naming_from_string(a.kernel_name);
  options.commit = a.commit;
  options.branch = a.branch;
  options.label = a.label;
  for (const std::string& e : a.environment) {
    auto [key, value] = env::parse_assignment(e, "--env");
    options.environment[key] = value;  // the last of a key given twice
  }
  options.allow_empty = a.allow_empty;
  options.nvtx = !a.no_nvtx;
  options.keep_records = a.keep_records;
  options.metrics = a.metrics;
  options.profile_launches = a.profile_launches;
  options.profile_budget = a.profile_budget;
  options.profile_seconds = a.profile_seconds;
  options.source_lines = !a.no_source_lines;
  options.profile_watchdog_ms = a.profile_watchdog_ms;
  options.communication_kernels = a.communication_kernels;
  options.profile_groups = a.profile_groups;
  options.profile_replay = a.profile_replay;
  options.pm = {a.pm_sampling,    a.pm_nvtx,       a.pm_launch_skip, a.pm_launch_count,
                a.pm_interval_ns, a.pm_buffer_mib, a.pm_max_samples};
  if (!ctx.quiet) {
    options.note = [](const std::string& note) { std::fprintf(stderr, "gpuperf: note: %s\n", note.c_str()); };
  }
  check_store_writable(ctx);
  // The recorder names the lines' paths (the program's library writes them as its line tables give them).
  if (!a.source_root.empty()) add_source_root(std::filesystem::absolute(a.source_root).lexically_normal().string());
  record::Recording recording = record::record_program(options);

  const record::ProgramEnd& end = recording.end;
  for (const std::string& w : recording.warnings) std::fprintf(stderr, "gpuperf: warning: %s\n", w.c_str());
  if (!ctx.quiet) {
    std::fprintf(stderr,
                 "%s: %s after %.2f s; %zu process(es) recorded, %llu kernel launches (%llu kept), %zu kernel(s)\n",
                 a.command.front().c_str(), describe_exit_status(end.exit_status).c_str(), end.wall_seconds,
                 recording.processes, static_cast<unsigned long long>(recording.totals.launches_seen),
                 static_cast<unsigned long long>(recording.totals.launches_kept), recording.totals.identities);
    if (!recording.profiled.empty()) std::fprintf(stderr, "gpuperf: metrics: %s\n", recording.profiled.c_str());
    if (!recording.source_lines.empty())
      std::fprintf(stderr, "gpuperf: source lines: %s\n", recording.source_lines.c_str());
    if (!recording.pm_sampling.empty())
      std::fprintf(stderr, "gpuperf: PM sampling: %s\n", recording.pm_sampling.c_str());
  }
  if (!recording.incomplete.empty() && !recording.runs.empty()) {
    std::fprintf(stderr, "gpuperf: warning: %s (%s); stored as failed and incomplete\n", a.command.front().c_str(),
                 recording.incomplete.c_str());
  }
  if (recording.runs.empty()) {
    throw Error("nothing recorded from " + a.command.front() + " (" + describe_exit_status(end.exit_status) +
                    "): " + recording.nothing_recorded + "; nothing stored (--allow-empty stores an empty run)",
                end.exit_status != 0 ? kExitProgramFailed : kExitUsage);
  }

  Recorded out;
  out.exit_status = end.exit_status;
  out.runs = std::move(recording.runs);
  db::Store store = open_store(ctx, db::Access::read_write);
  out.run_ids = store_runs(ctx, store, out.runs, [&](const Run& run) {
    std::string rank;  // the process's place in a distributed job (RANK, LOCAL_RANK, WORLD_SIZE)
    if (run.rank) rank = ", rank " + std::to_string(*run.rank);
    if (run.rank && run.world_size) rank += " of " + std::to_string(*run.world_size);
    if (run.local_rank)
      rank += (run.rank ? " (local rank " : ", local rank ") + std::to_string(*run.local_rank) + (run.rank ? ")" : "");
    return ", program " + recording.program + rank + ", " + std::to_string(run.results.size()) + " kernels";
  });
  if (!ctx.quiet) {
    // gpuperf's own share of the wall time (bench/record/record_overhead.py reads this line).
    using seconds = std::chrono::duration<double>;
    const double after =
        seconds(std::chrono::steady_clock::now() - recording.program_started).count() - end.wall_seconds;
    std::fprintf(stderr, "gpuperf's own time: %.3f s before the program, %.3f s after it (%llu launches read)\n",
                 recording.seconds_before, after, static_cast<unsigned long long>(recording.totals.launches_seen));
    // The injection library's own time inside the program (bench/record/record_overhead.py reads this line too).
    if (!recording.own_work.empty()) std::fprintf(stderr, "gpuperf's own time %s\n", recording.own_work.c_str());
  }
  return out;
}

}  // namespace gpuperf::cli
