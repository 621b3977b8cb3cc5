// The report model from hand-built history: runs on the x axis, change points joined to their series,
// variant pairs and their ratio, several machines, and the empty case.
#include <gtest/gtest.h>
#include <algorithm>

#include "reports/family_pairs.hpp"
#include "reports/report_model.hpp"
#include "tests/reports/model_builders.hpp"

namespace gpuperf::reports {
namespace {

using namespace testing;

struct Fixture {
  db::MachineRow m = machine_row(1, "gpu-a");
  std::vector<db::RunInfo> runs;
  ReportInput in;

  explicit Fixture(int nights = 10) {
    for (int i = 0; i < nights; ++i) runs.push_back(run_info(m, 100 + i, i));
    in.machines = {m};
    in.runs = runs;
    in.tool_version = "0.1.0";
  }
  void add(const BenchmarkInstance& inst, const std::string& metric, const std::vector<double>& v) {
    in.series.push_back(series(m, inst, metric, runs, v));
  }
};

std::vector<double> flat(std::size_t n, double v) { return std::vector<double>(n, v); }

TEST(ReportModel, EmptyInputGivesNoMachines) {
  ReportModel model = build_report_model(ReportInput{});
  EXPECT_TRUE(model.machines.empty());
  EXPECT_EQ(model.total_runs(), 0u);
  EXPECT_EQ(model.total_regressions(), 0u);
}

TEST(ReportModel, RunsInstancesAndSeriesInDisplayOrder) {
  Fixture f;
  auto b = instance("vector_add/basic", {{"block", std::int64_t{256}}});
  auto a = instance("matmul/naive", {{"n", std::int64_t{1024}}});
  f.add(b, "gld_efficiency", flat(10, 100));
  f.add(b, "duration", flat(10, 5000));
  f.add(a, "duration", flat(10, 9000));
  ReportModel model = build_report_model(f.in);
  ASSERT_EQ(model.machines.size(), 1u);
  const MachineReport& mr = model.machines[0];
  EXPECT_EQ(mr.runs.size(), 10u);
  EXPECT_EQ(mr.runs.front().run_id, 100);
  ASSERT_TRUE(mr.latest.has_value());
  EXPECT_EQ(mr.latest->id, 109);
  ASSERT_EQ(mr.instances.size(), 2u);
  EXPECT_EQ(mr.instances[0].instance.name, "matmul/naive");
  ASSERT_EQ(mr.instances[1].series.size(), 2u);
  EXPECT_EQ(mr.instances[1].series[0].metric.name, "duration");  // the traits table's order
  EXPECT_EQ(mr.series_count, 3u);
  EXPECT_TRUE(mr.instances[1].series[1].constant());
  EXPECT_NE(mr.instances[1].series[1].at(3), nullptr);
  EXPECT_EQ(mr.title(), "gpu-a (NVIDIA H200, GPU-gpu-a)");  // as every command names it
}

TEST(ReportModel, ChangePointsJoinTheirSeriesAndSortNewestFirst) {
  Fixture f;
  auto inst = instance("stencil1d/shared", {{"n", std::int64_t{1 << 20}}});
  std::vector<double> d = flat(10, 1000);
  for (int i = 6; i < 10; ++i) d[i] = 1200;
  f.add(inst, "duration", d);
  std::vector<double> occ = flat(10, 50);
  for (int i = 3; i < 10; ++i) occ[i] = 60;
  f.add(inst, "achieved_occupancy", occ);
  const db::Series& dur = f.in.series[0];
  const db::Series& ao = f.in.series[1];
  f.in.change_points.push_back(change(ao, 3, 50, 60));
  f.in.change_points.push_back(change(dur, 6, 1000, 1200, {"achieved_occupancy 50% -> 60%"}));
  // A change on another machine and one whose run is outside the window are not shown.
  analysis::ChangePoint other = change(dur, 6, 1000, 1200);
  other.machine = "GPU-elsewhere";
  f.in.change_points.push_back(other);
  analysis::ChangePoint outside = change(dur, 6, 1000, 1200);
  outside.run_id = 9999;
  f.in.change_points.push_back(outside);

  ReportModel model = build_report_model(f.in);
  const MachineReport& mr = model.machines[0];
  ASSERT_EQ(mr.regressions.size(), 1u);
  EXPECT_EQ(mr.regressions[0].run, 6u);
  EXPECT_EQ(mr.regressions[0].change.hints.size(), 1u);
  ASSERT_EQ(mr.improvements.size(), 1u);  // occupancy went up: higher is better
  EXPECT_EQ(mr.improvements[0].run, 3u);
  const TrendSeries* s = mr.instances[0].find("duration");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->changes.size(), 1u);
  EXPECT_EQ(s->change_runs[0], 6u);
  EXPECT_EQ(mr.instances[0].regressions, 1u);
  EXPECT_EQ(mr.instances[0].improvements, 1u);
  EXPECT_EQ(model.total_regressions(), 1u);
}

TEST(ReportModel, CountersMovingWithTheDurationAreOneFinding) {
  Fixture f;
  auto inst = instance("vector_add/basic", {{"block", std::int64_t{64}}});
  std::vector<double> d = flat(10, 1000), g = flat(10, 500), occ = flat(10, 90), gld = flat(10, 100);
  for (int i = 5; i < 10; ++i) {
    d[i] = 1250;
    g[i] = 400;
    occ[i] = 70;
    gld[i] = 50;
  }
  f.add(inst, "duration", d);
  f.add(inst, "gbps", g);
  f.add(inst, "achieved_occupancy", occ);
  f.add(inst, "gld_efficiency", gld);
  // detect's hints name the counter; the noisy occupancy change was placed one run late.
  f.in.change_points.push_back(change(f.in.series[0], 5, 1000, 1250, {"gld_efficiency 100% -> 50%"}));
  f.in.change_points.push_back(change(f.in.series[1], 5, 500, 400));
  f.in.change_points.push_back(change(f.in.series[2], 6, 90, 70));
  f.in.change_points.push_back(change(f.in.series[3], 5, 100, 50));
  ReportModel model = build_report_model(f.in);
  const MachineReport& mr = model.machines[0];
  ASSERT_EQ(mr.regressions.size(), 1u);  // one finding: the duration, with what moved with it
  const ChangeRow& row = mr.regressions[0];
  EXPECT_EQ(row.change.metric.name, "duration");
  EXPECT_FALSE(row.counter_only);
  ASSERT_EQ(row.with.size(), 2u);  // GB/s follows the duration and adds nothing
  EXPECT_EQ(row.hints, (std::vector<std::string>{"gld_efficiency 100% -> 50%", "achieved_occupancy 90% -> 70%"}));
  EXPECT_EQ(mr.instances[0].regressions, 1u);
  EXPECT_EQ(model.total_regressions(), 1u);
  // Every change keeps its flag on its own chart.
  for (const char* metric : {"duration", "gbps", "achieved_occupancy", "gld_efficiency"}) {
    EXPECT_EQ(mr.instances[0].find(metric)->changes.size(), 1u) << metric;
  }
}

TEST(ReportModel, ACounterThatMovedAloneIsListedAsSuch) {
  Fixture f;
  auto inst = instance("matmul/tiled", {{"n", std::int64_t{1024}}});
  std::vector<double> regs = flat(10, 32);
  for (int i = 7; i < 10; ++i) regs[i] = 40;
  f.add(inst, "duration", flat(10, 2000));
  f.add(inst, "registers", regs);
  f.in.change_points.push_back(change(f.in.series[1], 7, 32, 40));
  // Another instance's duration change at the same run is not this counter's.
  auto other = instance("matmul/naive", {{"n", std::int64_t{1024}}});
  std::vector<double> d = flat(10, 3000);
  for (int i = 7; i < 10; ++i) d[i] = 3600;
  f.add(other, "duration", d);
  f.in.change_points.push_back(change(f.in.series[2], 7, 3000, 3600));
  ReportModel model = build_report_model(f.in);
  const MachineReport& mr = model.machines[0];
  ASSERT_EQ(mr.regressions.size(), 2u);
  const ChangeRow& counter =
      mr.regressions[0].change.metric.name == "registers" ? mr.regressions[0] : mr.regressions[1];
  EXPECT_EQ(counter.change.metric.name, "registers");
  EXPECT_TRUE(counter.counter_only);
  EXPECT_TRUE(counter.hints.empty());
  const ChangeRow& dur = mr.regressions[0].change.metric.name == "duration" ? mr.regressions[0] : mr.regressions[1];
  EXPECT_TRUE(dur.with.empty());
}

TEST(FamilyPairs, SharedAxesDecideThePairing) {
  EXPECT_TRUE(same_shared_axes({{"n", std::int64_t{1024}}, {"tile", std::int64_t{16}}}, {{"n", std::int64_t{1024}}}));
  EXPECT_FALSE(same_shared_axes({{"n", std::int64_t{1024}}}, {{"n", std::int64_t{2048}}}));
  EXPECT_TRUE(same_shared_axes({{"stride", std::int64_t{2}}}, {{"n", std::int64_t{4}}}));  // nothing shared
}

TEST(FamilyPairs, PairsVariantsWithTheirBaselineAndOrientsTheRatio) {
  Fixture f(6);
  auto coal1 = instance("memory/coalesced", {{"n", std::int64_t{1 << 20}}});
  auto coal2 = instance("memory/coalesced", {{"n", std::int64_t{1 << 22}}});
  auto str8 = instance("memory/strided", {{"n", std::int64_t{1 << 20}}, {"stride", std::int64_t{8}}});
  auto naive = instance("matmul/naive", {{"n", std::int64_t{1024}}});
  auto tiled = instance("matmul/tiled", {{"n", std::int64_t{1024}}, {"tile", std::int64_t{16}}});
  f.add(coal1, "duration", flat(6, 100));
  f.add(coal1, "gld_efficiency", flat(6, 100));
  f.add(coal1, "dram_bytes_read", flat(6, 1000));
  f.add(coal1, "registers", flat(6, 10));
  f.add(coal2, "duration", flat(6, 400));
  f.add(str8, "duration", {700, 700, 800, 800, 800, 800});
  f.add(str8, "gld_efficiency", flat(6, 12.5));
  f.add(str8, "dram_bytes_read", flat(6, 8000));
  f.add(str8, "registers", flat(6, 40));  // a static attribute: never the key metric
  f.add(naive, "duration", flat(6, 9000));
  f.add(naive, "shared_load_transactions", flat(6, 0));
  f.add(naive, "gld_efficiency", flat(6, 56.25));
  f.add(tiled, "duration", {3000, 3000, 3000, 3000, 2000, 2000});
  f.add(tiled, "shared_load_transactions", flat(6, 5e7));
  f.add(tiled, "gld_efficiency", flat(6, 100));
  f.in.baselines = {{"memory/strided", "memory/coalesced"}, {"matmul/tiled", "matmul/naive"}};

  ReportModel model = build_report_model(f.in);
  const MachineReport& mr = model.machines[0];
  ASSERT_EQ(mr.families.size(), 2u);
  EXPECT_EQ(mr.families[0].family, "matmul");
  EXPECT_EQ(mr.families[1].family, "memory");

  ASSERT_EQ(mr.families[1].pairs.size(), 1u);  // strided n=1M pairs with coalesced n=1M only
  const VariantPair& mem = mr.families[1].pairs[0];
  EXPECT_EQ(mr.instances[mem.variant].instance.display_name(), "memory/strided[n=1048576,stride=8]");
  EXPECT_EQ(mr.instances[mem.baseline].instance.display_name(), "memory/coalesced[n=1048576]");
  EXPECT_FALSE(mem.numerator_is_baseline);      // strided is slower: strided/coalesced
  EXPECT_EQ(mem.key_metric, "gld_efficiency");  // ties dram_bytes_read (0.875); earlier in the table
  ASSERT_EQ(mem.ratio.size(), 6u);
  EXPECT_DOUBLE_EQ(mem.ratio.front().value, 7.0);
  EXPECT_DOUBLE_EQ(mem.ratio.back().value, 8.0);

  const VariantPair& mm = mr.families[0].pairs[0];
  EXPECT_TRUE(mm.numerator_is_baseline);  // naive/tiled: a speedup above 1
  EXPECT_EQ(mm.key_metric, "shared_load_transactions");
  EXPECT_DOUBLE_EQ(mm.ratio.front().value, 3.0);
  EXPECT_DOUBLE_EQ(mm.ratio.back().value, 4.5);
}

// Neighbouring charts of one family read the same way up: strided/coalesced at every stride, including the
// stride where strided happens to be faster (its ratio then reads below 1 instead of turning over).
TEST(FamilyPairs, EveryPairOfAFamilyHasTheSameRoleOnTop) {
  Fixture f(3);
  auto base = instance("memory/coalesced", {{"n", std::int64_t{1024}}});
  auto s1 = instance("memory/strided", {{"n", std::int64_t{1024}}, {"stride", std::int64_t{1}}});
  auto s2 = instance("memory/strided", {{"n", std::int64_t{1024}}, {"stride", std::int64_t{2}}});
  auto s8 = instance("memory/strided", {{"n", std::int64_t{1024}}, {"stride", std::int64_t{8}}});
  f.add(base, "duration", flat(3, 100));
  f.add(s1, "duration", flat(3, 95));  // stride 1: a little faster than coalesced
  f.add(s2, "duration", flat(3, 150));
  f.add(s8, "duration", flat(3, 400));
  f.in.baselines = {{"memory/strided", "memory/coalesced"}};
  const MachineReport mr = build_report_model(f.in).machines[0];
  ASSERT_EQ(mr.families.size(), 1u);
  ASSERT_EQ(mr.families[0].pairs.size(), 3u);
  for (const VariantPair& p : mr.families[0].pairs) {
    EXPECT_FALSE(p.numerator_is_baseline) << mr.instances[p.variant].instance.display_name();
    ASSERT_FALSE(p.ratio.empty());
  }
  std::vector<double> latest;
  for (const VariantPair& p : mr.families[0].pairs) latest.push_back(p.ratio.back().value);
  std::sort(latest.begin(), latest.end());
  EXPECT_DOUBLE_EQ(latest[0], 0.95);  // strided/coalesced, below 1 where strided is faster
  EXPECT_DOUBLE_EQ(latest[1], 1.5);
  EXPECT_DOUBLE_EQ(latest[2], 4.0);
}

TEST(FamilyPairs, NoiseIsNotAKeyMetricAndParamsSortAsValues) {
  Fixture f(4);
  auto base = instance("memory/coalesced", {{"n", std::int64_t{1024}}});
  auto v512 = instance("memory/strided", {{"n", std::int64_t{1024}}, {"stride", std::int64_t{512}}});
  auto v64 = instance("memory/strided", {{"n", std::int64_t{1024}}, {"stride", std::int64_t{64}}});
  for (const auto* inst : {&base, &v512, &v64}) {
    f.add(*inst, "duration", flat(4, inst == &base ? 100 : 300));
    f.add(*inst, "achieved_occupancy", flat(4, inst == &base ? 88 : 89));  // 1% apart: noise
  }
  f.in.baselines = {{"memory/strided", "memory/coalesced"}};
  ReportModel model = build_report_model(f.in);
  const MachineReport& mr = model.machines[0];
  ASSERT_EQ(mr.instances.size(), 3u);
  EXPECT_EQ(mr.instances[1].instance.display_name(), "memory/strided[n=1024,stride=64]");  // 64 before 512
  ASSERT_EQ(mr.families.size(), 1u);
  ASSERT_EQ(mr.families[0].pairs.size(), 2u);
  EXPECT_EQ(mr.families[0].pairs[0].key_metric, "");
}

TEST(ReportModel, SeveralMachinesEachKeepTheirOwnAxis) {
  db::MachineRow a = machine_row(1, "zeta"), b = machine_row(2, "alpha", "NVIDIA H100");
  std::vector<db::RunInfo> ra = {run_info(a, 1, 0), run_info(a, 2, 1), run_info(a, 3, 2)};
  std::vector<db::RunInfo> rb = {run_info(b, 4, 5)};
  auto inst = instance("vector_add/basic", {});
  ReportInput in;
  in.machines = {a, b};
  in.runs = ra;
  in.runs.insert(in.runs.end(), rb.begin(), rb.end());
  in.series.push_back(series(a, inst, "duration", ra, {1, 2, 3}));
  in.series.push_back(series(b, inst, "duration", rb, {7}));
  ReportModel model = build_report_model(in);
  ASSERT_EQ(model.machines.size(), 2u);
  EXPECT_EQ(model.machines[0].machine.hostname, "alpha");  // by hostname
  EXPECT_EQ(model.machines[0].runs.size(), 1u);
  EXPECT_EQ(model.machines[1].runs.size(), 3u);
  EXPECT_EQ(model.total_runs(), 4u);
}

// Every machine is named as every command names it (machine_name): the GPUs of one host apart by their UUID.
TEST(ReportModel, GpusOfOneHostAreToldApartByTheirUuid) {
  db::MachineRow a = machine_row(1, "node"), b = machine_row(2, "node"), c = machine_row(3, "solo");
  a.fingerprint = a.machine.gpu_uuid = "GPU-4fc4ff4a-a568-0c56-d6b1-656acd4010e7";
  b.fingerprint = b.machine.gpu_uuid = "GPU-9b0e1c2d-0000-0000-0000-000000000000";
  ReportInput in;
  in.machines = {a, b, c};
  auto inst = instance("vector_add/basic", {});
  for (const auto* m : {&a, &b, &c}) {
    std::vector<db::RunInfo> runs = {run_info(*m, m->id * 10, 0)};
    in.runs.insert(in.runs.end(), runs.begin(), runs.end());
    in.series.push_back(series(*m, inst, "duration", runs, {1}));
  }
  ReportModel model = build_report_model(in);
  ASSERT_EQ(model.machines.size(), 3u);
  EXPECT_EQ(model.machines[0].host, "node (NVIDIA H200, GPU-4fc4ff4a)");
  EXPECT_EQ(model.machines[1].host, "node (NVIDIA H200, GPU-9b0e1c2d)");
  EXPECT_EQ(model.machines[2].host, "solo (NVIDIA H200, GPU-solo)");
  EXPECT_EQ(model.machines[0].title(), model.machines[0].host);
}

}  // namespace
}  // namespace gpuperf::reports
