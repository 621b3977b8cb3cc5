// The short form of kernel names (core/short_name.hpp), on real demangled names from PyTorch, CUTLASS and
// hand-written kernels, on malformed ones, and its uniqueness within a set.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "core/short_name.hpp"
#include "tests/core/kernel_names.hpp"

namespace gpuperf {
namespace {

using namespace gpuperf::testing;

const std::string kDots = "\xE2\x80\xA6";  // …

struct FoldCase {
  std::string full, expected;
};

TEST(FoldName, RealNamesFoldToWhatFits) {
  const std::vector<FoldCase> cases = {
      // 2,553 characters of nested lambdas: every template list folded, the anonymous namespace dropped.
      {pytorch_distribution_kernel("normal"), "at::native::distribution_elementwise_grid_stride_kernel<" + kDots + ">"},
      // The same, as a profiler prints it: with its return type and its parameter list (3,198 characters).
      {pytorch_normal_kernel_full(), "at::native::distribution_elementwise_grid_stride_kernel<" + kDots + ">"},
      // Names that fit keep their template arguments; only the return type and parameters go.
      {kVectorizedAdd,
       "at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >"},
      {kVectorizedFill,
       "at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >"},
      // Too long whole: the innermost lists fold first, the outer arguments stay.
      {kVectorizedDivFloor, "at::native::vectorized_elementwise_kernel<4, at::native::BUnaryFunctor<" + kDots +
                                ">, std::array<" + kDots + "> >"},
      {kCutlassSgemm, "cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>"},
      {kSoftmaxForward, "softmax_warp_forward<float, float, float, 11, false, false>"},
      // Names already short: unchanged.
      {"add_one", "add_one"},
      {"matmul/tiled", "matmul/tiled"},
      {"triton_poi_fused_mul_silu_2", "triton_poi_fused_mul_silu_2"},
      {"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNT", "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNT"},
      {"spin<4>", "spin<4>"},
      {"", ""},
      // The program or family before a '/' is kept; a '/' inside the name is not a family.
      {"train/" + pytorch_distribution_kernel("normal"),
       "train/at::native::distribution_elementwise_grid_stride_kernel<" + kDots + ">"},
      {"train/void k<a/b>(int)", "train/k<a/b>"},
      // Lambdas, local scopes and operators.
      {"void k<ns::f(int, float)::{lambda(float)#3}>(int)", "k<ns::f()::{lambda#3}>"},
      {"ns::operator<< <int>", "ns::operator<< <int>"},
      {"k<(anonymous namespace)::Tag>", "k<Tag>"},
  };
  for (const auto& c : cases) EXPECT_EQ(fold_name(c.full), c.expected) << c.full.substr(0, 200);
}

TEST(FoldName, LongNamesAreCutKeepingTheQualifiedFunction) {
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "ns" + std::to_string(i) + "::";
  const std::string shown = fold_name(deep + "my_kernel<int, 4>");
  EXPECT_LE(utf8_length(shown), kShortNameMax);
  EXPECT_EQ(shown.rfind(kDots + "::", 0), 0u) << shown;  // the outer namespaces give way first
  // Template arguments fold before namespaces go.
  EXPECT_EQ(shown.substr(shown.size() - 22), "::ns39::my_kernel<" + kDots + ">") << shown;

  const std::string c_name(300, 'k');
  EXPECT_EQ(fold_name(c_name), std::string(119, 'k') + kDots);  // nothing to fold: its end is cut
  EXPECT_EQ(fold_name("train/" + c_name), "train/" + std::string(113, 'k') + kDots);
  EXPECT_EQ(fold_name(kVectorizedAdd, 40), kDots + "::vectorized_elementwise_kernel<" + kDots + ">");
}

TEST(FoldName, MalformedNamesFoldWithoutCrashing) {
  EXPECT_EQ(fold_name("k<int"), "k<" + kDots);  // an unclosed list folds to the end
  EXPECT_EQ(fold_name("k<a, b<c>"), "k<" + kDots);
  EXPECT_EQ(fold_name("void k(int"), "k");
  EXPECT_EQ(fold_name("k>int"), "k>int");  // a closer that closes nothing is text
  EXPECT_EQ(fold_name("(("), "((");        // nothing would be left: shown as it is
  EXPECT_EQ(fold_name("k<(3>2)>"), "k<(3>2)>");
  EXPECT_EQ(fold_name("a->b<c>"), "a->b<c>");
  // Random bracket soup, long and short: never empty for a non-empty name, never longer than the limit.
  std::mt19937 rng(7);
  const std::string alphabet = "<>(){}[]:, ab#/";
  for (int i = 0; i < 2000; ++i) {
    std::string s(rng() % 400, ' ');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    const std::string shown = fold_name(s);
    EXPECT_LE(utf8_length(shown), kShortNameMax) << s;
    if (!s.empty()) {
      EXPECT_FALSE(shown.empty()) << s;
    }
  }
}

TEST(ShortNames, NamesThatFoldAlikeShowTheirFirstDifferingArgument) {
  const std::vector<std::string> names = {"train/" + pytorch_distribution_kernel("normal"),
                                          "train/" + pytorch_distribution_kernel("uniform"),
                                          "train/" + pytorch_distribution_kernel("bernoulli"),
                                          "train/add_one",
                                          "train/matmul<16>",
                                          "train/matmul<32>"};
  const ShortNames shorts(names);
  EXPECT_EQ(shorts(names[0]), "train/" + kDots + "::distribution_elementwise_grid_stride_kernel<" + kDots + ", " +
                                  kDots + "::templates::cuda::normal_and_transform<" + kDots + ">()::{lambda#2}, " +
                                  kDots + ">");
  EXPECT_NE(shorts(names[1]).find("uniform_and_transform"), std::string::npos);
  EXPECT_EQ(shorts(names[3]), "train/add_one");
  EXPECT_EQ(shorts(names[4]), "train/matmul<16>");
  std::set<std::string> seen;
  for (const auto& n : names) {
    EXPECT_LE(utf8_length(shorts(n)), kShortNameMax) << shorts(n);
    EXPECT_TRUE(seen.insert(shorts(n)).second) << "twice: " << shorts(n);
  }
  // A name outside the set gets its plain fold; one alone in its set too.
  EXPECT_EQ(shorts("train/" + pytorch_distribution_kernel("cauchy")),
            "train/at::native::distribution_elementwise_grid_stride_kernel<" + kDots + ">");
  EXPECT_EQ(ShortNames({names[0]})(names[0]),
            "train/at::native::distribution_elementwise_grid_stride_kernel<" + kDots + ">");
}

TEST(ShortNames, WhatNoArgumentTellsApartGetsAStableHash) {
  // Lambda #3 against #4, too deep to show within 120 characters.
  std::string other = kVectorizedDivFloor;
  for (auto at = other.find("{lambda()#4}"); at != std::string::npos; at = other.find("{lambda()#4}", at))
    other[at + 10] = '3';
  const ShortNames shorts({kVectorizedDivFloor, other});
  const std::string a = shorts(kVectorizedDivFloor), b = shorts(other);
  const std::string folded = fold_name(kVectorizedDivFloor);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.substr(0, folded.size() + 2), folded + " #");
  EXPECT_EQ(a.size(), folded.size() + 6);                                                  // " #" and four hex digits
  EXPECT_EQ(ShortNames({other, kVectorizedDivFloor, "add_one"})(kVectorizedDivFloor), a);  // stable
  // Two overloads that differ only in their parameters: hashes too.
  const ShortNames overloads({"void k(int)", "void k(float)"});
  EXPECT_NE(overloads("void k(int)"), overloads("void k(float)"));
  EXPECT_EQ(overloads("void k(int)").rfind("k #", 0), 0u);
}

TEST(ShortNames, DisplayNameKeepsTheParameters) {
  BenchmarkInstance inst{"train/" + pytorch_distribution_kernel("normal"),
                         {{"grid", std::string("64x1x1")}, {"block", std::string("256x1x1")}}};
  EXPECT_EQ(ShortNames({inst.name}).display_name(inst),
            "train/at::native::distribution_elementwise_grid_stride_kernel<" + kDots + ">[block=256x1x1,grid=64x1x1]");
  const BenchmarkInstance builtin{"matmul/tiled", {{"n", std::int64_t{1024}}, {"tile", std::int64_t{16}}}};
  EXPECT_EQ(ShortNames().display_name(builtin), builtin.display_name());
}

}  // namespace
}  // namespace gpuperf
