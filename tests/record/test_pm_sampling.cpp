// `record --pm-sampling` without a GPU (profiler/record/pm_sampling.hpp, pm_attribution.hpp): the window's state
// machine, the per-chip metric choice, and made-up samples given to launches through the record file's parser and
// the aggregation, with known statistics.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "profiler/record/pm_sampling.hpp"
#include "profiler/record/recorder/aggregate.hpp"
#include "profiler/record/recorder/pm_attribution.hpp"
#include "profiler/record/recorder/record_file.hpp"

namespace gpuperf::record {
namespace {

using Action = PmWindow::Action;

TEST(PmWindow, LaunchesOpenItBeforeTheFirstCountedAndCloseItAfterTheLast) {
  PmWindow w(PmWindowSpec{"", 2, 3});
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(w.before_launch(), Action::none);
    EXPECT_EQ(w.after_launch(), Action::none);
  }
  EXPECT_EQ(w.before_launch(), Action::open);
  EXPECT_TRUE(w.is_open());
  EXPECT_EQ(w.after_launch(), Action::none);
  EXPECT_EQ(w.before_launch(), Action::none);
  EXPECT_EQ(w.after_launch(), Action::none);
  EXPECT_EQ(w.before_launch(), Action::none);
  EXPECT_EQ(w.after_launch(), Action::close);
  EXPECT_TRUE(w.is_done());
  EXPECT_EQ(w.launches_inside(), 3u);
  EXPECT_EQ(w.before_launch(), Action::none);  // once a process
  EXPECT_EQ(w.force_close(), Action::none);
}

TEST(PmWindow, AnNvtxRangeOpensAtItsPushAndClosesAtItsOwnPop) {
  PmWindow w(PmWindowSpec{"step", 0, 1000});
  EXPECT_EQ(w.before_launch(), Action::none);  // launches do not open an NVTX window
  EXPECT_EQ(w.on_push("warmup", 7, 1), Action::none);
  EXPECT_EQ(w.on_pop(7, 1), Action::none);
  EXPECT_EQ(w.on_push("step", 7, 2), Action::open);
  EXPECT_EQ(w.before_launch(), Action::none);
  EXPECT_EQ(w.after_launch(), Action::none);  // nor does a count close it
  EXPECT_EQ(w.on_push("forward", 7, 3), Action::none);
  EXPECT_EQ(w.on_pop(7, 3), Action::none);  // an inner range's pop
  EXPECT_EQ(w.on_pop(8, 2), Action::none);  // another thread's
  EXPECT_EQ(w.on_pop(7, 2), Action::close);
  EXPECT_EQ(w.launches_inside(), 1u);
  EXPECT_EQ(w.on_push("step", 7, 2), Action::none);
}

TEST(PmWindow, AWindowStillOpenAtTheEndIsClosed) {
  PmWindow w(PmWindowSpec{"", 0, 50});
  EXPECT_EQ(w.before_launch(), Action::open);
  EXPECT_EQ(w.force_close(), Action::close);
  EXPECT_TRUE(w.is_done());
}

const char* const kSm = "TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed";
const char* const kDram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
const char* const kClock = "gpc__cycles_elapsed.avg.per_second";

TEST(PmMetrics, TheTriageSetWhereTheChipTakesItInOnePassElseALighterOne) {
  const auto all = [](const std::string&) { return true; };
  const auto one = [](const std::vector<std::string>&) { return std::size_t{1}; };
  const std::vector<std::string> full = choose_pm_metrics(all, one);
  ASSERT_EQ(full.size(), 6u);
  EXPECT_EQ(full.front(), kSm);
  EXPECT_EQ(full.back(), kClock);
  // The full set needs two passes: the light one (L2, DRAMC, DRAM, clock).
  const auto two_for_six = [](const std::vector<std::string>& m) { return std::size_t{m.size() >= 6 ? 2u : 1u}; };
  const std::vector<std::string> light = choose_pm_metrics(all, two_for_six);
  ASSERT_EQ(light.size(), 4u);
  EXPECT_NE(light.front().find("LTS.TriageCompute"), std::string::npos);
  // A chip without TriageCompute names (GA100, AD102, GB202 in CUPTI 13.0): DRAM, SM active, clock.
  const auto no_triage = [](const std::string& m) { return !is_triage_name(m); };
  const std::vector<std::string> basic = choose_pm_metrics(no_triage, one);
  ASSERT_EQ(basic.size(), 3u);
  EXPECT_EQ(basic[0], kDram);
  // Nothing in one pass, or the clock alone: none.
  EXPECT_TRUE(choose_pm_metrics(all, [](const std::vector<std::string>&) { return std::size_t{2}; }).empty());
  EXPECT_TRUE(choose_pm_metrics([](const std::string& m) { return m == kClock; }, one).empty());
  EXPECT_STREQ(find_pm_metric(kClock)->name, "pm_gpc_clock");
  EXPECT_EQ(find_pm_metric("sm__throughput.avg.pct_of_peak_sustained_elapsed"), nullptr);
}

// A window from 1,000 to 100,000 ns sampled every 1,000 ns (samples [k, k+1000) for k = 1,000 .. 98,000, those from
// 90,000 to 92,000 lost), two metrics (DRAM, TriageCompute SM). Launches on device 0:
//   copy  [10,000, 20,000) and [70,000, 80,000): DRAM 80 / SM 5 in the first, 84 / 7 in the second;
//   short [30,200, 31,700): 1.5 intervals, over two samples' edges: no sample of its own;
//   left  [50,000, 60,000) on stream 7 and right [55,000, 65,000) on stream 8: concurrent, none attributed;
//   early [0, 500): before the window.
std::string window_file() {
  std::string t =
      "P 9 1 1000000000000 app\n"
      "N 1 copy\nN 2 short\nN 3 left\nN 4 right\nN 5 early\n"
      "K 0 1 7 1 0 500 1 1 1 32 1 1 5\n"
      "K 0 1 7 2 10000 20000 8 1 1 256 1 1 1\n"
      "K 0 1 7 3 30200 31700 1 1 1 32 1 1 2\n"
      "K 0 1 7 4 50000 60000 4 1 1 128 1 1 3\n"
      "K 0 1 8 5 55000 65000 4 1 1 128 1 1 4\n"
      "K 0 1 7 6 70000 80000 8 1 1 256 1 1 1\n";
  t += std::string("p ") + kDram + " " + kSm + "\n";
  for (int k = 1000; k <= 98000; k += 1000) {
    if (k >= 90000 && k < 93000) continue;
    const bool first = k >= 10000 && k < 20000, second = k >= 70000 && k < 80000;
    t += "s " + std::to_string(k) + " " + std::to_string(k + 1000) +
         (first    ? " 80 5"
          : second ? " 84 7"
                   : " 0 0") +
         "\n";
  }
  t += "w 0 1000 1000 100000 95 0 0 0 1300000000 3800000000 3700000000 5\nZ\n";
  return t;
}

TEST(PmAttribution, SamplesWhollyInsideALaunchAloneAreItsOwn) {
  const ProcessRecord p = parse_process_text(window_file(), "process-9.txt");
  ASSERT_TRUE(p.pm.window.has_value());
  EXPECT_EQ(p.pm.coverage.attributed, 20u);
  EXPECT_EQ(p.pm.coverage.straddling, 2u);   // the short launch's two
  EXPECT_EQ(p.pm.coverage.concurrent, 15u);  // 50,000 .. 65,000
  EXPECT_EQ(p.pm.coverage.outside, 58u);
  EXPECT_EQ(p.pm.coverage.lost, 3u);
  EXPECT_TRUE(p.pm.samples.empty());  // given to the launches, then dropped
  ASSERT_EQ(p.launches.size(), 6u);
  EXPECT_EQ(p.launches[0].pm.state, LaunchPm::none);  // began before the window
  EXPECT_EQ(p.launches[1].pm.state, LaunchPm::alone);
  EXPECT_EQ(p.launches[1].pm.samples, 10u);
  EXPECT_DOUBLE_EQ(p.launches[1].pm.means[0], 80.0);
  EXPECT_EQ(p.launches[2].pm.state, LaunchPm::alone);  // shorter than two intervals: no sample
  EXPECT_EQ(p.launches[2].pm.samples, 0u);
  EXPECT_EQ(p.launches[3].pm.state, LaunchPm::concurrent);  // two streams: device-wide counters are shared
  EXPECT_EQ(p.launches[4].pm.state, LaunchPm::concurrent);
  EXPECT_EQ(p.launches[3].pm.samples + p.launches[4].pm.samples, 0u);
  EXPECT_DOUBLE_EQ(p.launches[5].pm.means[1], 7.0);
}

const Measurement* find(const Result& r, const std::string& name) {
  for (const Measurement& m : r.metrics) {
    if (m.metric.name == name) return &m;
  }
  return nullptr;
}

TEST(PmAttribution, EachIdentityKeepsTheMeanAndSpreadOverItsLaunches) {
  const std::vector<ProcessRecord> processes{parse_process_text(window_file(), "process-9.txt")};
  KernelTotals totals;
  const auto runs = aggregate_launches(processes, "app", SelectOptions{}, totals);
  ASSERT_EQ(runs.count(0), 1u);
  std::map<std::string, const Result*> by_kernel;
  for (const Result& r : runs.at(0)) by_kernel[r.instance.name] = &r;
  const Result& copy = *by_kernel.at("app/copy");
  EXPECT_EQ(find(copy, "pm_launches_in_window")->summary.mean, 2.0);
  EXPECT_EQ(find(copy, "pm_launches_sampled")->summary.mean, 2.0);
  const Measurement* dram = find(copy, "pm_dram_throughput");
  ASSERT_NE(dram, nullptr);
  EXPECT_EQ(dram->status, Status::ok);
  EXPECT_EQ(dram->metric.unit, "%");
  EXPECT_EQ(dram->samples, (std::vector<double>{80.0, 84.0}));
  EXPECT_DOUBLE_EQ(dram->summary.mean, 82.0);
  EXPECT_NEAR(dram->summary.stdev, std::sqrt(8.0), 1e-12);
  EXPECT_DOUBLE_EQ(find(copy, "pm_sm_throughput")->summary.mean, 6.0);

  const Result& shorter = *by_kernel.at("app/short");
  EXPECT_EQ(find(shorter, "pm_launches_sampled")->summary.mean, 0.0);
  EXPECT_EQ(find(shorter, "pm_dram_throughput")->status, Status::skipped);
  EXPECT_NE(find(shorter, "pm_dram_throughput")->message.find("two intervals"), std::string::npos);
  const Result& left = *by_kernel.at("app/left");
  EXPECT_EQ(find(left, "pm_launches_concurrent")->summary.mean, 1.0);
  EXPECT_NE(find(left, "pm_sm_throughput")->message.find("overlapped another launch"), std::string::npos);
  EXPECT_EQ(find(*by_kernel.at("app/early"), "pm_launches_in_window"), nullptr);  // no pm_* outside the window
}

TEST(PmAttribution, TheSummarySaysWindowSamplesLostLaunchesAndHostTime) {
  const std::vector<ProcessRecord> processes{parse_process_text(window_file(), "process-9.txt")};
  const std::string s = describe_pm(processes);
  EXPECT_NE(s.find("window 0.1 ms at 1000 ns on GPU 0"), std::string::npos) << s;
  EXPECT_NE(s.find("95 samples (3 lost)"), std::string::npos) << s;
  EXPECT_NE(s.find("2 of 5 launches with a sample (2 concurrent)"), std::string::npos) << s;
  EXPECT_NE(s.find("decode + evaluate 7.50 s on the host (setup 1.30 s)"), std::string::npos) << s;
}

TEST(PmAttribution, MalformedLinesAreNamed) {
  EXPECT_THROW(parse_process_text("P 1 0 5 x\np a b\ns 10 20 1\n", "f"), InputError);  // one value for two metrics
  EXPECT_THROW(parse_process_text("P 1 0 5 x\np a\ns 20 10 1\n", "f"), InputError);    // ends before it starts
  EXPECT_THROW(parse_process_text("P 1 0 5 x\nw 0 1000 5 1\n", "f"), InputError);
}

}  // namespace
}  // namespace gpuperf::record
