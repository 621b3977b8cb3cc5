// The HTML report in a real browser: headless Chromium loads the fixture's report offline, runs its script
// without errors, draws every chart, shows a hover tooltip, and leaves a screenshot for people to look at
// (<build>/tests/reports/artifacts/report.png, kept by CI). Skips only when no Chromium is installed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

#include <unistd.h>

#include "tests/reports/chromium.hpp"
#include "tests/reports/cli_fixture.hpp"

namespace gpuperf::reports {
namespace {

namespace fs = std::filesystem;
using namespace testing;

// Console errors from the page (Chromium logs them as INFO:CONSOLE lines on stderr).
std::string page_errors(const std::string& log) {
  std::string errors;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("CONSOLE") != std::string::npos &&
        (line.find("Uncaught") != std::string::npos || line.find("Error") != std::string::npos)) {
      errors += line + "\n";
    }
  }
  return errors;
}

TEST(ReportBrowser, LoadsWithoutErrorsDrawsChartsAndShowsTooltips) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "no chromium on PATH (Debian: apt-get install chromium; ci/setup.sh --test)";

  const fs::path dir = fresh_dir("browser");
  ASSERT_EQ(gpuperf(dir / "fixture.db", "--quiet import " + sh_quote(GPUPERF_REPORT_FIXTURE)).exit_code, 0);
  const CommandResult rep = gpuperf(dir / "fixture.db", "--quiet report --out " + sh_quote((dir / "out").string()));
  ASSERT_EQ(rep.exit_code, 0) << rep.output;
  const fs::path html = fs::absolute(dir / "out" / "report.html");
  const std::string page = read_file(html);
  const std::size_t charts = count(page, "<svg class=\"chart\"");
  ASSERT_GT(charts, 10u);

  // The DOM after the page's script ran, with the self-test hover of the first chart.
  const CommandResult dom = run_command(chromium_command(
      chromium, dir / "profile-dom", "--dump-dom " + sh_quote("file://" + html.string() + "#selftest")));
  ASSERT_EQ(dom.exit_code, 0) << dom.output.substr(0, 2000);
  EXPECT_EQ(page_errors(dom.output), "");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom.output, m, std::regex("data-charts-ready=\"(\\d+)\"")))
      << "the page's script did not finish";
  EXPECT_EQ(std::stoul(m[1].str()), charts);
  ASSERT_TRUE(std::regex_search(dom.output, m, std::regex("data-selftest-tip=\"([^\"]*)\"")));
  const std::string tip = m[1].str();
  // The first chart is matmul's duration pair; its last run is 2026-10-12 at commit b181f3489d.
  EXPECT_NE(tip.find("2026-10-12 02:00"), std::string::npos) << tip;
  EXPECT_NE(tip.find("commit b181f3489d"), std::string::npos) << tip;
  EXPECT_NE(tip.find("tiled: 329."), std::string::npos) << tip;
  EXPECT_NE(tip.find(" ns)"), std::string::npos) << tip;  // the exact value in the metric's unit
  // The hostile benchmark name is still text in the live DOM, and no injected element exists.
  EXPECT_EQ(count(dom.output, "<img"), 0u);
  EXPECT_EQ(count(dom.output, "<script>alert"), 0u);

  // The screenshot: a tall window shows the summary, the regressions, the pairs and the first trends.
  const fs::path artifacts = fs::path(GPUPERF_TEST_WORK_DIR) / "artifacts";
  fs::create_directories(artifacts);
  const fs::path png = artifacts / "report.png";
  fs::remove(png);
  const CommandResult shot = run_command(chromium_command(
      chromium, dir / "profile-shot",
      "--window-size=1280,3200 --screenshot=" + sh_quote(png.string()) + " " + sh_quote("file://" + html.string())));
  ASSERT_EQ(shot.exit_code, 0) << shot.output.substr(0, 2000);
  EXPECT_EQ(page_errors(shot.output), "");
  ASSERT_TRUE(fs::exists(png));
  EXPECT_EQ(read_file(png).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(fs::file_size(png), 50000u);  // a drawn page, not a blank one
}

// A team's notes (gpuperf annotate) on the trend charts, as a reader's browser draws them: each a marker a
// pointer reaches (its dot above the chart's hover area) with the note as its hover text; an acknowledged
// finding shows its answer; and on a phone-sized window (390 px) the notes make the page no wider than the
// same report without them, and no table reaches past the window's edge (a wide one scrolls inside itself;
// without the phone style sheet four tables did, and the page was 1165 px wide in a 500 px window).
TEST(ReportBrowser, DrawsTheTeamsNotesAndAnswersOnWideAndSmallScreens) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "no chromium on PATH (Debian: apt-get install chromium; ci/setup.sh --test)";
  const fs::path dir = fresh_dir("browser-notes");
  const fs::path db = dir / "fixture.db";
  ASSERT_EQ(gpuperf(db, "--quiet import " + sh_quote(GPUPERF_REPORT_FIXTURE)).exit_code, 0);
  const CommandResult note = gpuperf(db,
                                     "annotate --run 00000001-0000-4000-8000-000000000006 --by ana "
                                     "'driver 590 installed <b>'");
  ASSERT_EQ(note.exit_code, 0) << note.output;
  const CommandResult rep = gpuperf(db, "--quiet report --out " + sh_quote((dir / "out").string()));
  ASSERT_EQ(rep.exit_code, 0) << rep.output;
  const fs::path html = fs::absolute(dir / "out" / "report.html");
  // The same history without the note, for the page's width.
  ASSERT_EQ(gpuperf(dir / "plain.db", "--quiet import " + sh_quote(GPUPERF_REPORT_FIXTURE)).exit_code, 0);
  ASSERT_EQ(gpuperf(dir / "plain.db", "--quiet report --out " + sh_quote((dir / "plain").string())).exit_code, 0);
  const fs::path plain = fs::absolute(dir / "plain" / "report.html");
  const std::string page = read_file(html);
  EXPECT_GT(count(page, "<g class=\"note\""), 0u);
  EXPECT_NE(page.find("Note on run 00000001: driver 590 installed &lt;b&gt;"), std::string::npos);
  EXPECT_NE(read_file(dir / "out" / "report.md").find("driver 590 installed"), std::string::npos);

  const auto page_width = [&](const fs::path& file, const std::string& size, const std::string& tag) {
    const CommandResult dom = run_command(
        chromium_command(chromium, dir / ("profile-" + tag + size),
                         "--window-size=" + size + " --dump-dom " + sh_quote("file://" + file.string() + "#selftest")));
    std::smatch w;
    return std::regex_search(dom.output, w, std::regex("data-selftest-width=\"(\\d+)\"")) ? std::stol(w[1].str()) : -1L;
  };
  for (const std::string size : {"1280,900", "390,900"}) {
    SCOPED_TRACE(size);
    const CommandResult dom = run_command(
        chromium_command(chromium, dir / ("profile-" + size),
                         "--window-size=" + size + " --dump-dom " + sh_quote("file://" + html.string() + "#selftest")));
    ASSERT_EQ(dom.exit_code, 0) << dom.output.substr(0, 2000);
    EXPECT_EQ(page_errors(dom.output), "");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(dom.output, m, std::regex("data-selftest-notes=\"(\\d+) of (\\d+): ([^\"]*)\"")))
        << "the page's self-test did not look at the notes";
    EXPECT_GT(std::stoul(m[2].str()), 0u);
    EXPECT_EQ(m[1].str(), m[2].str()) << "a note's dot is covered by something else";
    EXPECT_NE(m[3].str().find("Note on run 00000001: driver 590 installed"), std::string::npos) << m[3].str();
    EXPECT_EQ(count(dom.output, "<b>"), 0u);  // the note is text, never markup
    const long with_notes = page_width(html, size, "notes-"), without = page_width(plain, size, "plain-");
    EXPECT_GT(without, 0);
    EXPECT_EQ(with_notes, without) << "the notes made the page wider";
    ASSERT_TRUE(std::regex_search(dom.output, m, std::regex("data-selftest-viewport=\"(\\d+)\"")));
    const long viewport = std::stol(m[1].str());
    // Headless Chromium makes no window narrower than 500 px: "390" is 500, still the phone layout (< 700 px).
    EXPECT_LE(viewport, std::max(500L, std::stol(size.substr(0, size.find(',')))));
    EXPECT_LE(with_notes, viewport) << "the page is wider than the window: it scrolls sideways";
    ASSERT_TRUE(std::regex_search(dom.output, m, std::regex("data-selftest-wide-tables=\"([^\"]*)\"")));
    EXPECT_EQ(m[1].str(), "0") << "a table reaches past the window's edge";
  }
}

}  // namespace
}  // namespace gpuperf::reports
