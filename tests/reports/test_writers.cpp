// Both writers over hand-built models: hostile strings stay text, the Markdown stays within its budget and
// keeps its table columns, and empty or multi-machine models give sensible reports.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "reports/writers.hpp"
#include "tests/reports/model_builders.hpp"

namespace gpuperf::reports {
namespace {

using namespace testing;

std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = haystack.find(needle); pos != std::string::npos; pos = haystack.find(needle, pos + 1)) ++n;
  return n;
}

// Table cells of a Markdown row: unescaped pipes.
std::size_t unescaped_pipes(const std::string& line) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++n;
  }
  return n;
}

void expect_tables_keep_their_columns(const std::string& md) {
  std::istringstream in(md);
  std::string line;
  std::size_t columns = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '|') {
      columns = 0;
      continue;
    }
    if (columns == 0) {
      columns = unescaped_pipes(line);
    } else {
      EXPECT_EQ(unescaped_pipes(line), columns) << line;
    }
  }
}

ReportInput hostile_input() {
  db::MachineRow m = machine_row(1, "host<iframe src=x>", "\"GPU\" & 'co'");
  std::vector<db::RunInfo> runs;
  for (int i = 0; i < 12; ++i) {
    runs.push_back(run_info(m, i + 1, i));
    runs.back().branch = "</script><script>alert(3)</script>";
    runs.back().commit = "`|<b>bold</b>" + std::to_string(i);
    runs.back().label = "label|<i>";
  }
  auto base = instance("evil/<script>alert(1)</script>", {{"p", std::string("a|b`c`\n<img src=x onerror=alert(2)>")}});
  auto variant = instance("evil/|pipe*em*_u_", {{"p", std::string("a|b`c`\n<img src=x onerror=alert(2)>")}});
  ReportInput in;
  in.query.branch = "</script><script>alert(5)</script>";
  in.tool_version = "0.1.0<b>";
  in.machines = {m};
  in.runs = runs;
  std::vector<double> d(12, 1000), d2(12, 3000);
  for (int i = 6; i < 12; ++i) d2[i] = 3600;
  in.series.push_back(series(m, base, "duration", runs, d, 20));
  in.series.push_back(series(m, variant, "duration", runs, d2, 20));
  in.series.push_back(series(m, variant, "gld_efficiency", runs, std::vector<double>(12, 50)));
  in.series.push_back(series(m, base, "gld_efficiency", runs, std::vector<double>(12, 100)));
  in.series.push_back(series(m, variant, "</title><svg onload=alert(6)>", runs, std::vector<double>(12, 1)));
  in.change_points.push_back(change(in.series[1], 6, 3000, 3600, {"<svg onload=alert(4)> | `x`", "line\nbreak"}));
  in.baselines = {{variant.name, base.name}};
  return in;
}

TEST(HtmlWriter, HostileStringsStayText) {
  const std::string html = render_html(build_report_model(hostile_input()));
  EXPECT_EQ(count(html, "<script"), 2u);  // the data block and the hover script, nothing else
  EXPECT_EQ(count(html, "</script>"), 2u);
  EXPECT_EQ(count(html, "<iframe"), 0u);
  EXPECT_EQ(count(html, "<img"), 0u);
  EXPECT_EQ(count(html, "<svg onload"), 0u);
  EXPECT_EQ(count(html, "<b>"), 0u);
  EXPECT_EQ(count(html, "</title><svg"), 0u);
  EXPECT_NE(html.find("evil/&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;svg onload=alert(4)&gt;"), std::string::npos);
  // Attribute values cannot be closed early: no raw quote inside aria-label values.
  std::regex aria("aria-label=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), aria); it != std::sregex_iterator(); ++it) {
    EXPECT_EQ((*it)[1].str().find('<'), std::string::npos);
  }
}

TEST(HtmlWriter, DrawsChartsForPairsAndTrends) {
  const std::string html = render_html(build_report_model(hostile_input()));
  // Pair: duration, gld_efficiency, ratio. Trends: the variant's duration; the base's duration (noisy samples,
  // same median every run), the flat gld and the flat hostile metric are listed as unchanged, not drawn.
  EXPECT_EQ(count(html, "<svg class=\"chart\""), 4u);
  // The regression is flagged on its trend chart, the pair's duration chart and the ratio chart.
  EXPECT_EQ(count(html, "class=\"marker regression\""), 3u);
  EXPECT_NE(html.find("Unchanged in all 12 runs"), std::string::npos);
  EXPECT_NE(html.find("<!DOCTYPE html>"), std::string::npos);
  EXPECT_EQ(html.find("http://") == std::string::npos || html.find("http://www.w3.org/2000/svg") != std::string::npos,
            true);
  // Nothing is fetched: no element with a src or href to elsewhere.
  EXPECT_FALSE(std::regex_search(html, std::regex("<[a-zA-Z]+[^>]*\\s(src|href)=\"(https?:|//)")));
  EXPECT_EQ(count(html, "<link"), 0u);
}

TEST(MarkdownWriter, HostileStringsCannotBreakTables) {
  const std::string md = render_markdown(build_report_model(hostile_input()));
  EXPECT_EQ(count(md, "<script"), 0u);
  EXPECT_EQ(count(md, "<img"), 0u);
  EXPECT_EQ(count(md, "<svg"), 0u);
  EXPECT_EQ(count(md, "<b>"), 0u);
  EXPECT_EQ(count(md, "<iframe"), 0u);
  EXPECT_NE(md.find("### Regressions (1)"), std::string::npos);
  expect_tables_keep_their_columns(md);
}

TEST(Writers, EmptyModelSaysThereIsNothing) {
  const ReportModel empty = build_report_model(ReportInput{});
  const std::string html = render_html(empty);
  const std::string md = render_markdown(empty);
  EXPECT_NE(html.find("No runs to report."), std::string::npos);
  EXPECT_NE(md.find("No runs to report."), std::string::npos);
  EXPECT_NE(html.find("data-charts-ready"), std::string::npos);  // the script still runs on an empty page
}

TEST(Writers, OneRunGivesAReport) {
  db::MachineRow m = machine_row(1, "solo");
  std::vector<db::RunInfo> runs = {run_info(m, 1, 0)};
  ReportInput in;
  in.machines = {m};
  in.runs = runs;
  in.series.push_back(series(m, instance("vector_add/basic", {}), "duration", runs, {1234}));
  const ReportModel model = build_report_model(in);
  const std::string html = render_html(model);
  const std::string md = render_markdown(model);
  EXPECT_EQ(count(html, "<svg class=\"chart\""), 1u);  // a single point is drawn, not called "unchanged"
  EXPECT_EQ(count(html, "<circle"), 1u);
  EXPECT_NE(md.find("1.234 µs"), std::string::npos);
  expect_tables_keep_their_columns(md);
}

// Two runs of a recorded program: three kernels in the newest run (one new), one kernel only in the older run.
TEST(Writers, RecordedProgramsListTheirHeaviestKernelsAtTheNewestRun) {
  db::MachineRow m = machine_row(1, "gpu1");
  std::vector<db::RunInfo> runs = {run_info(m, 1, 0), run_info(m, 2, 1)};
  ReportInput in;
  in.machines = {m};
  in.runs = runs;
  auto kernel = [&](const std::string& name, std::vector<double> duration, std::vector<double> share,
                    std::vector<double> launches, std::vector<db::RunInfo> at) {
    const auto inst = instance("train/" + name, {{"block", std::string("256x1x1")}, {"grid", std::string("128x1x1")}});
    in.series.push_back(series(m, inst, "duration", at, duration));
    in.series.push_back(series(m, inst, "gpu_time_share", at, share));
    in.series.push_back(series(m, inst, "launches", at, launches));
    std::vector<double> total;
    for (std::size_t i = 0; i < duration.size(); ++i) total.push_back(duration[i] * launches[i]);
    in.series.push_back(series(m, inst, "gpu_time_total", at, total));
  };
  kernel("sgemm<128>", {100000, 110000}, {70, 72}, {10, 10}, runs);
  kernel("softmax", {20000, 20000}, {30, 27.5}, {20, 20}, runs);
  kernel("new_kernel", {1000}, {0.5}, {8}, {runs[1]});
  kernel("gone_kernel", {5000}, {1}, {3}, {runs[0]});
  const ReportModel model = build_report_model(in);
  ASSERT_EQ(model.machines.size(), 1u);
  const auto& programs = model.machines[0].programs;
  ASSERT_EQ(programs.size(), 1u);
  EXPECT_EQ(programs[0].program, "train");
  EXPECT_EQ(programs[0].run, 1u);
  ASSERT_EQ(programs[0].kernels.size(), 3u);  // gone_kernel did not run in the newest run
  const auto& inst = model.machines[0].instances;
  EXPECT_EQ(inst[programs[0].kernels[0].instance].instance.name, "train/sgemm<128>");
  EXPECT_EQ(inst[programs[0].kernels[1].instance].instance.name, "train/softmax");
  EXPECT_EQ(inst[programs[0].kernels[2].instance].instance.name, "train/new_kernel");
  EXPECT_NEAR(*programs[0].kernels[0].change_pct, 10.0, 1e-9);
  EXPECT_TRUE(programs[0].kernels[2].is_new);
  EXPECT_FALSE(programs[0].kernels[2].change_pct.has_value());
  EXPECT_DOUBLE_EQ(programs[0].kernel_time_ns, 110000.0 * 10 + 20000.0 * 20 + 1000.0 * 8);

  const std::string md = render_markdown(model);
  const auto section = md.find("### Recorded programs");
  ASSERT_NE(section, std::string::npos) << md;
  EXPECT_NE(md.find("**train**: 3 kernels, 1.508 ms of kernel time"), std::string::npos) << md;
  // Markdown-escaped names ('<' and '[' would start HTML and links); the change is the median duration's.
  const auto sgemm = md.find("| sgemm&lt;128>\\[block=256x1x1,grid=128x1x1\\] | 10 | 110 µs | 72% | +10.0% |", section);
  const auto softmax = md.find("| softmax\\[", section);
  const auto fresh = md.find("| new\\_kernel\\[", section);
  EXPECT_NE(sgemm, std::string::npos) << md.substr(section, 800);
  EXPECT_LT(sgemm, softmax);
  EXPECT_LT(softmax, fresh);
  EXPECT_NE(md.find("| new |", fresh), std::string::npos);
  EXPECT_EQ(md.find("gone", section), md.find("gone", md.find("### Duration trends")));  // not in the section
  expect_tables_keep_their_columns(md);
  const std::string html = render_html(model);
  EXPECT_NE(html.find("<h3>Recorded programs</h3>"), std::string::npos);
  EXPECT_EQ(count(html, "<table class=\"programs\">"), 1u);

  // A report of benchmarks alone has no such section.
  EXPECT_EQ(render_markdown(build_report_model(hostile_input())).find("Recorded programs"), std::string::npos);
}

TEST(Writers, FindingsShowTheirStateAndWhatMovedWithThem) {
  db::MachineRow m = machine_row(1, "nightly");
  std::vector<db::RunInfo> runs;
  for (int i = 0; i < 12; ++i) runs.push_back(run_info(m, i + 1, i));
  auto copy = instance("memory/coalesced", {});
  auto tiled = instance("matmul/tiled", {});
  std::vector<double> d(12, 54000), gld(12, 100), regs(12, 32);
  d[11] = 99000;  // tonight
  gld[11] = 50;
  for (int i = 8; i < 12; ++i) regs[i] = 40;
  ReportInput in;
  in.machines = {m};
  in.runs = runs;
  in.series.push_back(series(m, copy, "duration", runs, d, 20));
  in.series.push_back(series(m, copy, "gld_efficiency", runs, gld));
  in.series.push_back(series(m, tiled, "duration", runs, std::vector<double>(12, 2e5), 20));
  in.series.push_back(series(m, tiled, "registers", runs, regs));
  analysis::ChangePoint tonight = change(in.series[0], 11, 54000, 99000, {"gld_efficiency 100% -> 50%"});
  tonight.unconfirmed = true;
  tonight.runs_after = 1;
  in.change_points = {tonight, change(in.series[1], 11, 100, 50), change(in.series[3], 8, 32, 40)};
  const ReportModel model = build_report_model(in);
  const std::string md = render_markdown(model);
  const std::string html = render_html(model);
  EXPECT_NE(md.find("### Regressions (2)"), std::string::npos) << md;
  EXPECT_NE(md.find("| unconfirmed (1 run) | gld\\_efficiency 100% -> 50% |"), std::string::npos) << md;
  EXPECT_NE(md.find("| confirmed | _counter only: no duration change detected_ |"), std::string::npos) << md;
  EXPECT_EQ(count(md, "| gld\\_efficiency |"), 0u);  // not a row of its own
  expect_tables_keep_their_columns(md);
  // The finding's one line: its hint, the arrow kept on one line.
  EXPECT_NE(html.find("<td class=\"nowrap\">unconfirmed (1 run)</td><td><div class=\"lead\">gld_efficiency "
                      "100%<span class=\"nowrap\">&nbsp;-&gt;&nbsp;</span>50%</div>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<em>counter only: no duration change detected</em>"), std::string::npos);
}

TEST(MarkdownWriter, LargeSuiteStaysUnderTheLimitAndPointsToTheHtml) {
  db::MachineRow a = machine_row(1, "a"), b = machine_row(2, "b");
  ReportInput in;
  in.machines = {a, b};
  for (const auto* m : {&a, &b}) {
    std::vector<db::RunInfo> runs;
    for (int i = 0; i < 365; ++i) runs.push_back(run_info(*m, m->id * 1000 + i, i));
    in.runs.insert(in.runs.end(), runs.begin(), runs.end());
    for (int k = 0; k < 400; ++k) {
      auto inst = instance("family" + std::to_string(k % 20) + "/variant-with-a-long-name" + std::to_string(k),
                           {{"n", std::int64_t{k}}});
      std::vector<double> v(365, 1000 + k);
      for (int i = 200; i < 365; ++i) v[i] *= 1.2;
      in.series.push_back(series(*m, inst, "duration", runs, v));
      in.change_points.push_back(change(in.series.back(), 200, 1000 + k, (1000 + k) * 1.2, {"hint one", "hint two"}));
      if (k % 2 == 1)
        in.baselines[inst.name] =
            "family" + std::to_string(k % 20) + "/variant-with-a-long-name" + std::to_string(k - 1);
    }
  }
  const ReportModel model = build_report_model(in);
  EXPECT_EQ(model.total_regressions(), 800u);
  const std::string md = render_markdown(model);
  EXPECT_LT(md.size(), 60000u);
  EXPECT_NE(md.find("more not shown here; see the HTML report (report.html)"), std::string::npos);
  expect_tables_keep_their_columns(md);
  MarkdownOptions small;
  small.max_chars = 8000;
  EXPECT_LE(render_markdown(model, small).size(), 8000u);
}

}  // namespace
}  // namespace gpuperf::reports
