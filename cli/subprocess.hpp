// Child processes that an interrupt reaches: `gpuperf bisect` runs git, a build command and bench
// executables, each in a process group of its own; while one runs, SIGINT, SIGTERM and SIGHUP sent to
// gpuperf are passed on to that group, and gpuperf itself keeps running to clean up (interrupted()).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gpuperf::cli {

struct ProcessResult {
  int exit_code = -1;    // the exit status, or 128 + the signal that ended it
  std::string out, err;  // captured output (empty where it went to a file or was inherited)
};

struct ProcessOptions {
  std::string cwd;                         // empty: the current directory
  std::map<std::string, std::string> env;  // added to (or replacing in) the environment
  std::string out_path, err_path;          // write stdout/stderr here ("" captures it)
  bool inherit_output = false;             // stdout and stderr go where gpuperf's go
};

// Runs argv[0] (searched on $PATH when it holds no '/') with its arguments and waits for it. Throws
// EnvironmentError when it cannot be started at all (exit code 127 from the child: not found).
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// Installs the forwarding handlers for SIGINT, SIGTERM and SIGHUP (idempotent).
void forward_interrupts();
// The signal that interrupted gpuperf since forward_interrupts(), or 0.
int interrupted();

// `s` single-quoted for sh.
std::string shell_quote(const std::string& s);

}  // namespace gpuperf::cli
