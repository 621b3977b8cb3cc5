// A scratch directory with a gpuperf database for CLI tests, and interchange files to feed it.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "db/interchange.hpp"
#include "tests/cli/cli_runner.hpp"

namespace gpuperf::testing {

inline std::string run_uuid(int i) {
  char buf[48];  // room for any int, so no compiler sees a truncation
  std::snprintf(buf, sizeof buf, "%08d-0000-4000-8000-00000000%04d", i, i);
  return buf;
}

// `n` runs starting at day `first`, on main unless `branch` says otherwise.
inline std::string runs_file(int first, int n, const std::string& branch = "main") {
  std::vector<Run> runs;
  for (int i = first; i < first + n; ++i) {
    char day[32];
    std::snprintf(day, sizeof day, "2026-10-%02dT02:00:00Z", i);
    runs.push_back(make_run(run_uuid(i), day, branch));
  }
  return db::to_interchange(runs);
}

class CliTest : public ::testing::Test {
 protected:
  CliResult gp(const std::vector<std::string>& args, const std::string& input = "") const {
    return run_gpuperf(args, dir_.path().string(), input);
  }
  std::string path(const std::string& name) const { return dir_.file(name); }
  void write(const std::string& name, const std::string& bytes) const { write_bytes(dir_.file(name), bytes); }
  std::string bytes(const std::string& name) const { return read_bytes(dir_.file(name)); }
  bool exists(const std::string& name) const { return std::filesystem::exists(dir_.file(name)); }
  // A database with three main runs (days 1-3) in ./gpuperf.db, closed cleanly.
  void seed() const {
    write("seed.json", runs_file(1, 3));
    CliResult r = gp({"import", "seed.json"});
    ASSERT_EQ(r.code, 0) << r.err;
  }

  TempDir dir_;
};

#define EXPECT_CLI(result, code_, needle)                                                                           \
  do {                                                                                                              \
    const auto& r_ = (result);                                                                                      \
    EXPECT_EQ(r_.code, code_) << "stdout: " << r_.out << "\nstderr: " << r_.err;                                    \
    EXPECT_NE((r_.out + r_.err).find(needle), std::string::npos) << "stdout: " << r_.out << "\nstderr: " << r_.err; \
  } while (0)

}  // namespace gpuperf::testing
