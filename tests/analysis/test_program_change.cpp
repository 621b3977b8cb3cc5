// A recorded program's verdict (reports/analysis/program_change.hpp) on hand-built recordings of a decoder
// with known totals (program_history.hpp): the program's line and its test over runs, the family split, the
// pairing of gone and new kernels, and that a gone kernel of a program does not fail the job while a
// benchmark run's missing instance still does. Then the writers: the program leads, the short answer fits a
// pull-request comment, JSON has every kernel, JUnit has one test case for the program.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "reports/analysis/compare.hpp"
#include "reports/analysis/kernel_family.hpp"
#include "reports/analysis/program_change.hpp"
#include "reports/program_text.hpp"
#include "reports/verdict_writer.hpp"
#include "tests/analysis/program_history.hpp"

namespace gpuperf::analysis {
namespace {

using testing::decoder_base_runs;
using testing::decoder_kernels;
using testing::decoder_run;
using testing::DecoderKernel;

const CompareOptions& default_options() {
  static const CompareOptions options;
  return options;
}

// compare_runs of the newest base run against `candidate`, judged over the other base runs as the CLI does.
CompareReport compare_program(const gpuperf::Run& candidate, const CompareOptions& options = default_options(),
                              std::vector<gpuperf::Run> base = decoder_base_runs()) {
  CompareReport report = compare_runs(base.back(), candidate, options, 3, 4);
  std::vector<double> others;
  for (std::size_t i = 0; i + 1 < base.size(); ++i) others.push_back(*program_gpu_time(base[i]));
  judge_program_runs(report, others, {}, options);
  return report;
}

std::string text_of(const CompareReport& report, reports::Format format, bool all = false) {
  std::ostringstream out;
  reports::write_compare(out, report, format, all);
  return out.str();
}

TEST(KernelFamily, FamiliesOfTheNamesFrameworksGiveTheirKernels) {
  const KernelFamilies f;
  EXPECT_EQ(f.family(testing::kFlash), "attention");
  EXPECT_EQ(f.family("fmha_cutlassF_bf16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel<...>)"),
            "attention");  // CUTLASS's attention is attention, not GEMM
  EXPECT_EQ(f.family(testing::kGemm), "GEMM");
  EXPECT_EQ(f.family(testing::kBmm), "GEMM");
  EXPECT_EQ(f.family("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1"), "GEMM");
  EXPECT_EQ(f.family("triton_tem_fused_mm_0"), "GEMM");
  EXPECT_EQ(f.family(testing::kLayerNorm), "normalization");
  EXPECT_EQ(f.family(testing::kSoftmax), "normalization");
  EXPECT_EQ(f.family("triton_per_fused__softmax_0"), "normalization");
  EXPECT_EQ(f.family(testing::kMean), "reduction");
  EXPECT_EQ(f.family("triton_red_fused_add_mean_pow_0"), "reduction");
  EXPECT_EQ(f.family(testing::kCopy), "copy");
  EXPECT_EQ(f.family("void at::native::(anonymous namespace)::indexSelectLargeIndex<float, long, unsigned int>"),
            "copy");
  EXPECT_EQ(f.family(testing::kAdd), "elementwise");
  EXPECT_EQ(f.family("triton_poi_fused_add_mul_silu_0"), "elementwise");
  EXPECT_EQ(f.family("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"), "communication");
  EXPECT_EQ(f.family("my_custom_kernel"), "other");
  // The program is not classified, only the kernel.
  EXPECT_EQ(f.family_of_instance("flash_bench/my_custom_kernel"), "other");
}

TEST(KernelFamily, TheUsersRulesComeFirstAndBadOnesAreRefused) {
  KernelFamilies f;
  f.add("attention=my_custom");
  f.add("router=topk_gating");
  EXPECT_EQ(f.family("my_custom_kernel"), "attention");
  EXPECT_EQ(f.family("moe_topk_gating_softmax"), "router");  // before the built-in normalization
  EXPECT_EQ(f.user_rules(), (std::vector<std::string>{"attention=my_custom", "router=topk_gating"}));
  EXPECT_THROW(f.add("attention"), InputError);
  EXPECT_THROW(f.add("=flash"), InputError);
  EXPECT_THROW(f.add("attention="), InputError);
  try {
    f.add("attention=flash(");
    FAIL() << "an invalid regex was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--kernel-family 'attention=flash('"), std::string::npos) << e.what();
  }
}

TEST(ProgramChange, AnAttentionFamilyTwentyPercentSlowerLeadsTheAnswer) {
  const gpuperf::Run candidate = decoder_run(3, "bbbb000000000000000000000000000000000000", "feature",
                                             testing::scaled(decoder_kernels(), testing::kFlash, 1.2));
  const CompareReport report = compare_program(candidate);
  ASSERT_TRUE(report.program);
  const ProgramChange& p = *report.program;
  EXPECT_EQ(p.program, "decoder");
  EXPECT_DOUBLE_EQ(p.base_ns, 39e6);
  EXPECT_DOUBLE_EQ(p.candidate_ns, 40.6e6);
  EXPECT_EQ(p.base_runs.size(), 3u);
  EXPECT_EQ(p.verdict, Verdict::slower);
  EXPECT_NEAR(p.change_pct, 100.0 * 1.6 / 39, 1e-6);
  EXPECT_FALSE(p.gated);  // off by default
  ASSERT_FALSE(p.families.empty());
  EXPECT_EQ(p.families.front().name, "attention");
  EXPECT_DOUBLE_EQ(p.families.front().delta_ns(), 1.6e6);
  EXPECT_NEAR(*p.families.front().change_pct(), 20.0, 1e-9);
  for (std::size_t i = 1; i < p.families.size(); ++i) EXPECT_EQ(p.families[i].delta_ns(), 0) << p.families[i].name;
  ASSERT_EQ(p.ranges.size(), 1u);
  EXPECT_EQ(p.ranges.front().name, "forward");
  EXPECT_EQ(p.kernels.front().instance.name, "decoder/" + testing::kFlash);

  const std::string text = text_of(report, reports::Format::text);
  const auto program_at =
      text.find("program decoder: GPU time 39 ms -> 40.6 ms (+4.1%, medians), slower (does not gate");
  ASSERT_NE(program_at, std::string::npos) << text;
  EXPECT_LT(program_at, text.find("GPU time by kernel family"));
  EXPECT_NE(text.find("\nattention      8 ms   9.6 ms     +1.6 ms  +20.0%  1\n"), std::string::npos) << text;
  // The flash kernel's duration rows are slower and gate: listed as the rows that fail the job.
  EXPECT_NE(text.find("Rows that fail the job:"), std::string::npos) << text;
  EXPECT_TRUE(report.regression());

  // --gate program_time: the program's own line fails too; JUnit has a failing program case.
  CompareOptions gated;
  gated.gate.add("program_time");
  const CompareReport g = compare_program(candidate, gated);
  EXPECT_TRUE(g.program->regression());
  std::ostringstream junit;
  reports::write_compare_junit(junit, g);
  EXPECT_NE(junit.str().find("classname=\"gpuperf.program\" name=\"decoder GPU time\" time=\"0\">\n      <failure"),
            std::string::npos)
      << junit.str();
}

TEST(ProgramChange, TheProgramTimeAloneGatesOnlyWhenAskedFor) {
  // Every kernel 5% slower in GPU time, their per-launch durations unchanged (more launches of each): no kernel
  // row fails, the program's line is slower, and only --gate program_time fails the job on it.
  std::vector<DecoderKernel> more = decoder_kernels();
  for (DecoderKernel& k : more) {
    k.total_ns *= 1.05;
    k.launches *= 1.05;
  }
  const gpuperf::Run candidate = decoder_run(3, "bbbb000000000000000000000000000000000000", "feature", more);
  CompareOptions o;
  o.thresholds.apply("launches=10");  // the launch counts moved by 5%: not what this test is about
  const CompareReport plain = compare_program(candidate, o);
  EXPECT_EQ(plain.program->verdict, Verdict::slower);
  EXPECT_FALSE(plain.regression());
  o.gate.add("program_time");
  const CompareReport gated = compare_program(candidate, o);
  EXPECT_TRUE(gated.regression());
  // A floor above the change: same.
  o.thresholds.apply("program_time=6");
  EXPECT_EQ(compare_program(candidate, o).program->verdict, Verdict::same);
}

TEST(ProgramChange, AnAAOfSeveralRunsIsTheSameAndPasses) {
  const gpuperf::Run candidate =
      decoder_run(3, "aaaa000000000000000000000000000000000002", "main", decoder_kernels(), 1.002);
  const CompareReport report = compare_program(candidate);
  EXPECT_EQ(report.program->verdict, Verdict::same) << report.program->note;
  EXPECT_FALSE(report.regression());
  EXPECT_NE(text_of(report, reports::Format::text)
                .find("+0.2%, medians), same (3 base runs, 1 candidate run; within the 3% floor)"),
            std::string::npos)
      << text_of(report, reports::Format::text);
}

TEST(ProgramChange, OverlappingRunsAreAmbiguousAndOneRunASideIsNotEnoughData) {
  // A base whose runs spread over 10%: a candidate 4% above the newest lies inside that spread.
  std::vector<gpuperf::Run> wide = {decoder_run(0, "a0", "main", decoder_kernels(), 0.95),
                                    decoder_run(1, "a1", "main", decoder_kernels(), 1.05),
                                    decoder_run(2, "a2", "main", decoder_kernels(), 1.0)};
  const gpuperf::Run candidate = decoder_run(3, "b0", "feature", decoder_kernels(), 1.04);
  EXPECT_EQ(compare_program(candidate, default_options(), wide).program->verdict, Verdict::ambiguous);

  const CompareReport one =
      compare_program(candidate, default_options(), {decoder_run(2, "a2", "main", decoder_kernels())});
  const ProgramChange& p = *one.program;
  EXPECT_EQ(p.verdict, Verdict::not_enough_data);
  EXPECT_EQ(p.runs_needed, 2u);
  EXPECT_EQ(
      p.next_step,
      "on the base's commit a2: for i in $(seq 2); do gpuperf record --branch main -- python3 decoder.py --layers "
      "4; done, then compare again");
  EXPECT_NE(text_of(one, reports::Format::text).find("    next: on the base's commit a2: for i in $(seq 2)"),
            std::string::npos);
}

TEST(ProgramChange, AKernelReplacedByTwoInItsRangeReadsReplacedBy) {
  // The attention backend switched: the flash kernel gone, a batched GEMM and a softmax new in "forward".
  const gpuperf::Run candidate = decoder_run(
      3, "bbbb000000000000000000000000000000000000", "feature",
      testing::replaced(decoder_kernels(), testing::kFlash, {{testing::kBmm, 7e6, 32}, {testing::kSoftmax, 3e6, 16}}));
  const CompareReport report = compare_program(candidate);
  const ProgramChange& p = *report.program;
  ASSERT_EQ(p.replacements.size(), 1u);
  const Replacement& r = p.replacements.front();
  EXPECT_EQ(r.range, "forward");
  EXPECT_EQ(r.family, "");  // across families: attention gone, GEMM and normalization new
  ASSERT_EQ(r.gone.size(), 1u);
  ASSERT_EQ(r.added.size(), 2u);
  EXPECT_EQ(p.kernels[r.gone[0]].instance.name, "decoder/" + testing::kFlash);
  EXPECT_EQ(p.kernels[r.added[0]].instance.name, "decoder/" + testing::kBmm);  // heaviest first
  EXPECT_DOUBLE_EQ(r.base_ns, 8e6);
  EXPECT_DOUBLE_EQ(r.candidate_ns, 10e6);

  const std::string text = text_of(report, reports::Format::text);
  EXPECT_NE(text.find("gone, replaced by ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_nn (+1 more)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("in forward: pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4>> "
                      "(attention, 8 ms) replaced by ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_nn (GEMM, "
                      "7 ms), cunn_SoftMaxForward<8, c10::BFloat16, float, c10::BFloat16> (normalization, 3 ms) "
                      "(+2 ms)"),
            std::string::npos)
      << text;
  // The gone kernel is reported, not failed: the job passes on it (the program got slower, ungated).
  EXPECT_EQ(report.missing_instances().size(), 1u);
  EXPECT_FALSE(report.missing_fails());
  EXPECT_FALSE(report.regression());
  EXPECT_NE(text.find("1 kernel identity of the base is gone from the candidate: reported, not failed"),
            std::string::npos)
      << text;
  std::ostringstream junit;
  reports::write_compare_junit(junit, report);
  EXPECT_NE(junit.str().find("failures=\"0\""), std::string::npos) << junit.str();

  // Same family: the flash kernel replaced by CUTLASS's attention pairs within the family.
  const std::string fmha = "fmha_cutlassF_bf16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel<>)";
  const CompareReport same_family = compare_program(
      decoder_run(3, "bbbb", "feature", testing::replaced(decoder_kernels(), testing::kFlash, {{fmha, 9e6, 16}})));
  ASSERT_EQ(same_family.program->replacements.size(), 1u);
  EXPECT_EQ(same_family.program->replacements.front().family, "attention");
}

TEST(ProgramChange, KernelsOfOtherRangesOrTooManyLeftoversAreNotPaired) {
  std::vector<DecoderKernel> cand = testing::replaced(decoder_kernels(), testing::kFlash, {});
  cand.push_back({testing::kSoftmax, 3e6, 16, "backward"});  // another range: no pair
  const CompareReport other_range = compare_program(decoder_run(3, "bbbb", "feature", cand));
  EXPECT_TRUE(other_range.program->replacements.empty());
  EXPECT_EQ(other_range.program->gone_count(), 1u);
  EXPECT_EQ(other_range.program->added_count(), 1u);

  // Nine new kernels of other families in the range: too many to read as one replacement.
  std::vector<DecoderKernel> many = testing::replaced(decoder_kernels(), testing::kFlash, {});
  for (int i = 0; i < 9; ++i) many.push_back({"my_kernel_" + std::to_string(i), 1e6, 1});
  EXPECT_TRUE(compare_program(decoder_run(3, "bbbb", "feature", many)).program->replacements.empty());
}

TEST(ProgramChange, ABenchmarkRunsMissingInstanceStillFails) {
  gpuperf::Run base, cand;
  for (gpuperf::Run* r : {&base, &cand}) r->machine = testing::h200();
  Result a;
  a.instance.name = "matmul/tiled";
  Measurement d;
  d.metric = find_metric("duration")->info;
  d.samples = {1, 1, 1};
  d.summary = summarize(d.samples);
  a.metrics.push_back(d);
  base.results = {a};
  a.instance.name = "matmul/naive";
  base.results.push_back(a);
  cand.results = {base.results.front()};
  const CompareReport report = compare_runs(base, cand, default_options());
  EXPECT_FALSE(report.program);
  EXPECT_TRUE(report.missing_fails());
  EXPECT_TRUE(report.regression());
  EXPECT_NE(text_of(report, reports::Format::text).find("a partial candidate fails"), std::string::npos);
}

TEST(ProgramChange, TheShortAnswerFitsAPullRequestComment) {
  // A program of 600 kernels, 200 of which change shape (gone and new), and every one a little slower.
  std::vector<DecoderKernel> base_kernels, cand_kernels;
  for (int i = 0; i < 600; ++i) {
    const std::string name = "void at::native::vectorized_elementwise_kernel<4, Functor" + std::to_string(i) + ">";
    base_kernels.push_back({name, 1e5 + i, 4, "layer" + std::to_string(i % 12)});
    cand_kernels.push_back({i < 200 ? name + "_v2" : name, (1e5 + i) * 1.1, 4, "layer" + std::to_string(i % 12)});
  }
  std::vector<gpuperf::Run> base = {decoder_run(0, "a0", "main", base_kernels, 0.999),
                                    decoder_run(1, "a1", "main", base_kernels, 1.001),
                                    decoder_run(2, "a2", "main", base_kernels)};
  const CompareReport report = compare_program(decoder_run(3, "b0", "feature", cand_kernels), default_options(), base);
  const std::string md = text_of(report, reports::Format::md);
  const auto lines = std::count(md.begin(), md.end(), '\n');
  EXPECT_LT(lines, 100) << md;
  EXPECT_EQ(md.rfind("### gpuperf compare: ", 0), 0u) << md;
  EXPECT_NE(md.find("**program decoder: GPU time"), std::string::npos) << md;
  EXPECT_NE(md.find("rows not listed; --all lists them"), std::string::npos) << md;
  // --all: every row.
  const std::string all = text_of(report, reports::Format::md, true);
  EXPECT_GT(std::count(all.begin(), all.end(), '\n'), 1000);
  // JSON: the program with every kernel.
  const nlohmann::json j = nlohmann::json::parse(text_of(report, reports::Format::json));
  EXPECT_EQ(j["program"]["kernels"].size(), 800u);
  EXPECT_EQ(j["program"]["verdict"], "slower");
  EXPECT_EQ(j["missing_fails"], false);
  EXPECT_EQ(j["program"]["families"][0]["family"], "elementwise");
}

}  // namespace
}  // namespace gpuperf::analysis
