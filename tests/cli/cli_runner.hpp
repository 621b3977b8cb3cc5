// Runs the real, built `gpuperf` executable (its path comes from CMake as GPUPERF_EXE, or from
// $GPUPERF_TEST_EXE where a test runs from a bundle copied to another machine) and captures its exit code,
// standard output and standard error.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/db/fixtures.hpp"

namespace gpuperf::testing {

struct CliResult {
  int code = -1;
  std::string out, err;
};

// `gpuperf args...` with GPUPERF_DB unset, in directory `cwd`, with `input` on standard input.
inline CliResult run_gpuperf(const std::vector<std::string>& args, const std::string& cwd,
                             const std::string& input = "") {
  TempDir io;
  const std::string in_path = io.file("stdin"), out_path = io.file("stdout"), err_path = io.file("stderr");
  write_bytes(in_path, input);
  pid_t pid = fork();
  if (pid < 0) return {};
  if (pid == 0) {
    int in = open(in_path.c_str(), O_RDONLY);
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(126);
    if (chdir(cwd.c_str()) != 0) _exit(126);
    unsetenv("GPUPERF_DB");
    std::vector<char*> argv;
    const char* moved = std::getenv("GPUPERF_TEST_EXE");
    std::string exe = moved != nullptr && *moved != '\0' ? moved : GPUPERF_EXE;
    argv.push_back(exe.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_bytes(out_path);
  r.err = read_bytes(err_path);
  return r;
}

// Starts `gpuperf args...` in `cwd` without waiting (output discarded); returns its pid.
inline pid_t spawn_gpuperf(const std::vector<std::string>& args, const std::string& cwd) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  int null = open("/dev/null", O_RDWR);
  if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0 || chdir(cwd.c_str()) != 0) _exit(126);
  unsetenv("GPUPERF_DB");
  std::vector<std::string> copy = args;
  std::string exe = GPUPERF_EXE;
  std::vector<char*> argv{exe.data()};
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(exe.c_str(), argv.data());
  _exit(127);
}

}  // namespace gpuperf::testing
