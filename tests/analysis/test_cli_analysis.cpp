// The real gpuperf executable on an imported fixture (fixtures/history.json, written by
// fixtures/make_fixture.py): compare, detect and their exit codes, formats and JUnit files.
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::testing {
namespace {

using nlohmann::json;

class AnalysisCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const CliResult r = gpuperf({"import", std::string(ANALYSIS_FIXTURES) + "/history.json"});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  CliResult gpuperf(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", dir_.file("gp.db")});
    return run_gpuperf(args, dir_.path().string());
  }
  TempDir dir_;
};

TEST_F(AnalysisCli, RerunOfTheSameBinaryFlagsNothing) {
  // A/A: the last nightly against the same binary measured again an hour later.
  const CliResult r = gpuperf({"compare", "aa000000-0000-4000-8000-000000000023", "label:rerun", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_FALSE(j["regression"].get<bool>());
  ASSERT_EQ(j["rows"].size(), 10u);
  for (const auto& row : j["rows"]) EXPECT_EQ(row["verdict"], "same") << row.dump();
}

TEST_F(AnalysisCli, RegressionExitsOneInEveryFormat) {
  for (const char* format : {"text", "md", "json"}) {
    const CliResult r = gpuperf({"compare", "branch:main", "branch:feature", "--format", format});
    EXPECT_EQ(r.code, 1) << format << ": " << r.err;
  }
  const CliResult text = gpuperf({"compare", "branch:main", "branch:feature"});
  EXPECT_NE(text.out.find("slower"), std::string::npos);
  EXPECT_NE(text.out.find("with registers 40 -> 48"), std::string::npos);
  EXPECT_NE(text.out.find("REGRESSION"), std::string::npos);
  const CliResult md = gpuperf({"compare", "branch:main", "branch:feature", "--format", "md"});
  EXPECT_NE(md.out.find("| matmul/tiled\\[n=1024,tile=16\\] | duration |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("**slower**"), std::string::npos);

  // The JSON rows carry the names detect uses, plus the verdict.
  const json j = json::parse(gpuperf({"compare", "branch:main", "branch:feature", "--format", "json"}).out);
  EXPECT_TRUE(j["regression"].get<bool>());
  const json* dur = nullptr;
  for (const auto& row : j["rows"]) {
    if (row["benchmark"] == "matmul/tiled" && row["metric"] == "duration") dur = &row;
  }
  ASSERT_NE(dur, nullptr);
  for (const char* key : {"machine", "benchmark", "params", "metric", "commit", "previous_commit", "run", "kind",
                          "change_pct", "before", "after", "confidence", "verdict"}) {
    EXPECT_TRUE(dur->contains(key)) << key;
  }
  EXPECT_EQ((*dur)["verdict"], "slower");
  EXPECT_EQ((*dur)["kind"], "regression");
  EXPECT_EQ((*dur)["params"]["tile"], 16);
  EXPECT_EQ((*dur)["run"], "cc000000-0000-4000-8000-000000000001");
  EXPECT_NEAR((*dur)["change_pct"].get<double>(), 15, 1.5);
}

TEST_F(AnalysisCli, CommitReferences) {
  // Night 23's commit has two runs (the nightly and the rerun): a commit means its latest run.
  const std::string night22 = "14ee4caf2d";  // sha1("main-22")[:10]
  const std::string night23 = "73e72a1a2d";  // sha1("main-23")[:10]
  const CliResult r = gpuperf({"compare", night22, night23, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["base"]["run"], "aa000000-0000-4000-8000-000000000022");
  EXPECT_EQ(j["candidate"]["run"], "bb000000-0000-4000-8000-000000000001");
  EXPECT_EQ(gpuperf({"compare", "deadbeef00", night23}).code, 2);
}

TEST_F(AnalysisCli, ReverseDirectionIsAnImprovement) {
  const CliResult r = gpuperf({"compare", "branch:feature", "branch:main"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("faster"), std::string::npos);
}

TEST_F(AnalysisCli, JUnitFile) {
  const std::string path = dir_.file("compare.xml");
  const CliResult r = gpuperf({"compare", "branch:main", "branch:feature", "--junit", path});
  EXPECT_EQ(r.code, 1);
  const std::string xml = read_bytes(path);
  EXPECT_NE(xml.find("<testsuites name=\"gpuperf compare\" tests=\"10\" failures=\"2\" errors=\"0\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<failure type=\"regression\""), std::string::npos);
}

TEST_F(AnalysisCli, BadReferencesAndUsageExitTwo) {
  CliResult r = gpuperf({"compare", "no-such-run", "branch:main"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("'no-such-run' matches no run"), std::string::npos) << r.err;
  r = gpuperf({"compare", "branch:nope", "branch:main"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("branches with runs: feature, main"), std::string::npos) << r.err;
  EXPECT_EQ(gpuperf({"compare", "branch:main"}).code, 2);  // one side missing
  EXPECT_EQ(gpuperf({"compare", "branch:main", "branch:feature", "--threshold", "duration"}).code, 2);
  EXPECT_EQ(gpuperf({"compare", "branch:main", "branch:feature", "--format", "xml"}).code, 2);
  EXPECT_EQ(gpuperf({"detect", "--branch", "nope"}).code, 2);
  EXPECT_EQ(gpuperf({"detect", "--filter", "("}).code, 2);
  // A database that does not exist is not created by a read-only command.
  const CliResult missing = run_gpuperf({"--db", dir_.file("none.db"), "detect"}, dir_.path().string());
  EXPECT_EQ(missing.code, 2) << missing.err;
}

TEST_F(AnalysisCli, ThresholdOverrideSilencesTheRegression) {
  const CliResult r =
      gpuperf({"compare", "branch:main", "branch:feature", "--threshold", "duration=25", "--metric", "duration"});
  EXPECT_EQ(r.code, 0) << r.out;
}

TEST_F(AnalysisCli, DetectFindsTheChangesWithHints) {
  const CliResult r = gpuperf({"detect", "--branch", "main", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json changes = json::parse(r.out)["changes"];
  const json* tiled = nullptr;
  const json* strided = nullptr;
  for (const auto& c : changes) {
    if (c["metric"] != "duration") continue;
    if (c["benchmark"] == "matmul/tiled") tiled = &c;
    if (c["benchmark"] == "memory_access/strided") strided = &c;
    for (const char* key : {"machine", "benchmark", "params", "metric", "commit", "previous_commit", "run", "kind",
                            "change_pct", "before", "after", "confidence"}) {
      EXPECT_TRUE(c.contains(key)) << key;
    }
  }
  ASSERT_NE(tiled, nullptr) << r.out;
  ASSERT_NE(strided, nullptr) << r.out;
  // Night 16 (run uuid ...016) is the first slow one; the excluded night 20 is skipped.
  EXPECT_EQ((*tiled)["run"], "aa000000-0000-4000-8000-000000000016");
  EXPECT_EQ((*tiled)["kind"], "regression");
  EXPECT_NEAR((*tiled)["change_pct"].get<double>(), 18, 1.5);
  EXPECT_GT((*tiled)["confidence"].get<double>(), 0.99);
  EXPECT_EQ((*tiled)["hints"], json({"gld_efficiency 100% -> 50%", "registers 32 -> 40"}));
  EXPECT_EQ((*strided)["run"], "aa000000-0000-4000-8000-000000000012");
  EXPECT_EQ((*strided)["kind"], "improvement");
  // Only those two durations change (the wild excluded night raises nothing).
  std::size_t durations = 0;
  for (const auto& c : changes) durations += c["metric"] == "duration" ? 1 : 0;
  EXPECT_EQ(durations, 2u);
}

TEST_F(AnalysisCli, DetectFailOnRegressionAndRecent) {
  EXPECT_EQ(gpuperf({"detect"}).code, 0);
  EXPECT_EQ(gpuperf({"detect", "--fail-on-regression"}).code, 1);
  // Both changes are older than the newest 5 runs: nothing new to fail on.
  const CliResult recent = gpuperf({"detect", "--fail-on-regression", "--recent", "5", "--format", "json"});
  EXPECT_EQ(recent.code, 0) << recent.out;
  EXPECT_TRUE(json::parse(recent.out)["changes"].empty());
  const std::string path = dir_.file("detect.xml");
  EXPECT_EQ(gpuperf({"detect", "--metric", "duration", "--junit", path}).code, 0);
  const std::string xml = read_bytes(path);
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("matmul/tiled[n=1024,tile=16]"), std::string::npos);
}

// Night `night` (1..99) of a nightly series on one GPU: a run of `benchmark` with these metrics, uuid
// PREFIX-...00NN (NN = 10 + night).
json nightly_run(const std::string& uuid_prefix, int night, const std::string& gpu, const std::string& benchmark,
                 const json& params, const json& metrics) {
  char day[32];
  std::snprintf(day, sizeof day, "2026-10-%02dT02:00:00Z", night);
  return {{"uuid", uuid_prefix + "-0000-4000-8000-0000000000" + std::to_string(10 + night)},
          {"started_at", day},
          {"commit", "c0mm1t" + std::to_string(10 + night)},
          {"branch", "main"},
          {"machine", {{"hostname", "node-" + gpu}, {"gpu_name", "NVIDIA " + gpu}, {"gpu_uuid", "GPU-" + gpu}}},
          {"results",
           json::array({{{"benchmark", benchmark}, {"params", params}, {"status", "ok"}, {"metrics", metrics}}})}};
}

// Twelve nightly runs of one kernel (100 samples each, 0.3% run-to-run jitter), then a 13th 30% slower with
// its gld_efficiency halved: the step lands tonight.
std::string step_tonight_history() {
  std::mt19937_64 rng(13);
  std::normal_distribution<double> jitter(0, 0.003), spread(0, 0.004);
  json runs = json::array();
  for (int night = 1; night <= 13; ++night) {
    const double level = 277e3 * (night == 13 ? 1.3 : 1.0) * (1 + jitter(rng));
    json samples = json::array();
    for (int i = 0; i < 100; ++i) samples.push_back(level * (1 + spread(rng)));
    runs.push_back(nightly_run("5e000000", night, "H200", "matmul/tiled", {{"n", 1024}, {"tile", 16}},
                               {{"duration", {{"unit", "ns"}, {"samples", samples}}},
                                {"gld_efficiency", {{"unit", "%"}, {"value", night == 13 ? 50.0 : 100.0}}}}));
  }
  return json{{"format", "gpuperf-results"}, {"version", 1}, {"runs", runs}}.dump();
}

TEST(AnalysisCliTonight, AStepOnTheLastNightIsAnUnconfirmedRegression) {
  TempDir dir;
  const auto gp = [&](std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"--db", dir.file("gp.db")});
    return run_gpuperf(args, dir.path().string(), input);
  };
  ASSERT_EQ(gp({"import", "-"}, step_tonight_history()).code, 0);
  const CliResult r = gp({"detect", "--metric", "duration", "--metric", "gld_efficiency", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json changes = json::parse(r.out)["changes"];
  ASSERT_EQ(changes.size(), 2u) << r.out;  // the duration (unconfirmed) and the counter (at once)
  const json& d = changes[0]["metric"] == "duration" ? changes[0] : changes[1];
  EXPECT_EQ(d["run"], "5e000000-0000-4000-8000-000000000023");
  EXPECT_EQ(d["unconfirmed"], true);
  EXPECT_EQ(d["runs_after"], 1);
  EXPECT_EQ(d["kind"], "regression");
  EXPECT_NEAR(d["change_pct"].get<double>(), 30, 2);
  EXPECT_EQ(d["hints"], json({"gld_efficiency 100% -> 50%"}));
  // An unconfirmed regression is a regression for the exit code; --confirmed-only waits for the runs.
  EXPECT_EQ(gp({"detect", "--metric", "duration", "--fail-on-regression"}).code, 1);
  EXPECT_EQ(gp({"detect", "--metric", "duration", "--fail-on-regression", "--confirmed-only"}).code, 0);
  EXPECT_EQ(gp({"detect", "--metric", "duration", "--recent", "1", "--fail-on-regression"}).code, 1);
  const CliResult text = gp({"detect", "--metric", "duration"});
  EXPECT_NE(text.out.find("unconfirmed (1 run)"), std::string::npos) << text.out;
  EXPECT_EQ(gp({"detect", "--unconfirmed-alpha", "0.7"}).code, 2);
}

// Fourteen nightly runs of one kernel, 0.3% run-to-run jitter: `level(night)` (a factor of 277 us) sets each
// night's level.
template <typename Level>
std::string fourteen_nights(unsigned seed, Level level) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> jitter(0, 0.003), spread(0, 0.004);
  json runs = json::array();
  for (int night = 1; night <= 14; ++night) {
    const double at = 277e3 * level(night) * (1 + jitter(rng));
    json samples = json::array();
    for (int i = 0; i < 100; ++i) samples.push_back(at * (1 + spread(rng)));
    runs.push_back(nightly_run("14000000", night, "H100", "matmul/tiled", {{"n", 1024}, {"tile", 16}},
                               {{"duration", {{"unit", "ns"}, {"samples", samples}}}}));
  }
  return json{{"format", "gpuperf-results"}, {"version", 1}, {"runs", runs}}.dump();
}

const std::string kNight11 = "14000000-0000-4000-8000-000000000021";
const std::string kNight14 = "14000000-0000-4000-8000-000000000024";

TEST(CompareHistoryWindow, RunsNewerThanTheBaseNeverWidenItsBand) {
  // 20% slower from night 12 on: comparing the last good night (11) with today (14) is a regression, although
  // nights 12 and 13 (newer than the base, already slow) are among the branch's last 10 runs.
  TempDir dir;
  const auto gp = [&](std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"--db", dir.file("gp.db")});
    return run_gpuperf(args, dir.path().string(), input);
  };
  ASSERT_EQ(gp({"import", "-"}, fourteen_nights(14, [](int night) { return night >= 12 ? 1.2 : 1.0; })).code, 0);
  const CliResult r = gp({"compare", kNight11, kNight14, "--format", "json"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  const json row = json::parse(r.out)["rows"][0];
  EXPECT_EQ(row["verdict"], "slower") << row.dump();
  EXPECT_EQ(row["ambiguous_by_history"], false);
  EXPECT_NEAR(row["change_pct"].get<double>(), 20, 1.5);
  EXPECT_EQ(gp({"compare", kNight11, kNight14}).code, 1);
  // Night 13 against night 14: both at the new level, nothing to report.
  EXPECT_EQ(gp({"compare", "14000000-0000-4000-8000-000000000023", kNight14}).code, 0);
}

TEST(CompareHistoryWindow, AChangeTheHistoryMakesAmbiguousSaysSoAndNamesTheOption) {
  // A kernel that alternates between two regimes 20% apart night by night (before the base too): night 14's
  // level is one the machine produced before, so the history rule calls it ambiguous, says so in the
  // summary, and --history 0 judges by the two runs' samples alone.
  TempDir dir;
  const auto gp = [&](std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"--db", dir.file("gp.db")});
    return run_gpuperf(args, dir.path().string(), input);
  };
  ASSERT_EQ(gp({"import", "-"}, fourteen_nights(15, [](int night) { return night % 2 == 0 ? 1.2 : 1.0; })).code, 0);
  const CliResult text = gp({"compare", kNight11, kNight14});
  EXPECT_EQ(text.code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("1 ambiguous (1 beyond the threshold but within the base's recent history: --history 0 "
                          "judges by the two runs' samples alone)"),
            std::string::npos)
      << text.out;
  const CliResult j = gp({"compare", kNight11, kNight14, "--format", "json"});
  EXPECT_EQ(json::parse(j.out)["ambiguous_by_history"], 1) << j.out;
  EXPECT_EQ(gp({"compare", kNight11, kNight14, "--history", "0"}).code, 1);
}

// Thirteen nights of stencil1d/shared: durations (80 samples, 0.3% run-to-run jitter) that never move, and
// achieved occupancy and DRAM bytes read measured once a night with a 2% run-to-run spread. With `step`,
// the 13th night halves the occupancy and doubles the DRAM bytes (a kernel that hides the latency: its
// duration holds).
std::string one_value_history(bool step) {
  std::mt19937_64 rng(step ? 19 : 20);
  std::normal_distribution<double> jitter(0, 0.003), spread(0, 0.004), once(0, 0.02);
  json runs = json::array();
  for (int night = 1; night <= 13; ++night) {
    const bool stepped = step && night == 13;
    const double level = 61.5e3 * (1 + jitter(rng));
    json samples = json::array();
    for (int i = 0; i < 80; ++i) samples.push_back(level * (1 + spread(rng)));
    const double occupancy = 84.8 * (stepped ? 0.5 : 1) * (1 + once(rng));
    const double bytes = 67.1e6 * (stepped ? 2 : 1) * (1 + once(rng));
    runs.push_back(nightly_run("0e000000", night, "H100", "stencil1d/shared", json::object(),
                               {{"duration", {{"unit", "ns"}, {"samples", samples}}},
                                {"achieved_occupancy", {{"unit", "%"}, {"value", occupancy}}},
                                {"dram_bytes_read", {{"unit", "bytes"}, {"value", bytes}}}}));
  }
  return json{{"format", "gpuperf-results"}, {"version", 1}, {"runs", runs}}.dump();
}

class OneValueCli : public ::testing::Test {
 protected:
  CliResult gp(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"--db", dir_.file("gp.db")});
    return run_gpuperf(args, dir_.path().string(), input);
  }
  // The rows of `compare` of the last two nights, by metric.
  std::map<std::string, json> last_night(const std::vector<std::string>& more = {}) {
    std::vector<std::string> args{"compare", "0e000000-0000-4000-8000-000000000022",
                                  "0e000000-0000-4000-8000-000000000023", "--format", "json"};
    args.insert(args.end(), more.begin(), more.end());
    const CliResult r = gp(args);
    EXPECT_LE(r.code, 1) << r.err;
    std::map<std::string, json> rows;
    const json parsed = json::parse(r.out);
    for (const auto& row : parsed["rows"]) rows[row["metric"].get<std::string>()] = row;
    EXPECT_EQ(rows.size(), 3u) << r.out << r.err;
    code_ = r.code;
    return rows;
  }
  TempDir dir_;
  int code_ = -1;
};

TEST_F(OneValueCli, HalvedOccupancyAndDoubledDramAreFlaggedByCompareAndDetect) {
  ASSERT_EQ(gp({"import", "-"}, one_value_history(true)).code, 0);
  // Sampled counters moving alone are listed, not failed (the default gate); --gate fails on them.
  auto rows = last_night();
  EXPECT_EQ(code_, 0);
  EXPECT_EQ(rows["achieved_occupancy"]["gated"], false);
  EXPECT_EQ(rows["duration"]["gated"], true);
  rows = last_night({"--gate", "achieved_occupancy"});
  EXPECT_EQ(code_, 1);
  EXPECT_EQ(rows["achieved_occupancy"]["gated"], true);
  EXPECT_EQ(rows["dram_bytes_read"]["gated"], false);
  EXPECT_EQ(rows["duration"]["verdict"], "same");
  EXPECT_EQ(rows["achieved_occupancy"]["verdict"], "slower") << rows["achieved_occupancy"].dump();
  EXPECT_NE(rows["achieved_occupancy"]["note"].get<std::string>().find("outside the last 10 runs' range"),
            std::string::npos);
  EXPECT_EQ(rows["dram_bytes_read"]["verdict"], "slower") << rows["dram_bytes_read"].dump();
  // Without the history there is no test of one value: not enough data, no regression, and the next step.
  rows = last_night({"--history", "0"});
  EXPECT_EQ(code_, 0);
  EXPECT_EQ(rows["achieved_occupancy"]["verdict"], "not enough data");
  EXPECT_EQ(rows["achieved_occupancy"]["note"], "one value per side: no test");
  EXPECT_NE(rows["achieved_occupancy"]["next_step"].get<std::string>().find(" --repeat 3, then compare again"),
            std::string::npos);
  // Two earlier runs are too few, and it says so (the base is night 12, so --history 2 keeps 11 and 12).
  rows = last_night({"--history", "2"});
  EXPECT_EQ(rows["achieved_occupancy"]["verdict"], "not enough data");
  EXPECT_NE(rows["achieved_occupancy"]["note"].get<std::string>().find("3 judge one value"), std::string::npos);

  // detect: both flagged the night they land, unconfirmed; the duration not at all.
  const CliResult d = gp({"detect", "--format", "json"});
  ASSERT_EQ(d.code, 0) << d.err;
  std::map<std::string, json> changes;
  const json parsed = json::parse(d.out);
  for (const auto& c : parsed["changes"]) changes[c["metric"].get<std::string>()] = c;
  ASSERT_EQ(changes.size(), 2u) << d.out;
  for (const char* metric : {"achieved_occupancy", "dram_bytes_read"}) {
    SCOPED_TRACE(metric);
    const json& c = changes[metric];
    EXPECT_EQ(c["run"], "0e000000-0000-4000-8000-000000000023");
    EXPECT_EQ(c["kind"], "regression");
    EXPECT_EQ(c["unconfirmed"], true);
    EXPECT_EQ(c["runs_after"], 1);
  }
  EXPECT_NEAR(changes["achieved_occupancy"]["change_pct"].get<double>(), -50, 5);
  EXPECT_NEAR(changes["dram_bytes_read"]["change_pct"].get<double>(), 100, 10);
  EXPECT_EQ(gp({"detect", "--fail-on-regression", "--recent", "1"}).code, 0);  // not gated
  EXPECT_EQ(gp({"detect", "--fail-on-regression", "--recent", "1", "--gate", "all"}).code, 1);
  EXPECT_EQ(gp({"detect", "--fail-on-regression", "--recent", "1", "--gate", "dram_bytes_read"}).code, 1);
  // The report lists the occupancy as a finding of its own (no duration change to fold it into).
  const CliResult md = gp({"report", "--format", "md", "--out", dir_.file("site")});
  ASSERT_EQ(md.code, 0) << md.err;
  const std::string text = read_bytes(dir_.file("site") + "/report.md");
  EXPECT_NE(text.find("### Regressions (2)"), std::string::npos) << text;
  std::istringstream lines(text);
  std::string line, finding;
  while (std::getline(lines, line)) {
    if (line.rfind("| stencil1d/shared | achieved", 0) == 0) finding = line;
  }
  EXPECT_NE(finding.find("counter only"), std::string::npos) << text;
  EXPECT_NE(finding.find("does not gate"), std::string::npos) << finding;  // achieved occupancy is sampled
  EXPECT_NE(finding.find("unconfirmed (1 run)"), std::string::npos) << finding;
}

TEST_F(OneValueCli, ASteadyHistoryOfTheSameSpreadStaysQuiet) {
  ASSERT_EQ(gp({"import", "-"}, one_value_history(false)).code, 0);
  const auto rows = last_night();
  EXPECT_EQ(code_, 0);
  for (const auto& [metric, row] : rows) EXPECT_EQ(row["verdict"], "same") << row.dump();
  const CliResult d = gp({"detect", "--format", "json"});
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_TRUE(json::parse(d.out)["changes"].empty()) << d.out;
}

}  // namespace
}  // namespace gpuperf::testing
