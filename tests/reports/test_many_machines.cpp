// Reports of many machines: each finding once across machines (all of them, or which), and the zoom on the
// newest runs that a long history's charts get.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reports/chart_zoom.hpp"
#include "reports/cross_machine.hpp"
#include "reports/writers.hpp"
#include "tests/reports/model_builders.hpp"

namespace gpuperf::reports {
namespace {

using namespace testing;

// `machines` runners of `nights` runs each: suite/k10 steps up 10% at night `code_change` on every machine,
// suite/k20 15% at night `sick` on machine 3 only; suite/k30 never changes.
ReportInput team(int machines, int nights, int code_change, int sick) {
  ReportInput in;
  std::int64_t run_id = 1;
  for (int mi = 1; mi <= machines; ++mi) {
    const db::MachineRow m = machine_row(mi, "runner-" + std::to_string(mi));
    in.machines.push_back(m);
    std::vector<db::RunInfo> runs;
    for (int night = 0; night < nights; ++night) runs.push_back(run_info(m, run_id++, night));
    in.runs.insert(in.runs.end(), runs.begin(), runs.end());
    const auto level = [&](int from, double factor) {
      std::vector<double> v;
      for (int night = 0; night < nights; ++night) v.push_back(night >= from ? 1000 * factor : 1000);
      return v;
    };
    in.series.push_back(series(m, instance("suite/k10", {}), "duration", runs, level(code_change, 1.10), 5));
    in.change_points.push_back(change(in.series.back(), static_cast<std::size_t>(code_change), 1000, 1100));
    in.series.push_back(
        series(m, instance("suite/k20", {}), "duration", runs, level(mi == 3 ? sick : nights, 1.15), 5));
    if (mi == 3) in.change_points.push_back(change(in.series.back(), static_cast<std::size_t>(sick), 1000, 1150));
    in.series.push_back(series(m, instance("suite/k30", {}), "duration", runs, level(nights, 1.0), 5));
  }
  return in;
}

TEST(ManyMachines, EachFindingIsListedOnceWithTheMachinesItIsOn) {
  const ReportModel model = build_report_model(team(16, 40, 20, 30));
  const std::vector<CrossMachineFinding> found = cross_machine_findings(model);
  ASSERT_EQ(found.size(), 2u);
  // The code change first: on more machines.
  EXPECT_EQ(found[0].metric, "duration");
  EXPECT_EQ(model.machines[found[0].machine].instances[found[0].instance].instance.name, "suite/k10");
  EXPECT_TRUE(found[0].on_all());
  EXPECT_TRUE(found[0].same_commit);
  EXPECT_EQ(found[0].on_text(), "all 16 machines");
  EXPECT_NEAR(found[0].min_change_pct, 10.0, 1e-9);
  EXPECT_EQ(model.machines[found[1].machine].instances[found[1].instance].instance.name, "suite/k20");
  EXPECT_FALSE(found[1].on_all());
  EXPECT_EQ(found[1].on_text(), "1 of 16 machines: runner-3 (NVIDIA H200, GPU-runner-3)");

  const std::string md = render_markdown(model);
  EXPECT_NE(md.find("### Findings across machines (2)"), std::string::npos);
  EXPECT_NE(md.find("| suite/k10 | duration | regression | **all 16 machines** (one commit) | +10.0% |"),
            std::string::npos)
      << md.substr(0, 3000);
  EXPECT_NE(
      md.find(
          "| suite/k20 | duration | regression | 1 of 16 machines: runner-3 (NVIDIA H200, GPU-runner-3) | +15.0% |"),
      std::string::npos);
  const std::string html = render_html(model);
  EXPECT_NE(html.find("<h3>Findings across machines</h3>"), std::string::npos);
  EXPECT_NE(html.find("<strong>all 16 machines</strong>"), std::string::npos);
}

TEST(ManyMachines, OneMachineHasNoCrossMachineSection) {
  const ReportModel model = build_report_model(team(1, 40, 20, 30));
  EXPECT_TRUE(cross_machine_findings(model).empty());
  EXPECT_EQ(render_markdown(model).find("Findings across machines"), std::string::npos);
}

TEST(ManyMachines, ALongHistoryZoomsOnTheNewestRunsWhereTheNewestChangeIs) {
  EXPECT_FALSE(wants_zoom(kZoomAfterRuns, kZoomAfterRuns - 1)) << "short histories draw each run wide already";
  EXPECT_TRUE(wants_zoom(366, 365));
  EXPECT_TRUE(wants_zoom(366, 366 - kZoomRuns));
  EXPECT_FALSE(wants_zoom(366, 366 - kZoomRuns - 1)) << "a change before the zoom's runs gets none";

  // A year: tonight's step (the last run) on machine 3's suite/k20.
  const ReportModel model = build_report_model(team(2, 366, 100, 365));
  const std::string html = render_html(model);
  // Only the series whose newest change is among the newest runs: k20 on the machine with the step. k10's
  // change (run 100) is not.
  std::size_t zooms = 0;
  for (std::size_t at = html.find("<figure class=\"zoom\">"); at != std::string::npos;
       at = html.find("<figure class=\"zoom\">", at + 1)) {
    ++zooms;
  }
  EXPECT_EQ(zooms, 0u) << "team(2, ...) has no machine 3";
  const ReportModel three = build_report_model(team(3, 366, 100, 365));
  const std::string html3 = render_html(three);
  zooms = 0;
  for (std::size_t at = html3.find("<figure class=\"zoom\">"); at != std::string::npos;
       at = html3.find("<figure class=\"zoom\">", at + 1)) {
    ++zooms;
  }
  EXPECT_EQ(zooms, 1u);
  EXPECT_NE(html3.find("newest 30 of 366 runs"), std::string::npos);

  // The zoomed spec: the newest runs re-indexed from 0, earlier points, markers and levels left out.
  ChartSpec full;
  std::vector<RunRef> runs(100);
  full.runs = &runs;
  ChartLine line;
  for (std::size_t i = 0; i < 100; ++i) line.points.emplace_back(i, i < 95 ? 1.0 : 2.0);
  full.lines.push_back(line);
  full.markers.push_back({10, true, "old"});
  full.markers.push_back({95, true, "tonight"});
  full.levels.push_back({0, 95, 1.0});
  full.levels.push_back({95, 99, 2.0});
  const std::vector<RunRef> recent(runs.begin() + 70, runs.end());
  const ChartSpec z = zoom_spec(full, recent, 70);
  ASSERT_EQ(z.lines.size(), 1u);
  ASSERT_EQ(z.lines[0].points.size(), 30u);
  EXPECT_EQ(z.lines[0].points.front().first, 0u);
  EXPECT_EQ(z.lines[0].points[25].second, 2.0);
  ASSERT_EQ(z.markers.size(), 1u);
  EXPECT_EQ(z.markers[0].run, 25u);
  ASSERT_EQ(z.levels.size(), 2u);
  EXPECT_EQ(z.levels[0].from, 0u);
  EXPECT_EQ(z.levels[0].to, 25u);
  EXPECT_EQ(z.hover_index, -1);
}

}  // namespace
}  // namespace gpuperf::reports
