// Runs the gpuperf executable for the end-to-end report tests: `gpuperf import` of the fixture JSON into a
// fresh database under the build tree, then `gpuperf report`.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#ifndef GPUPERF_EXE
#error "GPUPERF_EXE must name the gpuperf executable"
#endif
#ifndef GPUPERF_REPORT_FIXTURE
#error "GPUPERF_REPORT_FIXTURE must name tests/reports/fixture_history.json"
#endif

namespace gpuperf::reports::testing {

// Single quotes for /bin/sh, so paths with spaces survive.
inline std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  const int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// `gpuperf --db DB ARGS...`
inline CommandResult gpuperf(const std::filesystem::path& db, const std::string& args) {
  return run_command(sh_quote(GPUPERF_EXE) + " --db " + sh_quote(db.string()) + " " + args);
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh directory under the build tree (kept after the test, for looking at what was written).
inline std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(GPUPERF_TEST_WORK_DIR) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace gpuperf::reports::testing
