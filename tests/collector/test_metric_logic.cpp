// Metric resolution, --metrics parsing, pass planning, evaluation and the back-end seam's plain functions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "profiler/collector.hpp"
#include "profiler/cupti/range_backend.hpp"
#include "profiler/metric_catalog.hpp"
#include "profiler/metric_eval.hpp"
#include "profiler/metric_plan.hpp"
#include "tests/collector/fakes.hpp"

namespace gpuperf {
namespace {

std::string input_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(ParseMetricsOption, NoneDefaultAllAndLists) {
  EXPECT_FALSE(parse_metrics_option("none").enabled);
  auto def = parse_metrics_option("default");
  EXPECT_TRUE(def.enabled);
  EXPECT_EQ(def.names, default_collector_metrics());
  EXPECT_EQ(parse_metrics_option("").names, default_collector_metrics());
  auto all = parse_metrics_option("all");
  // 20 profiler metrics, the 4 TriageCompute speed-of-light ones and 4 static attributes.
  EXPECT_EQ(all.names.size(), 28u);
  // Only "default" lets the chip read its speed of light under the TriageCompute names (speed_of_light.hpp).
  EXPECT_TRUE(def.from_default);
  EXPECT_TRUE(parse_metrics_option("gld_efficiency,default").from_default);
  EXPECT_FALSE(all.from_default);
  EXPECT_FALSE(parse_metrics_option("sm_throughput,memory_throughput").from_default);
  EXPECT_EQ(std::count(all.names.begin(), all.names.end(), "duration"), 0);

  auto list = parse_metrics_option(" gld_efficiency , dram__bytes_read.sum,gld_efficiency");
  EXPECT_EQ(list.names, (std::vector<std::string>{"gld_efficiency", "dram__bytes_read.sum"}));

  auto with_default = parse_metrics_option("default,sm__cycles_active.avg");
  EXPECT_EQ(with_default.names.size(), default_collector_metrics().size() + 1);
  EXPECT_EQ(with_default.names.back(), "sm__cycles_active.avg");
}

TEST(ParseMetricsOption, TimingMetricsAreDroppedBecauseTheTimingPassAlwaysRuns) {
  auto sel = parse_metrics_option("duration,gbps,registers");
  EXPECT_EQ(sel.names, std::vector<std::string>{"registers"});
  EXPECT_FALSE(parse_metrics_option("duration").enabled);
}

TEST(ParseMetricsOption, RecordedProgramMetricsAreNeitherCollectedNorDropped) {
  // "all" means every metric the collector can measure; launches and the GPU time totals are not among them.
  for (const char* name : {"launches", "gpu_time_total", "gpu_time_share"}) {
    auto all = parse_metrics_option("all");
    EXPECT_EQ(std::count(all.names.begin(), all.names.end(), name), 0) << name;
    // Asked for by name, they are refused with the command that counts them, not silently skipped.
    std::string e = input_error([name] { parse_metrics_option(std::string("registers,") + name); });
    EXPECT_TRUE(contains(e, std::string("'") + name +
                                "' is counted over a program's kernel launches by `gpuperf "
                                "record"))
        << e;
  }
  std::string e = input_error([] { parse_metrics_option("launchs"); });
  EXPECT_TRUE(contains(e, "unknown metric 'launchs'")) << e;
  EXPECT_FALSE(contains(e, "did you mean launches")) << e;  // close names offer only what can be collected
}

TEST(ParseMetricsOption, BadListsAreInputErrorsWithCloseNames) {
  std::string e = input_error([] { parse_metrics_option("gld_efficency"); });
  EXPECT_TRUE(contains(e, "unknown metric 'gld_efficency'")) << e;
  EXPECT_TRUE(contains(e, "did you mean gld_efficiency")) << e;
  e = input_error([] { parse_metrics_option("occupancy"); });
  EXPECT_TRUE(contains(e, "achieved_occupancy")) << e;
  EXPECT_TRUE(contains(e, "theoretical_occupancy")) << e;
  EXPECT_TRUE(contains(input_error([] { parse_metrics_option("a,,b"); }), "empty item"));
  EXPECT_TRUE(contains(input_error([] { parse_metrics_option("none,registers"); }), "cannot be combined"));
}

TEST(ResolveMetrics, OurNamesCarryTraitsAndPerfworksNames) {
  auto rs = resolve_metric_requests({"shared_bank_conflicts", "registers"}, nullptr);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(rs[0].source, MetricSource::profiler);
  EXPECT_EQ(rs[0].perfworks.size(), 2u);
  EXPECT_EQ(rs[0].info.unit, "count");
  EXPECT_EQ(rs[1].source, MetricSource::static_attr);
  EXPECT_TRUE(rs[1].perfworks.empty());
}

TEST(ResolveMetrics, TimingMetricsAreRefusedWithTheReason) {
  std::string e = input_error([] { resolve_metric_requests({"duration"}, nullptr); });
  EXPECT_TRUE(contains(e, "timing pass")) << e;
  EXPECT_TRUE(contains(input_error([] { resolve_metric_requests({}, nullptr); }), "no metrics"));
}

TEST(ResolveMetrics, RecordedProgramMetricsAreRefusedWithTheReason) {
  for (const char* name : {"launches", "gpu_time_total", "gpu_time_share"}) {
    std::string e = input_error([name] { resolve_metric_requests({"gld_efficiency", name}, nullptr); });
    EXPECT_TRUE(contains(e, "gpuperf record -- APP ARGS")) << e;
  }
}

TEST(ResolveMetrics, RawNamesGetUnitsFromTheChipsDimensions) {
  auto log = std::make_shared<testing::EventLog>();
  testing::FakeBackend backend(log);
  auto catalog = backend_catalog(backend);
  auto rs =
      resolve_metric_requests({"dram__bytes_read.sum", "sm__warps_active.avg.pct_of_peak_sustained_active",
                               "gpu__time_duration.sum", "dram__bytes_write.sum.per_second", "sm__warps_active.sum"},
                              catalog.get());
  EXPECT_EQ(rs[0].info.unit, "bytes");
  EXPECT_EQ(rs[0].perfworks, std::vector<std::string>{"dram__bytes_read.sum"});
  EXPECT_EQ(rs[1].info.unit, "%");
  EXPECT_EQ(rs[2].info.unit, "ns");
  EXPECT_EQ(rs[3].info.unit, "bytes/s");
  EXPECT_EQ(rs[4].info.unit, "count");
  EXPECT_TRUE(rs[4].info.deterministic);
  EXPECT_FALSE(rs[1].info.deterministic);
}

TEST(CheckPerfworksName, SuggestsOtherSuffixesOfAKnownBase) {
  auto log = std::make_shared<testing::EventLog>();
  testing::FakeBackend backend(log);
  auto catalog = backend_catalog(backend);
  EXPECT_EQ(input_error([&] { check_perfworks_name("dram__bytes_read.sum", *catalog); }), "");
  std::string e = input_error([&] { check_perfworks_name("dram__bytes_read.total", *catalog); });
  EXPECT_TRUE(contains(e, "'dram__bytes_read' needs another suffix")) << e;
  EXPECT_TRUE(contains(e, "dram__bytes_read.")) << e;
  e = input_error([&] { check_perfworks_name("dram__byte_write.sum", *catalog); });
  EXPECT_TRUE(contains(e, "did you mean dram__bytes_write.sum")) << e;
  e = input_error([&] { check_perfworks_name("zzzz__nothing_like_it.sum", *catalog); });
  EXPECT_TRUE(contains(e, "is not a metric of GH100")) << e;
}

TEST(ListPerfworksMetrics, BasesWithoutFilterFullNamesWithIt) {
  auto log = std::make_shared<testing::EventLog>();
  testing::FakeBackend backend(log);
  auto catalog = backend_catalog(backend);
  auto bases = list_perfworks_metrics(*catalog, "");
  EXPECT_EQ(bases.size(), 11u);
  EXPECT_TRUE(std::is_sorted(bases.begin(), bases.end()));
  auto dram = list_perfworks_metrics(*catalog, "dram__bytes_read.s");
  EXPECT_EQ(dram, (std::vector<std::string>{"dram__bytes_read.sum", "dram__bytes_read.sum.per_second"}));
}

TEST(PlanMetrics, DeduplicatesSharedCountersAndKeepsRequestOrder) {
  auto plan = plan_metrics(resolve_metric_requests(
      {"registers", "shared_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"}, nullptr));
  EXPECT_EQ(plan.perfworks, (std::vector<std::string>{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                                                      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"}));
  EXPECT_TRUE(plan.terms[0].empty());
  EXPECT_EQ(plan.terms[1], (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(plan.terms[2], (std::vector<std::size_t>{1}));
  EXPECT_TRUE(plan.needs_profiler());
  EXPECT_TRUE(plan.needs_static());
  EXPECT_FALSE(plan_metrics(resolve_metric_requests({"registers"}, nullptr)).needs_profiler());
}

TEST(PlanMetrics, SassMetricsCanGetAConfigurationOfTheirOwn) {
  auto requests = resolve_metric_requests({"gld_efficiency", "dram_bytes_read", "gst_efficiency"}, nullptr);
  auto one = plan_metrics(requests);
  ASSERT_EQ(one.configurations.size(), 1u);
  EXPECT_EQ(one.configurations[0], (std::vector<std::size_t>{0, 1, 2}));
  auto two = plan_metrics(requests, true);
  ASSERT_EQ(two.configurations.size(), 2u);
  EXPECT_EQ(two.configurations[0], std::vector<std::size_t>{1});       // hardware counters first
  EXPECT_EQ(two.configurations[1], (std::vector<std::size_t>{0, 2}));  // then the SASS-patched ones
  // Nothing to separate: one configuration.
  EXPECT_EQ(plan_metrics(resolve_metric_requests({"gld_efficiency"}, nullptr), true).configurations.size(), 1u);
  EXPECT_TRUE(plan_metrics(resolve_metric_requests({"registers"}, nullptr), true).configurations.empty());
  EXPECT_TRUE(is_sass_metric("smsp__sass_inst_executed_op_shared_ld.sum"));
  EXPECT_FALSE(is_sass_metric("sm__warps_active.avg.pct_of_peak_sustained_active"));
}

TEST(PlanMetrics, ElapsedRatesGetKernelRangesOfTheirOwn) {
  auto requests =
      resolve_metric_requests({"gld_efficiency", "sm_throughput", "instructions", "dram_throughput"}, nullptr);
  auto plan = plan_metrics(requests);
  ASSERT_EQ(plan.configurations.size(), 2u);
  EXPECT_EQ(plan.configurations[0], (std::vector<std::size_t>{0, 2}));  // SASS and plain counters: user ranges
  EXPECT_EQ(plan.configurations[1], (std::vector<std::size_t>{1, 3}));  // speed of light: kernel ranges
  EXPECT_EQ(plan.kernel_ranges, (std::vector<bool>{false, true}));
  // Only elapsed rates: one configuration, with kernel ranges.
  auto sol = plan_metrics(resolve_metric_requests({"sm_throughput"}, nullptr));
  ASSERT_EQ(sol.configurations.size(), 1u);
  EXPECT_EQ(sol.kernel_ranges, std::vector<bool>{true});
  // Rates over active cycles do not need them.
  EXPECT_TRUE(is_elapsed_rate("sm__throughput.avg.pct_of_peak_sustained_elapsed"));
  EXPECT_FALSE(is_elapsed_rate("smsp__issue_active.avg.pct_of_peak_sustained_active"));
  EXPECT_FALSE(is_elapsed_rate("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"));
}

TEST(PlanSessions, IdempotentTogetherOthersAloneAndCapped) {
  using R = cupti::SessionReplay;
  auto s = plan_sessions({true, false, true, true, false}, ReplayMode::automatic, 2);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].replay, R::user);
  EXPECT_EQ(s[0].targets, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(s[1].replay, R::kernel);
  EXPECT_EQ(s[1].targets, std::vector<std::size_t>{1});
  EXPECT_EQ(s[2].replay, R::user);
  EXPECT_EQ(s[2].targets, std::vector<std::size_t>{3});
  EXPECT_EQ(s[3].targets, std::vector<std::size_t>{4});

  auto user = plan_sessions({false, false}, ReplayMode::user, 64);
  ASSERT_EQ(user.size(), 1u);
  EXPECT_EQ(user[0].replay, R::user);
  EXPECT_EQ(plan_sessions({true, true}, ReplayMode::kernel, 64).size(), 2u);
  EXPECT_TRUE(plan_sessions({}, ReplayMode::automatic, 64).empty());

  // Elapsed rates: idempotent targets in auto-range sessions with user replay, batched like user ranges.
  auto sol = plan_sessions({true, false, true, true}, ReplayMode::automatic, 2, true);
  ASSERT_EQ(sol.size(), 3u);
  EXPECT_EQ(sol[0].replay, R::auto_range_user);
  EXPECT_EQ(sol[0].targets, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(sol[1].replay, R::kernel);
  EXPECT_EQ(sol[2].replay, R::auto_range_user);
  EXPECT_EQ(sol[2].targets, std::vector<std::size_t>{3});
  // A mode the user chose stays: user ranges, or kernel replay one target each.
  EXPECT_EQ(plan_sessions({true, true}, ReplayMode::user, 64, true).at(0).replay, R::user);
  EXPECT_EQ(plan_sessions({true, true}, ReplayMode::kernel, 64, true).size(), 2u);
}

TEST(UniqueRangeNames, RepeatsGetASuffix) {
  EXPECT_EQ(unique_range_names({"a", "b", "a", "a"}), (std::vector<std::string>{"a", "b", "a#2", "a#3"}));
}

TEST(TheoreticalOccupancy, WarpsPerSmOverMaximum) {
  StaticAttributes a;
  a.max_threads_per_sm = 2048;
  a.threads_per_block = 256;
  a.active_blocks_per_sm = 8;
  EXPECT_DOUBLE_EQ(theoretical_occupancy_pct(a), 100.0);
  a.threads_per_block = 1024;
  a.active_blocks_per_sm = 1;
  EXPECT_DOUBLE_EQ(theoretical_occupancy_pct(a), 50.0);
  a.threads_per_block = 48;  // two warps, one of them half empty
  a.active_blocks_per_sm = 16;
  EXPECT_DOUBLE_EQ(theoretical_occupancy_pct(a), 50.0);
  a.threads_per_block = 0;
  EXPECT_DOUBLE_EQ(theoretical_occupancy_pct(a), 0.0);
}

TEST(EvaluateTarget, NoBlockFitsIsAFailureNotZeroOccupancy) {
  auto plan = plan_metrics(resolve_metric_requests({"theoretical_occupancy"}, nullptr));
  StaticAttributes a;
  a.max_threads_per_sm = 2048;
  a.threads_per_block = 1024;
  a.active_blocks_per_sm = 0;
  auto ms = evaluate_target(plan, nullptr, Status::failed, "", &a, "");
  EXPECT_EQ(ms[0].status, Status::failed);
  EXPECT_TRUE(contains(ms[0].message, "fits no block")) << ms[0].message;
}

TEST(EvaluateTarget, ProfilerFailureKeepsItsStatusAndMessage) {
  auto plan = plan_metrics(resolve_metric_requests({"dram_bytes_read", "registers"}, nullptr));
  StaticAttributes a;
  a.registers = 32;
  auto ms = evaluate_target(plan, nullptr, Status::unsupported, "this GPU cannot be profiled", &a, "");
  EXPECT_EQ(ms[0].status, Status::unsupported);
  EXPECT_EQ(ms[0].message, "this GPU cannot be profiled");
  EXPECT_EQ(ms[1].status, Status::ok);
  EXPECT_DOUBLE_EQ(ms[1].summary.median, 32);
}

TEST(BackendSeam, CuptiCodesClassified) {
  using K = cupti::FailureKind;
  EXPECT_EQ(cupti::classify_cupti_result(35), K::insufficient_privileges);
  EXPECT_EQ(cupti::classify_cupti_result(40), K::insufficient_privileges);
  EXPECT_EQ(cupti::classify_cupti_result(39), K::profiler_busy);
  EXPECT_EQ(cupti::classify_cupti_result(43), K::unsupported_device);
  EXPECT_EQ(cupti::classify_cupti_result(17), K::invalid_metric);
  EXPECT_EQ(cupti::classify_cupti_result(999), K::other);
}

TEST(BackendSeam, UnsupportedDevicesSayWhy) {
  cupti::DeviceSupport s;
  s.overall = cupti::SupportLevel::supported;
  EXPECT_EQ(cupti::describe_unsupported(s, "H200"), "");
  s.overall = cupti::SupportLevel::unsupported;
  s.architecture = cupti::SupportLevel::unsupported;
  s.vgpu = cupti::SupportLevel::disabled;
  std::string why = cupti::describe_unsupported(s, "Tesla P100");
  EXPECT_TRUE(contains(why, "Tesla P100")) << why;
  EXPECT_TRUE(contains(why, "compute capability 7.0")) << why;
  EXPECT_TRUE(contains(why, "vGPU with profiling disabled")) << why;
  // The SASS metrics back end (source lines) says which API refused the device, with the same reasons.
  why = cupti::describe_unsupported(s, "Tesla P100 (device 0)", cupti::ProfilerApi::sass_metrics);
  EXPECT_TRUE(contains(why, "GPU 'Tesla P100 (device 0)' cannot be profiled by CUPTI's SASS metrics: ")) << why;
  EXPECT_TRUE(contains(why, "no SASS metrics")) << why;
  EXPECT_FALSE(contains(why, "Range Profiler")) << why;
  EXPECT_TRUE(contains(why, "vGPU with profiling disabled")) << why;
}

TEST(ReplayModeNames, RoundTrip) {
  for (auto m : {ReplayMode::automatic, ReplayMode::user, ReplayMode::kernel}) {
    EXPECT_EQ(replay_mode_from_string(to_string(m)), m);
  }
  EXPECT_TRUE(contains(input_error([] { replay_mode_from_string("app"); }), "auto, user, kernel"));
}

}  // namespace
}  // namespace gpuperf
