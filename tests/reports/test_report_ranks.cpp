// GPU time by rank in the reports: a recorded two-rank job on two GPUs of one host, built by hand with known
// totals, gives each rank's compute and communication time, its change since the run before, and one table
// row per rank in the Markdown and the HTML; a program without communication kernels gives no table.
#include <gtest/gtest.h>

#include "reports/program_cells.hpp"
#include "reports/report_model.hpp"
#include "reports/writers.hpp"
#include "tests/reports/model_builders.hpp"

namespace gpuperf::reports {
namespace {

using namespace testing;

const BenchmarkInstance kGemm = instance("train/ampere_sgemm_128x64_tn", {{"grid", std::string("64,1,1")}});
const BenchmarkInstance kNccl =
    instance("train/ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
             {{"grid", std::string("2,1,1")}});

// Two nights of rank `rank` of 2 on its own GPU: 800 ms of GEMM each night, `comm_ms` of all-reduce (84 launches).
void add_rank(ReportInput& in, const db::MachineRow& m, int rank, std::vector<double> comm_ms, bool with_nccl = true) {
  std::vector<db::RunInfo> runs = {run_info(m, m.id * 10, 0), run_info(m, m.id * 10 + 1, 1)};
  for (auto& r : runs) {
    r.command = "torchrun --nproc_per_node 2 train.py";
    r.rank = rank;
    r.local_rank = rank;
    r.world_size = 2;
  }
  in.machines.push_back(m);
  in.runs.insert(in.runs.end(), runs.begin(), runs.end());
  const double gemm = 800e6;
  in.series.push_back(series(m, kGemm, "gpu_time_total", runs, {gemm, gemm}));
  in.series.push_back(series(m, kGemm, "launches", runs, {400, 400}));
  in.series.push_back(series(m, kGemm, "gpu_time_share", runs, {90, 90}));
  if (!with_nccl) return;
  in.series.push_back(series(m, kNccl, "gpu_time_total", runs, {comm_ms[0] * 1e6, comm_ms[1] * 1e6}));
  in.series.push_back(series(m, kNccl, "launches", runs, {84, 84}));
  in.series.push_back(series(m, kNccl, "gpu_time_share", runs, {10, 10}));
}

ReportInput two_ranks() {
  db::MachineRow a = machine_row(1, "node"), b = machine_row(2, "node");
  a.fingerprint = a.machine.gpu_uuid = "GPU-4fc4ff4a-0000-0000-0000-000000000000";
  b.fingerprint = b.machine.gpu_uuid = "GPU-9d07c1e2-0000-0000-0000-000000000000";
  ReportInput in;
  in.tool_version = "0.1.0";
  add_rank(in, b, 1, {80, 112});  // rank 1's GPU sorts second by fingerprint, and is given first
  add_rank(in, a, 0, {78.1, 78.1});
  return in;
}

TEST(ReportRanks, EachRanksSplitAndItsChangeSinceTheRunBefore) {
  const ReportModel model = build_report_model(two_ranks());
  const auto panels = panels_with_communication(model);
  ASSERT_EQ(panels.size(), 2u);
  const ProgramPanel& p0 = *panels[0].second;
  EXPECT_EQ(panels[0].first->runs[p0.run].rank, 0);  // by rank, whatever the machines' order
  EXPECT_DOUBLE_EQ(p0.split.compute.gpu_time_ns, 800e6);
  EXPECT_DOUBLE_EQ(p0.split.communication.gpu_time_ns, 78.1e6);
  EXPECT_DOUBLE_EQ(p0.split.communication.launches, 84);
  ASSERT_TRUE(p0.split_before.has_value());
  const RankSplitCells c0 = rank_split_cells(*panels[0].first, p0);
  EXPECT_EQ(c0.rank, "rank 0/2");
  EXPECT_EQ(c0.gpu, "node (NVIDIA H200, GPU-4fc4ff4a)");
  EXPECT_EQ(c0.compute, "800 ms (91.1%)");
  EXPECT_EQ(c0.communication, "78.1 ms (8.9%)");
  EXPECT_EQ(c0.launches, "84");
  EXPECT_EQ(c0.since, "+0.0%");
  const RankSplitCells c1 = rank_split_cells(*panels[1].first, *panels[1].second);
  EXPECT_EQ(c1.rank, "rank 1/2");
  EXPECT_EQ(c1.communication, "112 ms (12.3%)");
  EXPECT_EQ(c1.since, "+40.0%");
}

TEST(ReportRanks, MarkdownAndHtmlHaveOneRowPerRank) {
  const ReportModel model = build_report_model(two_ranks());
  const std::string md = render_markdown(model);
  EXPECT_NE(md.find("GPU time by rank, compute and communication kernels"), std::string::npos) << md;
  const std::size_t r0 = md.find(
      "| train | rank 0/2 | node (NVIDIA H200, GPU-4fc4ff4a) | `c1001abcde` | 800 ms (91.1%) | 78.1 ms (8.9%) | "
      "84 "
      "| +0.0% |");
  const std::size_t r1 = md.find(
      "| train | rank 1/2 | node (NVIDIA H200, GPU-9d07c1e2) | `c1001abcde` | 800 ms "
      "(87.7%) | 112 ms (12.3%) | 84 | +40.0% |");
  ASSERT_NE(r0, std::string::npos) << md;
  ASSERT_NE(r1, std::string::npos) << md;
  EXPECT_LT(r0, r1);
  const std::string html = render_html(model);
  EXPECT_NE(html.find("<h2>GPU time by rank</h2>"), std::string::npos);
  EXPECT_NE(html.find("<td>rank 1/2</td>"), std::string::npos);
  EXPECT_NE(html.find("<p>Compute 800 ms (87.7%), communication 112 ms (12.3%) on rank 1/2.</p>"), std::string::npos);
}

TEST(ReportRanks, AProgramWithoutCommunicationHasNoRankTable) {
  db::MachineRow a = machine_row(1, "solo");
  ReportInput in;
  add_rank(in, a, 0, {}, false);
  const ReportModel model = build_report_model(in);
  ASSERT_EQ(model.machines.size(), 1u);
  ASSERT_EQ(model.machines[0].programs.size(), 1u);
  EXPECT_FALSE(model.machines[0].programs[0].split.has_communication());
  EXPECT_EQ(render_markdown(model).find("GPU time by rank"), std::string::npos);
  EXPECT_EQ(render_html(model).find("GPU time by rank"), std::string::npos);
}

}  // namespace
}  // namespace gpuperf::reports

namespace gpuperf::reports {
namespace {

using namespace testing;

// A program's section leads with its GPU time by kernel family against its recording before: the attention
// kernel 20% slower reads as "+1.6 ms (+20.0%)" on the attention row, in the Markdown and the HTML.
TEST(ReportPrograms, AProgramLeadsWithItsTimeByKernelFamily) {
  const db::MachineRow m = machine_row(1, "solo");
  std::vector<db::RunInfo> runs = {run_info(m, 10, 0), run_info(m, 11, 1)};
  for (auto& r : runs) r.command = "python3 decoder.py";
  ReportInput in;
  in.tool_version = "0.1.0";
  in.machines.push_back(m);
  in.runs = runs;
  const BenchmarkInstance flash = instance("decoder/void pytorch_flash::flash_fwd_kernel<Traits>(Flash_fwd_params)",
                                           {{"grid", std::string("64,1,1")}});
  const BenchmarkInstance gemm =
      instance("decoder/nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NNT", {{"grid", std::string("64,1,1")}});
  in.series.push_back(series(m, flash, "gpu_time_total", runs, {8e6, 9.6e6}));
  in.series.push_back(series(m, flash, "gpu_time_share", runs, {28.6, 32.4}));
  in.series.push_back(series(m, gemm, "gpu_time_total", runs, {20e6, 20e6}));
  in.series.push_back(series(m, gemm, "gpu_time_share", runs, {71.4, 67.6}));
  const ReportModel model = build_report_model(in);
  ASSERT_EQ(model.machines.size(), 1u);
  ASSERT_EQ(model.machines[0].programs.size(), 1u);
  const ProgramPanel& p = model.machines[0].programs[0];
  ASSERT_TRUE(p.previous_run.has_value());
  EXPECT_DOUBLE_EQ(p.kernel_time_before_ns, 28e6);
  ASSERT_EQ(p.families.size(), 2u);
  EXPECT_EQ(p.families[0].name, "GEMM");  // the largest now first
  EXPECT_EQ(p.families[1].name, "attention");
  const auto cells = program_family_cells(p);
  EXPECT_EQ(cells[1].change, "+1.6 ms (+20.0%)");
  const std::string md = render_markdown(model);
  EXPECT_NE(md.find("GPU time 28 ms -> 29.6 ms (+5.7%) since the recording at c1000abcde"), std::string::npos) << md;
  EXPECT_NE(md.find("| attention | 8 ms | 9.6 ms | +1.6 ms (+20.0%) |"), std::string::npos) << md;
  EXPECT_LT(md.find("| Family | Before | Now | Change |"), md.find("| Kernel | Launches |")) << md;
  const std::string html = render_html(model);
  EXPECT_NE(html.find("<tr><td>attention</td><td class=\"num\">8 ms</td><td class=\"num\">9.6 ms</td><td "
                      "class=\"num\">+1.6 ms (+20.0%)</td></tr>"),
            std::string::npos);
}

}  // namespace
}  // namespace gpuperf::reports
