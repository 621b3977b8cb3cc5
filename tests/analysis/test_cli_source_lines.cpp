// Findings that point at the line, through the real gpuperf executable on an imported history with line data
// (tests/reports/fixture_source_lines.json, written by make_source_fixture.py): compare, check's table and
// detect name the load line that lost coalescing in every format, matched across the six lines it moved; the
// strided copy's lines, moved too but unchanged, are not named; another machine's history without its source
// tree, one of its runs without lines, reads and compares without error.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::testing {
namespace {

using nlohmann::json;

const std::string kNight3 = "40000004-0000-4000-8000-000000000003";
const std::string kNight4 = "40000005-0000-4000-8000-000000000004";  // the commit that lost coalescing
const std::string kLine =
    "kernels/memory_access.cu:29 (was :23)  if (i < n) out[j] = in[j];  global load sectors per request 4.0 -> 8.0 "
    "(ideal 4.0); global store sectors per request 4.0 -> 8.0 (ideal 4.0)";

class SourceLinesCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const CliResult r = gpuperf({"import", SOURCE_LINES_FIXTURE});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  CliResult gpuperf(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", dir_.file("gp.db")});
    return run_gpuperf(args, dir_.path().string());
  }
  TempDir dir_;
};

TEST_F(SourceLinesCli, CompareNamesTheLoadLineThatLostCoalescing) {
  const CliResult text = gpuperf({"compare", kNight3, kNight4});
  EXPECT_EQ(text.code, 1) << text.err;
  EXPECT_NE(text.out.find("    " + kLine + "\n"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("copy_strided"), std::string::npos);
  EXPECT_EQ(text.out.find("in[src]"), std::string::npos) << "the strided lines moved but did not change";

  const CliResult md = gpuperf({"compare", kNight3, kNight4, "--format", "md"});
  EXPECT_NE(md.out.find("Source lines that moved:"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("  - kernels/memory\\_access.cu:29 (was :23)  if (i &lt; n) out\\[j\\] = in\\[j\\];"),
            std::string::npos)
      << md.out;

  const json j = json::parse(gpuperf({"compare", kNight3, kNight4, "--format", "json"}).out);
  const json* dur = nullptr;
  for (const auto& row : j["rows"]) {
    if (row["benchmark"] == "memory/coalesced" && row["metric"] == "duration") dur = &row;
    if (row["benchmark"] == "memory/strided") {
      EXPECT_FALSE(row.contains("lines")) << row.dump();
    }
  }
  ASSERT_NE(dur, nullptr);
  ASSERT_TRUE(dur->contains("lines"));
  const json& line = (*dur)["lines"][0];
  EXPECT_EQ(line["file"], "kernels/memory_access.cu");
  EXPECT_EQ(line["line"], 29);
  EXPECT_EQ(line["was_line"], 23);
  EXPECT_EQ(line["text"], "if (i < n) out[j] = in[j];");
  EXPECT_EQ(line["summary"], kLine);
  EXPECT_EQ(line["counters"][0]["counter"], "global_ld_sectors_per_request");
  EXPECT_EQ(line["counters"][0]["before"], 4.0);
  EXPECT_EQ(line["counters"][0]["after"], 8.0);
  EXPECT_EQ(line["counters"][0]["ideal"], 4.0);
  // The two lines the edit added, by their instructions, after it.
  ASSERT_EQ((*dur)["lines"].size(), 3u);
  EXPECT_TRUE((*dur)["lines"][1]["new"].get<bool>());
}

TEST_F(SourceLinesCli, ACopyRunAwayFromItsSourcesNamesTheLineWithTheHistorysText) {
  // Night 4's build run again where its sources are not (no text on any line): the same commit's stored run
  // gives the text, and the finding says where it came from.
  std::ifstream in(SOURCE_LINES_FIXTURE);
  json fixture = json::parse(in);
  json copy = fixture["runs"][4];
  ASSERT_EQ(copy["uuid"], kNight4);
  copy["uuid"] = "40000005-0000-4000-8000-0000000000cc";
  for (auto& result : copy["results"]) {
    if (!result.contains("source")) continue;
    for (auto& line : result["source"]["lines"]) line["text"] = "";
  }
  fixture["runs"] = json::array({copy});
  write_bytes(dir_.file("copy.json"), fixture.dump());
  ASSERT_EQ(gpuperf({"import", dir_.file("copy.json")}).code, 0);
  const CliResult text = gpuperf({"compare", kNight3, "40000005-0000-4000-8000-0000000000cc"});
  EXPECT_EQ(text.code, 1) << text.err;
  EXPECT_NE(text.out.find("    kernels/memory_access.cu:29 (was :23)  if (i < n) out[j] = in[j];  (text from run 5)  "
                          "global load sectors per request 4.0 -> 8.0"),
            std::string::npos)
      << text.out;
  const json j =
      json::parse(gpuperf({"compare", kNight3, "40000005-0000-4000-8000-0000000000cc", "--format", "json"}).out);
  for (const auto& row : j["rows"]) {
    if (row["benchmark"] == "memory/coalesced" && row["metric"] == "duration") {
      EXPECT_EQ(row["lines"][0]["text_from_run"], 5) << row.dump();
    }
  }
}

TEST_F(SourceLinesCli, DetectNamesTheLineAtTheChange) {
  const CliResult r = gpuperf({"detect", "--machine", "ci-h100-01", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  bool named = false;
  for (const auto& c : j["changes"]) {
    if (c["benchmark"] != "memory/coalesced") {
      EXPECT_FALSE(c.contains("lines")) << c.dump();
      continue;
    }
    EXPECT_EQ(c["commit"], j["changes"][0]["commit"]);
    ASSERT_TRUE(c.contains("lines")) << c.dump();
    EXPECT_EQ(c["lines"][0]["summary"], kLine);
    named = true;
  }
  EXPECT_TRUE(named) << r.out;
  const CliResult text = gpuperf({"detect", "--machine", "ci-h100-01"});
  EXPECT_NE(text.out.find("    " + kLine), std::string::npos) << text.out;
}

TEST_F(SourceLinesCli, AnotherMachinesHistoryWithoutItsSourceTreeReadsAndCompares) {
  // dev-a100-03's paths are /home/dev/...; its second run's lines are unsupported on that driver.
  const CliResult r = gpuperf(
      {"compare", "40000007-0000-4000-8000-000000000006", "40000008-0000-4000-8000-000000000007", "--format", "json"});
  EXPECT_LE(r.code, 1) << r.err;
  const json j = json::parse(r.out);
  for (const auto& row : j["rows"]) EXPECT_FALSE(row.contains("lines")) << row.dump();
  const CliResult e = gpuperf({"export", "--machine", "dev-a100-03"});
  ASSERT_EQ(e.code, 0) << e.err;
  EXPECT_NE(e.out.find("\"/home/dev/src/gpuperf/kernels/memory_access.cu\""), std::string::npos);
  EXPECT_NE(e.out.find("\"status\":\"unsupported\",\"message\":\"SASS metrics need driver 525 or newer"),
            std::string::npos);
}

}  // namespace
}  // namespace gpuperf::testing
