#include <gtest/gtest.h>

#include "core/stats.hpp"

namespace gpuperf {
namespace {

TEST(Stats, SummaryOfKnownSamples) {
  Summary s = summarize({4, 1, 3, 2});
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.q1, 1.75);  // R type 7: 1 + 0.75 * (2 - 1)
  EXPECT_DOUBLE_EQ(s.q3, 3.25);
  EXPECT_NEAR(s.stdev, 1.2909944487358056, 1e-12);  // sqrt(5/3)
}

TEST(Stats, OddCountMedianIsMiddleValue) {
  EXPECT_DOUBLE_EQ(median({9, 1, 5}), 5);
  EXPECT_DOUBLE_EQ(quantile_sorted({10, 20, 30, 40, 50}, 0.9), 46);
}

TEST(Stats, SingleAndEmpty) {
  Summary one = summarize({7});
  EXPECT_EQ(one.n, 1u);
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.stdev, 0);
  Summary none = summarize({});
  EXPECT_EQ(none.n, 0u);
}

}  // namespace
}  // namespace gpuperf
