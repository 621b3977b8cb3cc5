// The gate set and checked metric names through the real executable: which rows fail compare, check and
// detect, how every format says it, and the min-segment case of examples/sample-history.json.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::testing {
namespace {

using nlohmann::json;

// Night `night` of a kernel: 60 duration samples around `us` microseconds, one stall ratio and one
// instruction count; uuid 9a7e0000-...-0000000000NN (NN = 10 + night).
json night_run(int night, double us, double stall, double instructions) {
  json samples = json::array();
  for (int i = 0; i < 60; ++i) samples.push_back(us * 1e3 * (1 + 0.002 * ((i * 37) % 11 - 5) / 5.0));
  char day[32];
  std::snprintf(day, sizeof day, "2026-10-%02dT02:00:00Z", night);
  return {{"uuid", "9a7e0000-0000-4000-8000-0000000000" + std::to_string(10 + night)},
          {"started_at", day},
          {"commit", "c0ffee" + std::to_string(10 + night)},
          {"branch", night <= 3 ? "main" : "feature"},
          {"machine", {{"hostname", "node-1"}, {"gpu_name", "NVIDIA H100"}, {"gpu_uuid", "GPU-1"}}},
          {"results", json::array({{{"benchmark", "memory/strided"},
                                    {"params", {{"stride", 32}}},
                                    {"status", "ok"},
                                    {"metrics",
                                     {{"duration", {{"unit", "ns"}, {"samples", samples}}},
                                      {"stall_not_selected", {{"unit", "warps/issue"}, {"value", stall}}},
                                      {"instructions", {{"unit", "count"}, {"value", instructions}}}}}}})}};
}

class GateCli : public ::testing::Test {
 protected:
  // Three nightly runs of main, then a candidate on branch feature.
  void SetUp() override {
    json runs = json::array(
        {night_run(1, 100, 0.2853, 37.7e6), night_run(2, 100.1, 0.2857, 37.7e6), night_run(3, 99.9, 0.2855, 37.7e6)});
    ASSERT_EQ(gp({"import", "-"}, json{{"format", "gpuperf-results"}, {"version", 1}, {"runs", runs}}.dump()).code, 0);
  }
  void candidate(double us, double stall, double instructions) {
    const json runs = json::array({night_run(4, us, stall, instructions)});
    ASSERT_EQ(gp({"import", "-"}, json{{"format", "gpuperf-results"}, {"version", 1}, {"runs", runs}}.dump()).code, 0);
  }
  CliResult gp(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"--db", dir_.file("gp.db")});
    return run_gpuperf(args, dir_.path().string(), input);
  }
  CliResult compare(std::vector<std::string> more = {}) {
    std::vector<std::string> args{"compare", "branch:main", "branch:feature"};
    args.insert(args.end(), more.begin(), more.end());
    return gp(args);
  }
  TempDir dir_;
};

TEST_F(GateCli, ASampledCounterMovingAloneExitsZeroAndIsListed) {
  candidate(100, 0.45, 37.7e6);  // the stall ratio +58%, nothing else
  const CliResult text = compare();
  EXPECT_EQ(text.code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("stall_not_selected"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("1 slower row does not gate: --gate METRIC fails on them"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("gate: duration, failed or incorrect kernels, deterministic counters"), std::string::npos);
  EXPECT_NE(text.out.find("no regression"), std::string::npos);
  const json j = json::parse(compare({"--format", "json"}).out);
  EXPECT_FALSE(j["regression"].get<bool>());
  EXPECT_EQ(j["ungated_slower"], 1);
  for (const auto& row : j["rows"]) {
    if (row["metric"] == "stall_not_selected") {
      EXPECT_EQ(row["verdict"], "slower") << row.dump();
      EXPECT_EQ(row["gated"], false);
    }
  }
  const std::string xml = dir_.file("c.xml");
  EXPECT_EQ(compare({"--junit", xml}).code, 0);
  const std::string junit = read_bytes(xml);
  EXPECT_NE(junit.find("failures=\"0\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("slower +57.6% (not gated)"), std::string::npos) << junit;
  const CliResult md = compare({"--format", "md"});
  EXPECT_NE(md.out.find("| slower | no |"), std::string::npos) << md.out;
  // Gated on request, or all at once.
  EXPECT_EQ(compare({"--gate", "stall_not_selected"}).code, 1);
  EXPECT_EQ(compare({"--gate", "all"}).code, 1);
  EXPECT_EQ(compare({"--gate", "issue_active,stall_barrier"}).code, 0);
}

TEST_F(GateCli, ADeterministicCounterMovingExitsOne) {
  candidate(100, 0.2855, 39.1e6);  // 3.7% more instructions, same time
  const CliResult r = compare({"--format", "json"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  const json parsed = json::parse(r.out);
  for (const auto& row : parsed["rows"]) {
    if (row["metric"] == "instructions") {
      EXPECT_EQ(row["gated"], true) << row.dump();
    }
  }
  const CliResult text = compare();
  EXPECT_NE(text.out.find("REGRESSION"), std::string::npos) << text.out;
}

TEST_F(GateCli, ADurationMovingExitsOneWithTheStallAmongItsHints) {
  candidate(125, 0.45, 37.7e6);
  const CliResult r = compare();
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("with stall_not_selected"), std::string::npos) << r.out;
}

TEST_F(GateCli, UnknownMetricNamesExitTwoWithTheCloseOnes) {
  candidate(100, 0.2855, 37.7e6);
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"compare", "branch:main", "branch:feature", "--metric", "duraton"},
                                             {"compare", "branch:main", "branch:feature", "--threshold", "duraton=3"},
                                             {"compare", "branch:main", "branch:feature", "--gate", "duraton"},
                                             {"detect", "--metric", "duraton", "--fail-on-regression"},
                                             {"detect", "--threshold", "duraton=3"},
                                             {"detect", "--gate", "stall_barrier,duraton"},
                                             {"bisect", "--metric", "duraton", "--good", "a", "--bad", "b"}}) {
    const CliResult r = gp(args);
    EXPECT_EQ(r.code, 2) << args[1] << ' ' << args[args.size() - 1] << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("got 'duraton'; did you mean duration"), std::string::npos) << r.err;
  }
  // A known metric without data in the selection is said, not an empty answer.
  const CliResult none = gp({"compare", "branch:main", "branch:feature", "--metric", "registers"});
  EXPECT_EQ(none.code, 0) << none.err;
  EXPECT_NE(none.err.find("--metric registers: no rows of this metric in the selection"), std::string::npos)
      << none.err;
  const CliResult detect = gp({"detect", "--branch", "main", "--metric", "registers"});
  EXPECT_NE(detect.err.find("--metric registers: no series of this metric in the selection"), std::string::npos)
      << detect.err;
}

TEST(MinSegmentCli, NoSettingHidesTheSampleHistorysStep) {
  // examples/sample-history.json: memory/coalesced's duration steps +119%, four runs before the newest.
  TempDir dir;
  const auto gp = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", dir.file("gp.db")});
    return run_gpuperf(args, dir.path().string());
  };
  ASSERT_EQ(gp({"import", std::string(GPUPERF_SOURCE_DIR) + "/examples/sample-history.json"}).code, 0);
  for (int m = 2; m <= 8; ++m) {
    const CliResult r = gp({"detect", "--min-segment", std::to_string(m), "--metric", "duration", "--format", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    bool found = false;
    const json parsed = json::parse(r.out);
    for (const auto& c : parsed["changes"]) {
      found = found || (c["benchmark"] == "memory/coalesced" && c["change_pct"].get<double>() > 100);
    }
    EXPECT_TRUE(found) << "--min-segment " << m << ": " << r.out;
    EXPECT_EQ(gp({"detect", "--min-segment", std::to_string(m), "--fail-on-regression"}).code, 1) << m;
  }
}

}  // namespace
}  // namespace gpuperf::testing
