// The report's source lines in a real browser: headless Chromium loads the report of a hand-built history
// with line data (fixture_source_lines.json), runs its script without errors, and the live DOM shows each
// kernel's annotated lines (the load line that lost coalescing flagged, the strided load at 8x its ideal
// sectors), each variant pair's lines side by side, another machine's lines from their stored text, and
// hostile line text as text. The Markdown report names the line in its finding. Skips only without Chromium.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>

#include <unistd.h>

#include "tests/reports/chromium.hpp"
#include "tests/reports/cli_fixture.hpp"

namespace gpuperf::reports {
namespace {

namespace fs = std::filesystem;
using namespace testing;

// The table row of `dom` that contains `needle`, from its "<tr" to its "</tr>", searched from the first
// kernel's source view on (the variant panels above show the same lines without change flags).
std::string row_with(const std::string& dom, const std::string& needle) {
  const auto views = dom.find("<summary>Source lines at");
  if (views == std::string::npos) return "";
  const auto at = dom.find(needle, views);
  if (at == std::string::npos) return "";
  const auto start = dom.rfind("<tr", at);
  const auto end = dom.find("</tr>", at);
  if (start == std::string::npos || end == std::string::npos) return "";
  return dom.substr(start, end - start);
}

class ReportSourceLines : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(std::string("source-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_EQ(gpuperf(dir_ / "lines.db", "--quiet import " + sh_quote(GPUPERF_SOURCE_FIXTURE)).exit_code, 0);
    const CommandResult rep = gpuperf(dir_ / "lines.db", "--quiet report --out " + sh_quote((dir_ / "out").string()));
    ASSERT_EQ(rep.exit_code, 0) << rep.output;
  }
  fs::path dir_;
};

TEST_F(ReportSourceLines, MarkdownNamesTheLineInTheFinding) {
  const std::string md = read_file(dir_ / "out" / "report.md");
  EXPECT_NE(md.find("line kernels/memory\\_access.cu:29 (was :23)  if (i &lt; n) out\\[j\\] = in\\[j\\];  global load "
                    "sectors per request 4.0 -> 8.0 (ideal 4.0)"),
            std::string::npos)
      << md;
}

TEST_F(ReportSourceLines, TheBrowserShowsEachKernelsLinesAndThePairsLineByLine) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "no chromium on PATH (Debian: apt-get install chromium; ci/setup.sh --test)";
  const fs::path html = fs::absolute(dir_ / "out" / "report.html");
  const std::string page = read_file(html);
  const CommandResult dom_run = run_command(
      chromium_command(chromium, dir_ / "profile-dom", "--dump-dom " + sh_quote("file://" + html.string())));
  ASSERT_EQ(dom_run.exit_code, 0) << dom_run.output.substr(0, 2000);
  const std::string& dom = dom_run.output;
  EXPECT_EQ(count(dom_run.output, "Uncaught"), 0u);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("data-charts-ready=\"(\\d+)\""))) << "the script did not finish";
  EXPECT_EQ(std::stoul(m[1].str()), count(page, "<svg class=\"chart\""));

  // Every kernel of both machines has its view (the unsupported one says why instead).
  EXPECT_GE(count(dom, "<details class=\"source\""), 10u);
  EXPECT_NE(dom.find("Source lines unsupported: SASS metrics need driver 525 or newer"), std::string::npos);

  // The load line that lost coalescing, flagged, with its sectors per request at 2x the ideal.
  const std::string lost = row_with(dom, "<code>kernels/memory_access.cu:29</code>");
  ASSERT_FALSE(lost.empty());
  EXPECT_NE(lost.find("class=\"changed\""), std::string::npos) << lost;
  EXPECT_NE(lost.find("if (i &lt; n) out[j] = in[j];"), std::string::npos) << lost;
  EXPECT_NE(lost.find("8.0 (2.0x ideal)"), std::string::npos) << lost;
  EXPECT_NE(lost.find("sfill waste"), std::string::npos) << lost;
  // The strided load at 8x its ideal, not flagged as changed (it moved down six lines, unchanged).
  const std::string strided = row_with(dom, "<code>kernels/memory_access.cu:39</code>");
  ASSERT_FALSE(strided.empty());
  EXPECT_NE(strided.find("out[i] = in[src];"), std::string::npos);
  EXPECT_NE(strided.find("32.0 (8.0x ideal)"), std::string::npos) << strided;
  EXPECT_EQ(strided.find("class=\"changed\""), std::string::npos) << strided;

  // The finding in the regressions table leads with one line: its bound, the counter that explains the time
  // and the moved source line (its first counter); the other hints are folded under it.
  const auto lead_at = dom.find("<div class=\"lead\">");
  ASSERT_NE(lead_at, std::string::npos);
  const std::string lead = dom.substr(lead_at, dom.find("</div>", lead_at) - lead_at);
  // (This history has no speed-of-light counters, so no bound: the counter comes first.)
  EXPECT_EQ(lead.find("<div class=\"lead\">gld_efficiency 100%<span class=\"nowrap\">&nbsp;-&gt;&nbsp;</span>50% "), 0u)
      << lead;
  EXPECT_NE(lead.find("<code>kernels/memory_access.cu:29 (was :23)  if (i &lt; n) out[j] = in[j];  global load "
                      "sectors per request 4.0 -&gt; 8.0 (ideal 4.0)</code>"),
            std::string::npos)
      << lead;
  EXPECT_NE(dom.find("</div><details><summary>"), std::string::npos);
  // The line tables say what the bar and the ideal tick mean.
  EXPECT_GE(count(dom, "<p class=\"muted slegend\">"), 10u);
  EXPECT_NE(dom.find("tick: its ideal, what coalesced, conflict-free accesses would take"), std::string::npos);
  // A chart's unit starts at the left edge, so a long one ("warps/issue") is not cut off.
  EXPECT_EQ(count(dom, "<text class=\"unit\" x=\"2\""), count(page, "<svg class=\"chart\""));
  EXPECT_NE(page.find("svg.chart .unit { text-anchor: start;"), std::string::npos);

  // The variant panels: naive matmul's row-and-column load beside tiled's shared loads.
  EXPECT_GE(count(dom, "Line by line: the memory access of each kernel"), 2u);
  const auto pair_at = dom.find("Line by line");
  ASSERT_NE(pair_at, std::string::npos);
  const std::string pair = dom.substr(pair_at, dom.find("</details>", pair_at) - pair_at);
  EXPECT_NE(pair.find("sum += a[row * n + k] * b[k * n + col];"), std::string::npos) << pair;
  EXPECT_NE(pair.find("sum += as[ty][k] * bs[k][tx];"), std::string::npos) << pair;

  // Another machine's lines, from their stored text: its files are not here.
  EXPECT_NE(dom.find("/home/dev/src/gpuperf/kernels/memory_access.cu:33"), std::string::npos);
  // Hostile names and line text stay text.
  EXPECT_EQ(count(dom, "<img"), 0u);
  EXPECT_EQ(count(dom, "<script>alert"), 0u);
  EXPECT_NE(dom.find("s = \"&lt;img src=x onerror=alert(1)&gt;\";"), std::string::npos);
  EXPECT_NE(dom.find("bench/&lt;evil&gt;.cu:7"), std::string::npos);

  // A screenshot for people (CI keeps it): the page drawn with its source views.
  const fs::path artifacts = fs::path(GPUPERF_TEST_WORK_DIR) / "artifacts";
  fs::create_directories(artifacts);
  const fs::path png = artifacts / "report-source-lines.png";
  fs::remove(png);
  const CommandResult shot = run_command(chromium_command(
      chromium, dir_ / "profile-shot",
      "--window-size=1280,4000 --screenshot=" + sh_quote(png.string()) + " " + sh_quote("file://" + html.string())));
  ASSERT_EQ(shot.exit_code, 0) << shot.output.substr(0, 2000);
  ASSERT_TRUE(fs::exists(png));
  EXPECT_GT(fs::file_size(png), 50000u);
  // And on a phone-sized screen, where the finding's lead line and folded hints must still read.
  const fs::path small = artifacts / "report-source-lines-small.png";
  fs::remove(small);
  const CommandResult small_shot = run_command(chromium_command(
      chromium, dir_ / "profile-small",
      "--window-size=400,1600 --screenshot=" + sh_quote(small.string()) + " " + sh_quote("file://" + html.string())));
  ASSERT_EQ(small_shot.exit_code, 0) << small_shot.output.substr(0, 2000);
  EXPECT_GT(fs::file_size(small), 20000u);
}

}  // namespace
}  // namespace gpuperf::reports
