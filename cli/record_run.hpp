// What `gpuperf record` and `gpuperf check --record` share: the recording options and the recording itself
// (run the program under the injection library, read its records, store one run per GPU it used).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/context.hpp"
#include "core/result.hpp"

namespace CLI {
class App;
}

namespace gpuperf::cli {

struct RecordArgs {
  std::vector<std::string> command;  // APP ARGS...
  std::string name;                  // family; default: record::program_name(command)
  std::string kernel_regex, nvtx_include, kernel_name = "demangled";
  std::uint64_t launch_skip = 0;
  std::optional<std::uint64_t> launch_count;
  std::size_t max_samples = 1000;
  std::string commit, branch, label = "record";
  bool allow_empty = false;
  bool no_nvtx = false;
  std::string keep_records;
  std::string metrics = "none";                    // none, default or a list: hardware metrics of profiled launches
  std::uint64_t profile_launches = 3;              // launches profiled per identity (the first ones)
  std::uint64_t profile_budget = 1000;             // profiled launches per process at most (0: no limit)
  std::uint64_t profile_seconds = 60;              // seconds of profiling per process at most (0: no limit)
  std::uint64_t profile_watchdog_ms = 30000;       // a profiled launch longer than this is given up (0: never)
  std::vector<std::string> communication_kernels;  // --communication-kernel, repeatable
  std::uint64_t profile_groups = 0;     // metric groups over an identity's profiled launches (0: one a launch)
  std::string profile_replay = "auto";  // every pass everywhere ("kernel"), or one a launch in a distributed rank
  bool no_source_lines = false;         // with --metrics: no instrumented launch per identity
  bool pm_sampling = false;             // --pm-sampling and its window (docs/pm-sampling.md)
  std::string pm_nvtx;
  std::uint64_t pm_launch_skip = 0, pm_launch_count = 1000;
  std::uint64_t pm_interval_ns = 1000, pm_buffer_mib = 2048, pm_max_samples = 100000;
  std::vector<std::string> environment;  // --env KEY=VALUE, repeatable: what the program declares (torch=2.9.0)
  std::string source_root;               // --source-root: the program's source lines are named relative to this folder
};

// The selection and identity options (--name, --kernel-regex, --nvtx-include, --launch-skip, --launch-count,
// --max-samples, --kernel-name, --no-nvtx, --allow-empty, --keep-records); commit/branch/label are the
// caller's, since `check` has its own.
// With `metrics`, also --metrics (a command of its own; `check` has its own --metrics) and --profile-launches.
void add_record_options(CLI::App* cmd, RecordArgs& a, bool metrics = true);

struct Recorded {
  std::vector<Run> runs;              // one per GPU, stored, in device order
  std::vector<std::int64_t> run_ids;  // their ids in the database
  int exit_status = 0;                // the program's (< 0: minus the signal)
};

// Records `a.command` and stores the runs in one transaction. Throws InputError (bad options, program not
// found), EnvironmentError (no GPU, another tool attached, no injection library), and Error with
// kExitUsage or kExitProgramFailed when nothing was recorded (nothing is stored then, unless allow_empty).
Recorded record_and_store(const Context& ctx, const RecordArgs& a);

// kExitOk when the recorded program exited 0; otherwise says how it ended (its run is stored with it) and
// returns kExitProgramFailed. `record` and `check --record` end with it.
int program_exit_code(const Recorded& recorded, const RecordArgs& a);

// "kernel (top N of M by GPU time) ..." table of a recorded run's heaviest kernels.
std::string format_top_kernels(const Run& run, std::size_t top);

}  // namespace gpuperf::cli
