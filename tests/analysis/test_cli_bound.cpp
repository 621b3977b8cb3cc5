// Findings that say why (issue 28): the real gpuperf executable on an imported history with speed of light,
// instructions and stalls (fixtures/bound_history.json, written by fixtures/make_bound_fixture.py). A compute
// change leads with instructions and the pipe that moved, a memory change with sector efficiency and DRAM
// bytes, and a change of bound says so, in detect, compare and the reports.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::testing {
namespace {

using nlohmann::json;

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The position of the first hint starting with `prefix`, or hints.size().
std::size_t position(const std::vector<std::string>& hints, const std::string& prefix) {
  for (std::size_t i = 0; i < hints.size(); ++i) {
    if (starts_with(hints[i], prefix)) return i;
  }
  return hints.size();
}

std::string joined(const std::vector<std::string>& hints) {
  std::string out;
  for (const auto& h : hints) out += (out.empty() ? "" : " | ") + h;
  return out;
}

class BoundCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const CliResult r = gpuperf({"import", std::string(ANALYSIS_FIXTURES) + "/bound_history.json"});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  CliResult gpuperf(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", dir_.file("gp.db")});
    return run_gpuperf(args, dir_.path().string());
  }
  // detect's hints for the duration change of `benchmark`.
  std::vector<std::string> duration_hints(const std::string& benchmark) {
    const CliResult r = gpuperf({"detect", "--format", "json"});
    EXPECT_EQ(r.code, 0) << r.err;
    const json out = json::parse(r.out);
    for (const auto& c : out["changes"]) {
      if (c["benchmark"] == benchmark && c["metric"] == "duration") {
        EXPECT_EQ(c["run"], "b0000000-0000-4000-8000-000000000006") << c.dump();
        return c["hints"].get<std::vector<std::string>>();
      }
    }
    ADD_FAILURE() << "no duration change of " << benchmark << " in " << r.out;
    return {};
  }
  TempDir dir_;
};

TEST_F(BoundCli, ComputeChangeThatChangesTheBoundLeadsWithInstructions) {
  const auto hints = duration_hints("plant/polynomial");
  ASSERT_GE(hints.size(), 3u) << joined(hints);
  // Twice the FP32 work: the instruction count (with its relative change) and the FMA pipe first.
  EXPECT_TRUE(starts_with(hints[0], "instructions 74.45M -> 138.4M (+86%)")) << joined(hints);
  EXPECT_TRUE(starts_with(hints[1], "inst_fma 67.11M -> 134.2M (+100%)")) << joined(hints);
  // Then the change of bound, from DRAM to the SM.
  const std::size_t b = position(hints, "memory-bound");
  ASSERT_LT(b, hints.size()) << joined(hints);
  EXPECT_NE(hints[b].find("% DRAM -> compute-bound 9"), std::string::npos) << hints[b];
  EXPECT_NE(hints[b].find("% SM"), std::string::npos) << hints[b];
  // Counters that did not move are not hints; the stalls that moved come after the bound.
  EXPECT_EQ(position(hints, "gld_efficiency"), hints.size()) << joined(hints);
  EXPECT_EQ(position(hints, "inst_alu"), hints.size()) << joined(hints);
  EXPECT_GT(position(hints, "stall_long_scoreboard"), b) << joined(hints);
}

TEST_F(BoundCli, MemoryChangeLeadsWithSectorsAndDram) {
  const auto hints = duration_hints("memory/coalesced");
  ASSERT_GE(hints.size(), 4u) << joined(hints);
  EXPECT_EQ(hints[0], "gld_efficiency 100% -> 50%") << joined(hints);
  EXPECT_EQ(hints[1], "gst_efficiency 100% -> 50%") << joined(hints);
  EXPECT_TRUE(starts_with(hints[2], "dram_bytes_read 67.")) << joined(hints);
  // Memory-bound before and after: the bound alone, on DRAM.
  const std::size_t b = position(hints, "memory-bound 8");
  ASSERT_LT(b, hints.size()) << joined(hints);
  EXPECT_NE(hints[b].find("% DRAM"), std::string::npos) << hints[b];
  EXPECT_EQ(hints[b].find("->"), std::string::npos) << hints[b];
  // The few more index instructions are named, after what explains a memory-bound kernel's change.
  const std::size_t instructions = position(hints, "instructions 2.654M -> 3.146M (+19%)");
  ASSERT_LT(instructions, hints.size()) << joined(hints);
  EXPECT_GT(instructions, b);
}

TEST_F(BoundCli, ComputeChangeWithinTheBound) {
  const auto hints = duration_hints("matmul/tiled");
  ASSERT_GE(hints.size(), 3u) << joined(hints);
  EXPECT_TRUE(starts_with(hints[0], "instructions 33.47M -> 43.52M (+30%)")) << joined(hints);
  EXPECT_TRUE(starts_with(hints[1], "inst_fma 16.78M -> 26.84M (+60%)")) << joined(hints);
  const std::size_t b = position(hints, "compute-bound 9");
  ASSERT_LT(b, hints.size()) << joined(hints);
  EXPECT_EQ(hints[b].find("->"), std::string::npos) << hints[b];
}

TEST_F(BoundCli, CheckOrdersItsNoteTheSameWay) {
  // The night before the change against the night of it, as `check` compares a branch with its baseline.
  const CliResult r = gpuperf(
      {"compare", "b0000000-0000-4000-8000-000000000005", "b0000000-0000-4000-8000-000000000006", "--format", "json"});
  ASSERT_EQ(r.code, 1) << r.err;
  std::string note;
  const json out = json::parse(r.out);
  for (const auto& row : out["rows"]) {
    if (row["benchmark"] == "plant/polynomial" && row["metric"] == "duration") note = row.value("note", "");
  }
  EXPECT_TRUE(starts_with(note, "with instructions 74.45M -> 138.4M (+86%), inst_fma 67.11M -> 134.2M (+100%), "))
      << note;
  // After the other counters that explain a compute change, the change of bound, then the memory side.
  const std::size_t bound = note.find(", memory-bound 9");
  ASSERT_NE(bound, std::string::npos) << note;
  EXPECT_NE(note.find("% DRAM -> compute-bound 9", bound), std::string::npos) << note;
  EXPECT_LT(note.find("stall_math_throttle"), bound) << note;
  EXPECT_GT(note.find("memory_throughput"), bound) << note;
}

TEST_F(BoundCli, ReportsShowEachKernelsBoundAtItsLatestRun) {
  const CliResult r = gpuperf({"report", "--out", dir_.file("report")});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string md = read_bytes(dir_.file("report") + "/report.md");
  EXPECT_NE(md.find("### Speed of light"), std::string::npos) << md;
  EXPECT_NE(md.find("| plant/polynomial | compute-bound 9"), std::string::npos) << md;
  EXPECT_NE(md.find("| memory/coalesced | memory-bound 8"), std::string::npos) << md;
  EXPECT_NE(md.find("| vector\\_add/add\\[block=256\\] | latency-bound (SM 40%, memory 45%)"), std::string::npos) << md;
  // The regression's hints in the report name the change of bound.
  EXPECT_NE(md.find("% DRAM -> compute-bound 9"), std::string::npos) << md;
  const std::string html = read_bytes(dir_.file("report") + "/report.html");
  EXPECT_NE(html.find("<span class=\"badge bound\">compute-bound</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"solverdict\">latency-bound (SM 40%, memory 45%), DRAM 4"), std::string::npos);
  EXPECT_NE(html.find("class=\"solfill decides\""), std::string::npos);
}

}  // namespace
}  // namespace gpuperf::testing
