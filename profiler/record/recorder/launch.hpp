// Running a program under gpuperf's injection library (`gpuperf record`): resolving it like a shell, the
// environment that loads the library into it and its children, and waiting for its end.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "profiler/record/record_config.hpp"

namespace gpuperf::record {

// The injection library's file name, installed next to the CUPTI module.
inline constexpr const char* kInjectLibraryName = "libgpuperf_inject.so";

// `app` as execvp would run it: a path when it holds '/', else the first executable match on $PATH.
// InputError (exit 2) when it does not exist or is not executable, naming what was tried.
std::string resolve_program(const std::string& app);

// The injection library: $GPUPERF_INJECT_LIBRARY, next to the executable, the installed package, or the
// build tree's copy. EnvironmentError (exit 3) naming where it looked.
std::string find_inject_library();

// EnvironmentError naming the tool when this environment already injects a CUDA tool (ncu and nsys set
// CUDA_INJECTION64_PATH): the driver loads one injection library per process.
void check_no_other_injection();

struct ProgramEnd {
  int exit_status = 0;                  // >= 0: the exit code; < 0: minus the signal that ended it
  std::string started_at, finished_at;  // ISO 8601 UTC
  double wall_seconds = 0;
};

// Runs argv[0] (resolved) with argv[1..] and waits for it. The child gets CUDA_INJECTION64_PATH =
// `inject_library`, GPUPERF_RECORD_CONFIG = `config` with `record_dir` and `nvtx` (record_config.hpp) and, unless
// set, NVTX_INJECTION64_PATH = libcupti (so NVTX ranges reach CUPTI); children it starts inherit them. While it runs,
// SIGINT is left to the program (the terminal sends it there too) and SIGTERM is passed on to it, so gpuperf lives to
// store what was seen. With `nvtx` false the library records no NVTX paths: no launch-API records. `config` holds the
// rest of the library's settings (the hardware metrics, the selection, ...). `while_running`, when given, is called in
// gpuperf once the program has started and then every 10 ms or so until it ends, so that gpuperf's own work (describing
// the machine, reading the records as they are written) overlaps the program instead of adding to it. Once it throws it
// is not called again, and the exception is rethrown when the program has ended: the program is never left unwaited.
ProgramEnd run_program(const std::vector<std::string>& argv, const std::string& record_dir,
                       const std::string& inject_library, bool nvtx = true, RecordConfig config = {},
                       const std::function<void()>& while_running = {});

}  // namespace gpuperf::record
