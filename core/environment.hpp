// A run's environment (Run::environment): what the machine and the process ran with, beyond the code. The
// keys are named here once, so the collector, `record`, the store and the findings agree on them; a key that
// could not be read is absent, never "unknown".
//
// Comparing two runs' environments (environment_changes) is how a finding says what changed besides the code:
// "driver 580.159.04 -> 590.12". The machine's driver and runtime (Machine::driver, cuda) take part too, so a
// run stored before environments existed still compares by its driver.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace gpuperf::env {

// Machine and process, read by the collector (profiler/gpu/environment.cpp) for `run`, `check` and `record`.
inline constexpr const char* kDriver = "driver";              // "580.159.04"
inline constexpr const char* kCudaDriverApi = "cuda_driver";  // the driver's CUDA version, "13.0"
inline constexpr const char* kCudaRuntime = "cuda_runtime";   // the runtime the program loaded, "13.0"
inline constexpr const char* kToolkit = "toolkit";            // the nvcc that built the bench, "13.0.88"
inline constexpr const char* kGpuName = "gpu_name";
inline constexpr const char* kGpuBoard = "gpu_board";           // NVML board part number
inline constexpr const char* kAppSmClock = "app_sm_clock_mhz";  // application clocks (NVML)
inline constexpr const char* kAppMemClock = "app_mem_clock_mhz";
inline constexpr const char* kPowerLimit = "power_limit_w";  // the enforced limit
inline constexpr const char* kEcc = "ecc";                   // "on" / "off"
inline constexpr const char* kMig = "mig";                   // "on" / "off"
inline constexpr const char* kPersistence = "persistence";   // "on" / "off"
// A recorded program's CUDA libraries: "lib." + the library's short name ("lib.cublas" -> "13.0.0.19"), and
// the frameworks it declares or that were found beside them: "framework." + name ("framework.torch").
inline constexpr const char* kLibraryPrefix = "lib.";
inline constexpr const char* kFrameworkPrefix = "framework.";

// The run's environment with the machine's driver and runtime filled in where the environment lacks them.
std::map<std::string, std::string> effective(const Run& run);

struct Change {
  std::string key;
  std::string before;  // "" when the older side lacks the key
  std::string after;   // "" when the newer side lacks it
};

// The keys whose values differ between `before` and `after`, in key order. A machine key one side lacks is
// unknown there (no NVML, a run stored before environments), not a change. A library or framework key one side
// lacks is a change ("(none)") only when that side recorded some library (or framework): a program that stopped
// loading cuDNN changed, a benchmark run that records no libraries did not.
std::vector<Change> changes(const std::map<std::string, std::string>& before,
                            const std::map<std::string, std::string>& after);

// "driver 580.159.04 -> 590.12", "lib.cublas (none) -> 13.1.0.3"; changes joined with ", ".
std::string describe(const Change& c);
std::string describe(const std::vector<Change>& cs);

// Parses "KEY=VALUE" (`record --env`): KEY becomes "framework.KEY" unless it already names a known prefix.
// Throws InputError naming `where` for a missing '=' or an empty key.
std::pair<std::string, std::string> parse_assignment(const std::string& text, const std::string& where);

}  // namespace gpuperf::env
