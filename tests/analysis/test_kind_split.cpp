// GPU time by kernel kind (reports/analysis/kind_split.hpp) on hand-built recorded runs with known totals, and
// the writers' cells and compare section (reports/kind_split_text.hpp).
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "reports/analysis/compare.hpp"
#include "reports/analysis/kind_split.hpp"
#include "reports/kind_split_text.hpp"

namespace gpuperf::analysis {
namespace {

Measurement value(const char* name, const char* unit, bool deterministic, double v) {
  Measurement m;
  m.metric = MetricInfo{name, unit, false, deterministic};
  m.samples = {v};
  m.summary = summarize(m.samples);
  return m;
}

Result kernel(const std::string& name, double total_ns, double launches) {
  Result r;
  r.instance.name = name;
  r.instance.params = {{"grid", std::string("64,1,1")}, {"block", std::string("256,1,1")}};
  r.metrics.push_back(value("launches", "count", true, launches));
  r.metrics.push_back(value("gpu_time_total", "ns", false, total_ns));
  return r;
}

// One rank of a recorded DDP job: 812.3 ms of compute in two kernels, `comm_ns` of NCCL in 84 launches.
Run rank_run(int rank, double comm_ns) {
  Run run;
  run.uuid = "cccccccc-0000-4000-8000-00000000000" + std::to_string(rank);
  run.command = "torchrun --nproc_per_node 2 train.py";
  run.rank = rank;
  run.world_size = 2;
  run.machine.hostname = "node-1";
  run.machine.gpu_name = "NVIDIA H100 80GB HBM3";
  run.machine.gpu_uuid = "GPU-4fc4ff4a-0000-0000-0000-00000000000" + std::to_string(rank);
  run.results.push_back(kernel("train/ampere_sgemm_128x64_tn", 700.0e6, 400));
  run.results.push_back(
      kernel("train/ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", comm_ns, 84));
  run.results.push_back(kernel("train/void at::native::vectorized_elementwise_kernel<4>", 112.3e6, 406));
  return run;
}

TEST(KindSplit, ARanksTimeSplitsByTheKernelsKind) {
  const KindSplit s = kind_split(rank_run(0, 78.1e6));
  EXPECT_DOUBLE_EQ(s.compute.gpu_time_ns, 812.3e6);
  EXPECT_DOUBLE_EQ(s.communication.gpu_time_ns, 78.1e6);
  EXPECT_DOUBLE_EQ(s.compute.launches, 806);
  EXPECT_DOUBLE_EQ(s.communication.launches, 84);
  EXPECT_EQ(s.compute.kernels, 2u);
  EXPECT_EQ(s.communication.kernels, 1u);
  EXPECT_TRUE(s.has_communication());
  EXPECT_NEAR(s.share_pct(KernelKind::communication), 100 * 78.1 / 890.4, 1e-9);
  EXPECT_NEAR(s.share_pct(KernelKind::compute) + s.share_pct(KernelKind::communication), 100, 1e-9);
}

TEST(KindSplit, OnlyTheKernelNameIsClassifiedNotTheProgram) {
  EXPECT_EQ(benchmark_variant("train/ncclDevKernel_X"), "ncclDevKernel_X");
  EXPECT_EQ(benchmark_variant("sgemm"), "sgemm");
  EXPECT_EQ(benchmark_variant("a/b/c"), "b/c");
  KindSplit s;
  add_kernel(s, "nccl_tests/my_gemm", 10, 1);  // a program named after NCCL computes all the same
  add_kernel(s, "nccl_tests/ncclKernel_AllGather_RING_LL_Sum_int8_t", 5, 2);
  EXPECT_DOUBLE_EQ(s.compute.gpu_time_ns, 10);
  EXPECT_DOUBLE_EQ(s.communication.gpu_time_ns, 5);
  // record --communication-kernel: a program's own kernel that waits on its peers.
  gpuperf::Run run = rank_run(0, 78.1e6);
  EXPECT_DOUBLE_EQ(kind_split(run, {"vectorized_elementwise"}).communication.gpu_time_ns, 78.1e6 + 112.3e6);
  EXPECT_DOUBLE_EQ(kind_split(run, {""}).communication.gpu_time_ns, 78.1e6);  // an empty pattern names nothing
}

TEST(KindSplit, ABenchmarkRunOrAnEmptyRunHasNoSplit) {
  gpuperf::Run bench;
  Result r;
  r.instance.name = "matmul/tiled";
  r.metrics.push_back(value("duration", "ns", false, 1000));
  bench.results.push_back(r);
  const KindSplit s = kind_split(bench);
  EXPECT_EQ(s.compute.kernels + s.communication.kernels, 0u);
  EXPECT_DOUBLE_EQ(s.share_pct(KernelKind::compute), 0);  // no kernel time: no division by zero
  EXPECT_FALSE(s.has_communication());
  EXPECT_FALSE(kind_split_change(bench, bench).has_value());
}

TEST(KindSplit, ACompareOfTwoRanksRunsShowsBothKindsChange) {
  const gpuperf::Run before = rank_run(0, 78.1e6), after = rank_run(0, 109.34e6);
  const auto c = kind_split_change(before, after);
  ASSERT_TRUE(c.has_value());
  EXPECT_NEAR(*c->change_pct(KernelKind::communication), 40.0, 1e-9);
  EXPECT_NEAR(*c->change_pct(KernelKind::compute), 0.0, 1e-9);
  // A program that did not communicate before: the kind is new, no percentage.
  gpuperf::Run alone = rank_run(0, 0);
  alone.results.erase(alone.results.begin() + 1);
  const auto gained = kind_split_change(alone, after);
  ASSERT_TRUE(gained.has_value());
  EXPECT_FALSE(gained->change_pct(KernelKind::communication).has_value());
  // Neither side communicates: nothing to add to the kernel rows.
  EXPECT_FALSE(kind_split_change(alone, alone).has_value());
  // compare_runs carries it, with each side's rank.
  const CompareReport report = compare_runs(before, after, CompareOptions{});
  ASSERT_TRUE(report.kinds.has_value());
  EXPECT_EQ(report.candidate.rank, 0);
  EXPECT_EQ(report.candidate.world_size, 2);
}

TEST(KindSplitText, RecordsSummaryLineOnePerRankWithCommunication) {
  const gpuperf::Run r0 = rank_run(0, 78.1e6);
  EXPECT_EQ(reports::kind_split_line(r0, kind_split(r0)),
            "rank 0/2 on node-1 (NVIDIA H100 80GB HBM3, GPU-4fc4ff4a): compute 812.3 ms (91.2%), communication "
            "78.1 ms (8.8%) in 84 launches");
  gpuperf::Run lone = r0;
  lone.rank.reset();
  lone.world_size.reset();
  lone.machine.gpu_uuid.clear();
  EXPECT_EQ(reports::kind_split_line(lone, kind_split(lone)),
            "node-1 (NVIDIA H100 80GB HBM3): compute 812.3 ms (91.2%), communication 78.1 ms (8.8%) in 84 launches");
  gpuperf::Run quiet = r0;
  quiet.results.erase(quiet.results.begin() + 1);
  EXPECT_EQ(reports::kind_split_line(quiet, kind_split(quiet)), "");  // no communication kernel: no line
}

TEST(KindSplitText, CompareSectionInTextMarkdownAndJson) {
  const auto c = *kind_split_change(rank_run(0, 78.1e6), rank_run(0, 109.34e6));
  std::ostringstream text;
  reports::write_kind_split_text(text, c);
  EXPECT_EQ(text.str(),
            "GPU time by kernel kind (compute or communication; informative, does not gate):\n"
            "  kind           base              candidate         change\n"
            "  compute        812.3 ms (91.2%)  812.3 ms (88.1%)  +0.0%\n"
            "  communication  78.1 ms (8.8%)    109.3 ms (11.9%)  +40.0%\n");
  std::ostringstream md;
  reports::write_kind_split_md(md, c);
  EXPECT_NE(md.str().find("| communication | 78.1 ms (8.8%) | 109.3 ms (11.9%) | +40.0% |\n"), std::string::npos)
      << md.str();
  const nlohmann::json j = reports::kind_split_change_json(c);
  EXPECT_EQ(j["gated"], false);
  EXPECT_DOUBLE_EQ(j["base"]["communication"]["gpu_time_ns"].get<double>(), 78.1e6);
  EXPECT_EQ(j["candidate"]["communication"]["launches"], 84.0);
  EXPECT_EQ(j["base"]["compute"]["kernels"], 2);
  EXPECT_NEAR(j["change_pct"]["communication"].get<double>(), 40.0, 1e-9);
}

}  // namespace
}  // namespace gpuperf::analysis
