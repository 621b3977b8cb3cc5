// Where a recorded kernel becomes a result: `gpuperf record` and `check --record` in one call, as the runner
// (profiler/runner.hpp) is for benchmarks. Checks the options before anything runs, plans the hardware
// metrics, runs the program under the injection library while describing the machine and git and reading
// the records, then builds one Run per GPU the program used.
//
//   RecordOptions -> record_program -> Recording (runs, the program's end, totals, warnings) -> the caller
//   stores the runs (in one transaction, as it stores a benchmark run) and prints what it wants
//
// Nothing is stored or printed here, except through `note`.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "profiler/metric_plan.hpp"
#include "profiler/record/recorder/aggregate.hpp"
#include "profiler/record/recorder/launch.hpp"
#include "profiler/record/recorder/record_summary.hpp"

namespace gpuperf::record {

struct RecordOptions {
  std::vector<std::string> command;  // APP ARGS...
  std::string name;                  // family; empty: program_name(command)
  SelectOptions select;              // which launches become samples; select.metrics is record_program's own
  std::string commit, branch;        // empty: detected with git in the current folder
  std::string label = "record";
  // `--env KEY=VALUE`: what the program declares of itself (framework versions), as core/environment.hpp keys
  // them ("framework.torch" -> "2.9.0"); stored in each run's environment over what was found.
  std::map<std::string, std::string> environment;
  bool allow_empty = false;             // no kernel recorded: one empty run (device 0) instead of none
  bool nvtx = true;                     // false: no NVTX range paths (--no-nvtx)
  std::string keep_records;             // keep the record files in this folder; empty: a temporary one
  std::string metrics = "none";         // none, default or a list: hardware metrics of profiled launches
  std::uint64_t profile_launches = 3;   // launches profiled per identity (the first ones)
  std::uint64_t profile_budget = 1000;  // profiled launches per process at most (0: no limit)
  std::uint64_t profile_seconds = 60;   // seconds of profiling per process at most (0: no limit)
  // With --metrics: per-source-line counters from one instrumented launch per identity (inject_lines.hpp),
  // within the two budgets above; false: --no-source-lines.
  bool source_lines = true;
  // A profiled launch not finished after this many ms is given up, and nothing more is profiled (0: never).
  std::uint64_t profile_watchdog_ms = 30000;
  // Substrings naming the program's own communication kernels (never profiled), besides NCCL's and the other
  // built-in ones (core/kernel_kind.hpp); --communication-kernel, repeatable.
  std::vector<std::string> communication_kernels;
  std::uint64_t profile_groups = 0;  // metric groups over an identity's profiled launches (0: pass_groups.hpp's
                                     // default_groups; 1: every metric in each)
  // "auto": kernel replay of every pass, except one pass a launch in a rank of a distributed job (a replay of
  // several restores memory, and can lose what a peer wrote) and none after the first communication kernel of
  // another process; "kernel": every pass everywhere.
  std::string profile_replay = "auto";
  // --pm-sampling (docs/pm-sampling.md): PM sampling over one window of each process, the first NVTX range named
  // `nvtx`, else `launch_count` launches after `launch_skip`; no launch in it is range-profiled or instrumented.
  struct PmSampling {
    bool on = false;
    std::string nvtx;
    std::uint64_t launch_skip = 0, launch_count = 1000;
    std::uint64_t interval_ns = 1000, buffer_mib = 2048, max_samples = 100000;
  } pm;
  // Told, as it happens, what is left out before the program runs (metrics a program's kernels cannot give).
  std::function<void(const std::string&)> note;
};

// The rank of the processes that launched on `device` (their A lines): set where they all agree, else
// empty; one run is stored per GPU, so a job's ranks (one GPU each) get a run each with its rank.
void fill_rank(Run& run, const std::vector<ProcessRecord>& processes, std::uint32_t device);

struct Recording {
  std::string program;        // the family the kernels are stored under
  std::vector<Run> runs;      // one per GPU used, in device order; none when nothing was recorded
  ProgramEnd end;             // how and when the program ended
  std::size_t processes = 0;  // processes that wrote records
  KernelTotals totals;
  std::vector<std::string> warnings;  // records lost or unreadable, one sentence each
  Flushed flushed;                    // what reached the record files
  std::string incomplete;             // incomplete_message when a process did not flush at its end, else ""
  std::string profiled;               // with --metrics: describe(profiled_summary), else ""
  std::string source_lines;           // with --metrics and source lines: describe_source_lines, else ""
  std::string own_work;               // describe_own_work: the library's own time inside the program
  std::string pm_sampling;            // with --pm-sampling: describe_pm (pm_attribution.hpp), else ""

  // Non-empty when the program gave no kernel to keep ("it launched no kernel", ...): `runs` is empty then,
  // unless allow_empty gave one empty run.
  std::string nothing_recorded;
  std::string inject_library;  // the injection library the program ran with
  // gpuperf's own time before the program started, and when it started (for its own time after).
  double seconds_before = 0;
  std::chrono::steady_clock::time_point program_started;
};

// --metrics: the collector's plan of the asked set (none for "none"), the Perfworks names the library profiles in
// that order; `tell`: say through options.note which metrics a program's kernels cannot give. InputError when
// none is left.
std::optional<MetricPlan> plan_record_metrics(const RecordOptions& options, bool tell);
// --metrics default: the same set with the speed of light as every TriageCompute metric (speed_of_light.hpp), which
// the program takes at its first context where the chip accepts them and they need fewer passes; none otherwise.
std::optional<MetricPlan> plan_triage_metrics(const RecordOptions& options);
// The plan the processes profiled with, from their C lines: `today`'s, or `triage`'s requests whose counters the
// line names (the chip refused the others); a process naming another set is told in `warnings` and not stored.
MetricPlan recorded_plan(const std::vector<ProcessRecord>& processes, const MetricPlan& today,
                         const std::optional<MetricPlan>& triage, std::vector<std::string>& warnings);

// The checks that need no GPU and run nothing: a command, --max-samples >= 1, a program that exists, valid
// regexes, --metrics naming hardware metrics a program's kernels can give and --profile-launches >= 1 with
// them. InputError (exit 2) naming the option; record_program makes them first.
void check_record_options(const RecordOptions& options);

// Records `options.command`. Throws InputError (bad options, program not found), EnvironmentError (no GPU,
// another tool attached, no injection library or CUPTI back end for --metrics). The program's failure is
// not an exception: it is in `end` and in each run (exit status, status failed).
Recording record_program(const RecordOptions& options);

}  // namespace gpuperf::record
