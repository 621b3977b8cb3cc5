// `gpuperf record`'s configuration across the process seam, in one type (as Kineto's Config): the recorder
// (recorder.cpp) fills it from its options and writes it into the program's environment as one variable,
// GPUPERF_RECORD_CONFIG, whose text is "key=value" lines; the injection library (inject*.cpp) reads it back once,
// at InitializeInjection, and asks it for every setting. Plain C++, no CUDA: tested round-trip on a machine
// without a GPU (tests/record/test_record_config.cpp).
//
// Each key also has a variable of its own, GPUPERF_RECORD_<KEY> (GPUPERF_RECORD_PROFILE_TRACE=1, ...): the
// library alone, loaded without `gpuperf record` (tests), reads them when GPUPERF_RECORD_CONFIG is unset; with it,
// only the diagnostic keys (`diagnostic` in the key table: traces, flush periods, the overhead pause, keeping the
// profiler's session) are taken from their own variables, which a user sets in `gpuperf record`'s environment.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "profiler/record/kernel_naming.hpp"

namespace gpuperf::record {

// What --profile-replay asks (launch_policy.hpp, replay_mode): auto, kernel (every pass everywhere) or one-pass
// (one pass a launch everywhere).
enum class ReplayChoice { automatic, kernel, one_pass };
// "auto", "kernel", "one-pass"; nothing for another word.
std::optional<ReplayChoice> parse_replay_choice(const std::string& word);
const char* replay_choice_name(ReplayChoice choice);

struct RecordConfig {
  std::string dir;   // the record files' folder; empty: the library does nothing (loaded without `record`)
  bool nvtx = true;  // false: --no-nvtx
  // --metrics: Perfworks names in the plan's order; `metrics_triage` the same set with the TriageCompute speed of
  // light (speed_of_light.hpp), empty when only `metrics` may be used.
  std::vector<std::string> metrics, metrics_triage;
  std::string cupti_module;  // gpuperf's CUPTI back end (find_backend_module)
  std::uint64_t profile_launches = 3, profile_budget = 1000, profile_ms = 60000, profile_watchdog_ms = 30000;
  std::uint64_t profile_groups = 0;                // 0: pass_groups.hpp's default_groups
  ReplayChoice replay = ReplayChoice::automatic;   // --profile-replay
  bool source_lines = false;                       // --metrics with source lines
  std::vector<std::string> communication_kernels;  // --communication-kernel substrings
  // Which launches may be profiled and instrumented (launch_selection.hpp): the storage's selection, applied in
  // the program (--kernel-regex, --nvtx-include, --launch-skip, --launch-count).
  std::string kernel_regex, nvtx_include;
  KernelNaming kernel_name = KernelNaming::demangled;  // the name --kernel-regex searches (--kernel-name)
  std::uint64_t launch_skip = 0;
  std::optional<std::uint64_t> launch_count;
  // --pm-sampling (pm_sampling.hpp, docs/pm-sampling.md): PM sampling of the speed of light over one window, the
  // first NVTX range named pm_nvtx or else pm_launch_count launches after pm_launch_skip; its interval, hardware
  // buffer and the most samples its one decode takes (the window is closed when it would hold more).
  bool pm_sampling = false;
  std::string pm_nvtx;
  std::uint64_t pm_launch_skip = 0, pm_launch_count = 1000;
  std::uint64_t pm_interval_ns = 1000, pm_buffer_bytes = 2ull << 30, pm_max_samples = 100000;
  // Diagnostics and tuning (their own variables win, see above).
  std::uint64_t flush_ms = 1000;  // the periodic flush (0: off)
  std::string overhead_ab;        // the overhead pause's parts (inject.cpp)
  bool nvtx_trace = false, profile_trace = false;
  std::optional<bool> profile_keep;  // keep the profiler's session between launches; unset: the default
  std::string lines_flush;           // when an instrumented launch's counters are read (inject_lines.cpp)
  std::optional<std::uint64_t> communication_wait_ms;

  // "key=value" lines, one a key (a list: one line an item); parse(to_text()) gives this configuration back.
  std::string to_text() const;
  // The configuration of `text`; false with `error` naming the line when a line is not "key=value" of a known key
  // or a value does not parse (the fields before it are set).
  bool parse(const std::string& text, std::string* error);
  // What the program's environment needs: GPUPERF_RECORD_CONFIG = to_text().
  std::vector<std::pair<std::string, std::string>> environment() const;
};

inline constexpr const char* kRecordConfigVariable = "GPUPERF_RECORD_CONFIG";

// The configuration the library runs with: GPUPERF_RECORD_CONFIG's, then each key's own variable (all of them
// without GPUPERF_RECORD_CONFIG, the diagnostic ones with it). `env` looks a variable up (std::getenv); `error`
// says what did not parse.
RecordConfig config_from_environment(const std::function<const char*(const char*)>& env, std::string* error);

}  // namespace gpuperf::record
