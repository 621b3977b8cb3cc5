// PyTorch-length kernel names end to end: a history of a recorded program whose kernels have names of up to
// 2,553 characters is imported, and every table cell people read (the HTML and Markdown reports, `detect
// --format md`, `compare --format md`) stays within 160 characters, while the HTML keeps each full name on
// hover and in an expandable element, and JSON keeps it whole. In headless Chromium (when installed) the page
// loads without errors; screenshots of it, closed and with every full name opened, are left in
// work/artifacts/long_names*.png for people to look at.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <regex>

#include <unistd.h>

#include "core/short_name.hpp"
#include "reports/escape.hpp"
#include "tests/core/kernel_names.hpp"
#include "tests/reports/cli_fixture.hpp"

namespace gpuperf::reports {
namespace {

namespace fs = std::filesystem;
using namespace testing;
using namespace gpuperf::testing;

constexpr std::size_t kCellMax = 160;  // a short name (120) and its launch shape
const std::string kDots = "\xE2\x80\xA6";

std::string sha(int i) {
  char buf[41];
  std::snprintf(buf, sizeof buf, "%08x%032x", 0xc0ffee00u + static_cast<unsigned>(i), static_cast<unsigned>(i * 7919));
  return buf;
}

// The recorded program's kernels, as `gpuperf record --name train` names them.
std::vector<std::string> kernels() {
  // Demangled, less "void " and the parameter list.
  const auto identity = [](const std::string& full) { return full.substr(5, full.rfind(">(") + 1 - 5); };
  std::string lambda3 = kVectorizedDivFloor;
  for (auto at = lambda3.find("{lambda()#4}"); at != std::string::npos; at = lambda3.find("{lambda()#4}", at))
    lambda3[at + 10] = '3';
  return {pytorch_distribution_kernel("normal"),
          pytorch_distribution_kernel("uniform"),
          pytorch_distribution_kernel("bernoulli"),
          identity(kVectorizedAdd),
          identity(kVectorizedDivFloor),
          identity(lambda3),
          identity(kCutlassSgemm),
          "add_one"};
}

// 12 nightly runs of one H100; the normal_() kernel slows down 40 -> 52 µs from the 7th on.
std::string history() {
  nlohmann::json runs = nlohmann::json::array();
  const auto names = kernels();
  for (int night = 0; night < 12; ++night) {
    nlohmann::json results = nlohmann::json::array();
    for (std::size_t k = 0; k < names.size(); ++k) {
      const double level = (k == 0 && night >= 6 ? 52000.0 : 40000.0) / static_cast<double>(k + 1);
      nlohmann::json samples = nlohmann::json::array();
      for (int i = 0; i < 10; ++i)
        samples.push_back(level * (1 + 0.002 * ((i * 7 + night * 3 + static_cast<int>(k)) % 5 - 2)));
      results.push_back(
          {{"benchmark", "train/" + names[k]},
           {"params", {{"grid", "1024x1x1"}, {"block", "256x1x1"}, {"nvtx", "step"}}},
           {"status", "ok"},
           {"metrics",
            {{"duration", {{"unit", "ns"}, {"samples", samples}}},
             {"launches", {{"unit", "count"}, {"value", 10}}},
             {"gpu_time_total", {{"unit", "ns"}, {"value", level * 10}}},
             {"gpu_time_share", {{"unit", "%"}, {"value", 100.0 / static_cast<double>(names.size())}}}}}});
    }
    char day[32];
    std::snprintf(day, sizeof day, "2026-11-%02dT02:00:00Z", night + 1);
    runs.push_back({{"uuid", keyed_uuid("long-names-" + std::to_string(night))},
                    {"started_at", day},
                    {"commit", sha(night)},
                    {"branch", "main"},
                    {"label", "record"},
                    {"command", "torchrun --nproc_per_node 1 train.py"},
                    {"exit_status", 0},
                    {"machine",
                     {{"hostname", "ci-h100-01"},
                      {"gpu_name", "NVIDIA H100 80GB HBM3"},
                      {"gpu_uuid", "GPU-1111"},
                      {"driver", "580.95.05"},
                      {"cuda", "13.0"}}},
                    {"results", results}});
  }
  return nlohmann::json{{"format", "gpuperf-results"}, {"version", 1}, {"runs", runs}}.dump(1);
}

// Markdown as GitHub shows it: backslash escapes and the few entities undone.
std::string md_text(std::string s) {
  s = std::regex_replace(s, std::regex(R"(\\(.))"), "$1");
  s = std::regex_replace(s, std::regex("&lt;"), "<");
  s = std::regex_replace(s, std::regex("&gt;"), ">");
  return std::regex_replace(s, std::regex("&amp;"), "&");
}

// The cells of every Markdown table row (split at unescaped '|').
std::vector<std::string> md_cells(const std::string& doc) {
  std::vector<std::string> cells;
  std::istringstream in(doc);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != '|') continue;
    std::string cell;
    for (std::size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) {
        cell += line.substr(i, 2);
        ++i;
      } else if (line[i] == '|') {
        cell = md_text(cell);
        const auto from = cell.find_first_not_of(' '), to = cell.find_last_not_of(' ');
        cells.push_back(from == std::string::npos ? std::string() : cell.substr(from, to + 1 - from));
        cell.clear();
      } else {
        cell += line[i];
      }
    }
  }
  return cells;
}

// What a <td> or a <summary> shows while closed: tags and the expandable full name left out, entities undone.
std::vector<std::string> html_cells(const std::string& page) {
  std::vector<std::string> cells;
  const std::regex cell(R"(<(td|summary)[^>]*>([\s\S]*?)</\1>)");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), cell); it != std::sregex_iterator(); ++it) {
    std::string text = std::regex_replace((*it)[2].str(), std::regex(R"(<code class="full">[\s\S]*?</code>)"), "");
    text = std::regex_replace(text, std::regex(R"(<span class="badge[^>]*>[^<]*</span>)"), "");  // "1 regression"
    text = std::regex_replace(text, std::regex("<[^>]*>"), "");
    text = std::regex_replace(text, std::regex("&quot;"), "\"");
    text = std::regex_replace(text, std::regex("&#39;"), "'");
    cells.push_back(md_text(text));
  }
  return cells;
}

// Every cell within kCellMax; returns how many show a folded PyTorch distribution kernel.
std::size_t check_cells(const std::vector<std::string>& cells, const std::string& what) {
  std::size_t folded = 0;
  for (const auto& c : cells) {
    EXPECT_LE(utf8_length(c), kCellMax) << what << ": " << c.substr(0, 300);
    if (c.find("distribution_elementwise_grid_stride_kernel<" + kDots) != std::string::npos) ++folded;
  }
  return folded;
}

std::string find_chromium() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/snap/bin"}) {
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
      const fs::path p = fs::path(dir) / name;
      if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
  }
  return "";
}

class LongNames : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fresh_dir("long_names");
    std::ofstream(dir_ / "history.json") << history();
    import_ = gpuperf(dir_ / "h.db", "--quiet import " + sh_quote((dir_ / "history.json").string()));
  }
  // Each test fails (not skips, as a failure in SetUpTestSuite would show) when the history was not imported.
  void SetUp() override { ASSERT_EQ(import_.exit_code, 0) << import_.output; }
  static fs::path dir_;
  static CommandResult import_;
};
fs::path LongNames::dir_;
CommandResult LongNames::import_;

TEST_F(LongNames, ReportCellsStayShortAndTheHtmlKeepsTheFullNames) {
  const CommandResult rep = gpuperf(dir_ / "h.db", "--quiet report --out " + sh_quote((dir_ / "out").string()));
  ASSERT_EQ(rep.exit_code, 0) << rep.output;
  const std::string md = read_file(dir_ / "out" / "report.md");
  const std::string page = read_file(dir_ / "out" / "report.html");
  EXPECT_GE(check_cells(md_cells(md), "report.md"), 3u);        // the regression, the program, the trends
  EXPECT_GE(check_cells(html_cells(page), "report.html"), 6u);  // ... and each instance's summary

  // Every kernel's full identity is in the page: on hover (title) and expanded (code.full or p.fullname).
  for (const auto& name : kernels()) {
    const std::string full = html_escape("train/" + name + "[block=256x1x1,grid=1024x1x1,nvtx=step]");
    if (fold_name("train/" + name) == "train/" + name) continue;  // short already: shown whole
    EXPECT_NE(page.find("title=\"" + full + "\""), std::string::npos) << name.substr(0, 100);
    EXPECT_NE(page.find("<code class=\"full\">" + full + "</code>"), std::string::npos) << name.substr(0, 100);
    EXPECT_NE(page.find("Full name: <code>" + full + "</code>"), std::string::npos) << name.substr(0, 100);
  }
  // Names that fold alike are told apart: normal, uniform and bernoulli by their lambdas' scope.
  for (const char* d : {"normal", "uniform", "bernoulli"}) {
    EXPECT_NE(md_text(md).find(std::string(d) + "_and_transform<" + kDots + ">()::{lambda#2}"), std::string::npos) << d;
  }
  // The page is as large as its content, not as its names: the 2,553-character names add their full text a
  // few times each, not once per cell of every table.
  EXPECT_LT(page.size(), 400000u);
}

TEST_F(LongNames, DetectAndCompareMarkdownCellsStayShortAndJsonKeepsTheFullName) {
  const CommandResult md = gpuperf(dir_ / "h.db", "detect --format md");
  ASSERT_EQ(md.exit_code, 0) << md.output;
  EXPECT_GE(check_cells(md_cells(md.output), "detect --format md"), 1u) << md.output;  // duration and total time
  const CommandResult json = gpuperf(dir_ / "h.db", "detect --format json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const auto changes = nlohmann::json::parse(json.output)["changes"];
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes[0]["benchmark"], "train/" + pytorch_distribution_kernel("normal"));

  const CommandResult cmp = gpuperf(dir_ / "h.db", "compare --format md --all " + sha(5) + " " + sha(6));
  ASSERT_EQ(cmp.exit_code, 1) << cmp.output;  // the normal_() kernel's regression
  EXPECT_GE(check_cells(md_cells(cmp.output), "compare --format md"), 3u) << cmp.output;
  // The terminal table too: no line holds a 2,553-character name.
  const CommandResult text = gpuperf(dir_ / "h.db", "compare --all " + sha(5) + " " + sha(6));
  std::istringstream lines(text.output);
  for (std::string line; std::getline(lines, line);) EXPECT_LT(utf8_length(line), 400u) << line.substr(0, 300);
}

TEST_F(LongNames, TheHtmlLoadsInChromiumWithTheFullNamesClosedAndOpened) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "no chromium installed (Debian: apt-get install chromium; ci/setup.sh --test)";
  const fs::path out = dir_ / "browser";
  const CommandResult rep = gpuperf(dir_ / "h.db", "--quiet report --out " + sh_quote(out.string()));
  ASSERT_EQ(rep.exit_code, 0) << rep.output;
  const fs::path html = fs::absolute(out / "report.html");
  // The same page with every full name opened, as a reader who clicked them sees it.
  const fs::path opened = fs::absolute(out / "report-open.html");
  std::ofstream(opened) << std::regex_replace(read_file(html), std::regex(R"(<details class="kname">)"),
                                              "<details class=\"kname\" open>");
  const fs::path artifacts = fs::path(GPUPERF_TEST_WORK_DIR) / "artifacts";
  fs::create_directories(artifacts);
  const std::string flags =
      " --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking"
      " --disable-component-update --disable-sync --disable-extensions --hide-scrollbars"
      " --enable-logging=stderr --v=0 --user-data-dir=";
  const CommandResult dom = run_command("timeout 120 " + sh_quote(chromium) + flags + sh_quote((out / "p1").string()) +
                                        " --dump-dom " + sh_quote("file://" + html.string()));
  ASSERT_EQ(dom.exit_code, 0) << dom.output.substr(0, 2000);
  EXPECT_EQ(dom.output.find("Uncaught"), std::string::npos) << dom.output.substr(0, 2000);
  EXPECT_NE(dom.output.find("data-charts-ready"), std::string::npos) << "the page's script did not finish";
  EXPECT_NE(dom.output.find("<details class=\"kname\"><summary title=\"train/at::native::"), std::string::npos);
  for (const auto& [page, png] :
       {std::pair{html, artifacts / "long_names.png"}, {opened, artifacts / "long_names_open.png"}}) {
    fs::remove(png);
    const CommandResult shot = run_command(
        "timeout 120 " + sh_quote(chromium) + flags + sh_quote((out / "p2").string()) +
        " --window-size=1280,2400 --screenshot=" + sh_quote(png.string()) + " " + sh_quote("file://" + page.string()));
    ASSERT_EQ(shot.exit_code, 0) << shot.output.substr(0, 2000);
    ASSERT_TRUE(fs::exists(png));
    EXPECT_GT(fs::file_size(png), 50000u);  // a drawn page, not a blank one
  }
}

}  // namespace
}  // namespace gpuperf::reports
