// Error types that carry the exit code the CLI reports (../README.md, "Exit codes").
#pragma once

#include <stdexcept>
#include <string>

namespace gpuperf {

enum ExitCode : int {
  kExitOk = 0,
  kExitRegression = 1,     // a regression was found
  kExitUsage = 2,          // bad usage or bad input (a file, a database, an argument)
  kExitEnvironment = 3,    // the environment cannot do it: no GPU, no profiling permission, unwritable path
  kExitIncorrect = 4,      // a kernel gave a wrong answer
  kExitProgramFailed = 5,  // gpuperf record: the recorded program failed (its run is stored, with its exit status)
};

class Error : public std::runtime_error {
 public:
  Error(const std::string& what, int exit_code) : std::runtime_error(what), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// Bad usage or bad input: a malformed file, a database that is not ours, an unknown name. Exit 2.
class InputError : public Error {
 public:
  explicit InputError(const std::string& what) : Error(what, kExitUsage) {}
};

// The machine cannot do it: no GPU, no driver, no permission, a read-only location. Exit 3.
class EnvironmentError : public Error {
 public:
  explicit EnvironmentError(const std::string& what) : Error(what, kExitEnvironment) {}
};

}  // namespace gpuperf
