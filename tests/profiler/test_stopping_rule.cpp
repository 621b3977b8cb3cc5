// The stopping rule fed with fake samples of known shape.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/errors.hpp"
#include "profiler/stopping_rule.hpp"
#include "profiler/timing.hpp"

namespace gpuperf {
namespace {

TEST(MedianRelativeSpread, KnownOrderStatistics) {
  // n = 25: ranks floor(12.5 - 4.9) = 7 and ceil(1 + 12.5 + 4.9) = 19 of 1..25, median 13.
  std::vector<double> v;
  for (int i = 1; i <= 25; ++i) v.push_back(i);
  EXPECT_DOUBLE_EQ(median_relative_spread(v), (19.0 - 7.0) / (2.0 * 13.0));
  // Order does not matter; scale does not matter.
  std::vector<double> scaled;
  for (int i = 25; i >= 1; --i) scaled.push_back(1000.0 * i);
  EXPECT_DOUBLE_EQ(median_relative_spread(scaled), median_relative_spread(v));
}

TEST(MedianRelativeSpread, DegenerateInputs) {
  EXPECT_TRUE(std::isinf(median_relative_spread({})));
  EXPECT_TRUE(std::isinf(median_relative_spread({5.0})));
  EXPECT_TRUE(std::isinf(median_relative_spread({0.0, 0.0, 0.0})));
  EXPECT_DOUBLE_EQ(median_relative_spread(std::vector<double>(40, 7.0)), 0.0);
}

TEST(MedianRelativeSpread, IgnoresATailOfOutliers) {
  // 100 samples at 100 +/- 0.1 and 10 at 500 (preempted launches): the median's interval stays tight,
  // although the standard deviation is enormous.
  std::vector<double> v;
  for (int i = 0; i < 100; ++i) v.push_back(100.0 + 0.1 * ((i % 3) - 1));
  for (int i = 0; i < 10; ++i) v.push_back(500.0);
  EXPECT_LT(median_relative_spread(v), 0.002);
}

TEST(ShouldStop, MinimumCountComesFirst) {
  StoppingCriteria c;
  c.min_samples = 10;
  c.min_time_s = 0;
  const std::vector<double> identical(9, 50.0);
  EXPECT_EQ(should_stop(identical, 100.0, c), StopReason::not_yet);  // even past the time cap
  EXPECT_EQ(should_stop(std::vector<double>(10, 50.0), 0.0, c), StopReason::converged);
}

TEST(ShouldStop, ConvergesOnceTheSpreadIsUnderTarget) {
  StoppingCriteria c;
  c.min_samples = 10;
  c.min_time_s = 0;
  c.target_rel_spread = 0.005;
  std::mt19937 gen(1);
  std::normal_distribution<double> noise(100.0, 2.0);  // 2% noise: the median needs many samples
  std::vector<double> v;
  StopReason r = StopReason::not_yet;
  while (r == StopReason::not_yet && v.size() < 100000) {
    v.push_back(noise(gen));
    r = should_stop(v, 0.0, c);
  }
  EXPECT_EQ(r, StopReason::converged);
  // Half-width of the median's 95% interval ~ 1.96 * 1.2533 * sigma / sqrt(n) = 0.5 -> n ~ 97.
  EXPECT_GT(v.size(), 50u);
  EXPECT_LT(v.size(), 250u);
}

TEST(MedianDrift, ComparesTheOlderAndNewerHalves) {
  EXPECT_DOUBLE_EQ(median_drift({100, 100, 100, 100}), 0.0);
  EXPECT_DOUBLE_EQ(median_drift({100, 100, 7, 96, 96}), 4.0 / 96.0);  // middle sample in neither half
  EXPECT_TRUE(std::isinf(median_drift({1.0})));
}

TEST(ShouldStop, ALevelShiftWhileSamplingIsNotConvergence) {
  // 30 samples at 100 then 10 at 96 (a power state settling): the interval around the median (100) is
  // tight, but the newer half's median is 98, 2% away.
  StoppingCriteria c;
  c.min_samples = 10;
  c.min_time_s = 0;
  std::vector<double> v(30, 100.0);
  v.insert(v.end(), 10, 96.0);
  EXPECT_LT(median_relative_spread(v), c.target_rel_spread);
  EXPECT_EQ(should_stop(v, 0.0, c), StopReason::not_yet);
  v.insert(v.end(), 160, 96.0);  // once the new level holds in both halves, the rule settles on it
  EXPECT_EQ(should_stop(v, 0.0, c), StopReason::converged);
  EXPECT_DOUBLE_EQ(median(v), 96.0);
}

TEST(ShouldStop, ConvergenceWaitsForTheMinimumSamplingTime) {
  StoppingCriteria c;
  c.min_samples = 10;
  c.min_time_s = 0.05;
  const std::vector<double> steady(40, 80.0);
  EXPECT_EQ(should_stop(steady, 0.01, c), StopReason::not_yet);
  EXPECT_EQ(should_stop(steady, 0.05, c), StopReason::converged);
  c.min_time_s = 2.0;  // beyond the cap
  EXPECT_THROW(validate(c), InputError);
}

TEST(ShouldStop, TimeCapAndSampleCapStopANoisyInstance) {
  StoppingCriteria c;
  c.min_samples = 5;
  c.max_samples = 60;
  c.target_rel_spread = 1e-6;
  c.max_time_s = 1.0;
  std::vector<double> v;
  for (int i = 0; i < 30; ++i) v.push_back(i % 2 ? 100.0 : 120.0);
  EXPECT_EQ(should_stop(v, 0.5, c), StopReason::not_yet);
  EXPECT_EQ(should_stop(v, 1.0, c), StopReason::time_cap);
  v.resize(60, 110.0);
  EXPECT_EQ(should_stop(v, 0.0, c), StopReason::max_samples);
}

TEST(StoppingCriteria, ValidationNamesTheField) {
  StoppingCriteria c;
  c.min_samples = 10;
  c.max_samples = 5;
  EXPECT_THROW(validate(c), InputError);
  c = StoppingCriteria{};
  c.target_rel_spread = 0;
  EXPECT_THROW(validate(c), InputError);
  EXPECT_NO_THROW(validate(StoppingCriteria{}));
  EXPECT_NO_THROW(validate(TimingOptions::quick().stop));
}

TEST(Throttle, SamplesBelowTheFractionOfTheReferenceAreFlagged) {
  EXPECT_EQ(flag_throttled({1980, 1500, 1800, 1700, 0}, 1980, 0.9),
            (std::vector<bool>{false, true, false, true, false}));                   // 0.9 * 1980 = 1782
  EXPECT_EQ(flag_throttled({100, 200}, 0, 0.9), (std::vector<bool>{false, false}));  // no reference
}

}  // namespace
}  // namespace gpuperf
