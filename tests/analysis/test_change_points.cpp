// The change-point search on fixed seeded series.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "reports/analysis/change_points.hpp"

namespace gpuperf::analysis {
namespace {

// `n` points around `level` with relative noise `cv`; from `step_at` on the level is multiplied by `factor`.
std::vector<double> series(std::size_t n, double cv, std::size_t step_at, double factor, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, cv);
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(1000.0 * (i >= step_at ? factor : 1.0) * (1 + noise(rng)));
  return v;
}

TEST(ChangePoints, FindsAStepWhereItIs) {
  const auto v = series(40, 0.01, 25, 1.08, 1);
  const auto cps = find_change_points(v, {});
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 25u);
  EXPECT_LT(cps[0].p_value, 0.005);
  EXPECT_NEAR(cps[0].before, 1000, 10);
  EXPECT_NEAR(cps[0].after, 1080, 11);
}

TEST(ChangePoints, FindsTwoStepsUpAndDown) {
  auto v = series(60, 0.01, 20, 1.10, 2);
  for (std::size_t i = 40; i < 60; ++i) v[i] /= 1.10 * 1.05;  // down to 5% below the start
  const auto cps = find_change_points(v, {});
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 20u);
  EXPECT_EQ(cps[1].index, 40u);
  EXPECT_GT(cps[0].after, cps[0].before);
  EXPECT_LT(cps[1].after, cps[1].before);
}

TEST(ChangePoints, FindsAStepEightRunsFromTheEnd) {
  const auto v = series(38, 0.02, 30, 0.90, 3);  // 4 sigma = 8%: here 10% faster
  const auto cps = find_change_points(v, {});
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_NEAR(static_cast<double>(cps[0].index), 30, 1);
}

TEST(ChangePoints, NoChangeInFlatNoise) {
  // 200 series without a change: the permutation test holds the false-alarm rate near alpha (0.5%).
  std::size_t alarms = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    SegmentationOptions o;
    o.seed = seed;
    alarms += find_change_points(series(40, 0.02, 40, 1.0, 100 + seed), o).empty() ? 0 : 1;
  }
  EXPECT_LE(alarms, 4u);
}

TEST(ChangePoints, OutliersAreNotChanges) {
  auto v = series(40, 0.01, 40, 1.0, 4);
  v[10] *= 10;  // one wild run
  v[30] *= 1.5;
  v[31] *= 1.4;  // two slow runs in a row
  EXPECT_TRUE(find_change_points(v, {}).empty());
}

TEST(ChangePoints, AnOutlierNextToAStepDoesNotMoveIt) {
  auto v = series(40, 0.005, 30, 1.03, 5);
  v[28] *= 1.3;  // a slow run just before a 3% slowdown would pull a rank split towards it
  const auto cps = find_change_points(v, {});
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 30u);
}

TEST(ChangePoints, TooShortOrTooSmall) {
  EXPECT_TRUE(find_change_points(series(7, 0.01, 4, 1.5, 6), {}).empty());  // < 2 * min_segment
  SegmentationOptions o;
  o.min_effect_pct = 5;
  EXPECT_TRUE(find_change_points(series(60, 0.001, 30, 1.03, 7), o).empty());  // real but below the floor
  o.min_effect_pct = 1;
  EXPECT_EQ(find_change_points(series(60, 0.001, 30, 1.03, 7), o).size(), 1u);
}

TEST(ChangePoints, SameInputSameAnswer) {
  const auto v = series(50, 0.03, 20, 1.09, 8);
  const auto a = find_change_points(v, {});
  const auto b = find_change_points(v, {});
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].index, b[i].index);
    EXPECT_EQ(a[i].p_value, b[i].p_value);
  }
}

TEST(ChangePoints, PermutationPValue) {
  // A clean step: no permutation scores as high (p = 1 / (B + 1)); flat noise: p well above alpha.
  std::size_t k = 0;
  EXPECT_NEAR(best_split_p_value(series(30, 0.001, 15, 1.1, 9), 4, 999, 1, &k), 1.0 / 1000, 1e-12);
  EXPECT_EQ(k, 15u);
  EXPECT_GT(best_split_p_value(series(30, 0.01, 30, 1.0, 10), 4, 999, 1, &k), 0.05);
  EXPECT_EQ(best_split_p_value({1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 4, 999, 1, &k), 1.0);  // all tied
}

TEST(ChangePoints, HampelFilter) {
  std::vector<double> v = series(30, 0.01, 30, 1.0, 11);
  v[7] = 5000;
  const auto outliers = find_outliers(v, 5);
  EXPECT_EQ(std::count(outliers.begin(), outliers.end(), true), 1);
  EXPECT_TRUE(outliers[7]);
  // A step of 4+ runs is not an outlier.
  const auto stepped = find_outliers(series(30, 0.01, 26, 1.5, 12), 5);
  EXPECT_EQ(std::count(stepped.begin(), stepped.end(), true), 0);
}

TEST(LevelChanges, DeterministicCounters) {
  const auto cps = find_level_changes({32, 32, 32, 40, 40, 40, 32}, 0.01);
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 3u);
  EXPECT_EQ(cps[0].before, 32);
  EXPECT_EQ(cps[0].after, 40);
  EXPECT_EQ(cps[0].p_value, 0);
  EXPECT_EQ(cps[1].index, 6u);
  // Rounding is not a change; zero to zero is not either.
  EXPECT_TRUE(find_level_changes({100, 100.000001, 99.9999995, 100}, 0.01).empty());
  EXPECT_TRUE(find_level_changes({0, 0, 0}, 0.01).empty());
  EXPECT_EQ(find_level_changes({0, 0, 4}, 0.01).size(), 1u);
}

}  // namespace
}  // namespace gpuperf::analysis
