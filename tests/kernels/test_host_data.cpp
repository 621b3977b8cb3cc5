#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <set>
#include <thread>

#include "core/errors.hpp"
#include "kernels/host_data.hpp"

namespace gpuperf {
namespace {

TEST(RandomFloats, SameSeedAndStreamGiveTheSameValues) {
  EXPECT_EQ(random_floats(1000, 42, 1), random_floats(1000, 42, 1));
  EXPECT_NE(random_floats(1000, 42, 1), random_floats(1000, 43, 1));
  EXPECT_NE(random_floats(1000, 42, 1), random_floats(1000, 42, 2));
}

TEST(RandomFloats, FillTheRangeWithoutConstantsOrZeros) {
  const auto v = random_floats(100000, 7, 3, -1.0f, 1.0f);
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  EXPECT_GE(*lo, -1.0f);
  EXPECT_LT(*hi, 1.0f);
  EXPECT_LT(*lo, -0.99f);
  EXPECT_GT(*hi, 0.99f);
  double mean = 0;
  for (float x : v) mean += x;
  mean /= static_cast<double>(v.size());
  EXPECT_NEAR(mean, 0.0, 0.01);  // 4.5 standard errors (1/sqrt(3 * 1e5) = 0.0018)
  EXPECT_LT(std::count(v.begin(), v.end(), 0.0f), 3);
}

TEST(RandomPermutation, IsAPermutationAndDependsOnTheSeed) {
  auto p = random_permutation(10000, 5, 1);
  EXPECT_NE(p, random_permutation(10000, 6, 1));
  std::size_t fixed_points = 0;
  for (std::size_t i = 0; i < p.size(); ++i) fixed_points += p[i] == i;
  EXPECT_LT(fixed_points, 10u);  // about 1 expected
  std::sort(p.begin(), p.end());
  for (std::size_t i = 0; i < p.size(); ++i) ASSERT_EQ(p[i], i);
}

TEST(ParallelFor, CoversEveryIndexOnce) {
  std::vector<int> hits(100003, 0);
  parallel_for(hits.size(), [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) hits[i]++;
  });
  EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), static_cast<long>(hits.size()));
}

TEST(ParallelFor, AGrainOfOneSplitsAFewCostlyItemsAcrossCores) {
  // 37 matrix rows: the default grain (4096 items a worker) would leave them to one thread.
  std::vector<int> hits(37, 0);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  parallel_for(
      hits.size(),
      [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) hits[i]++;
        std::lock_guard<std::mutex> lock(mutex);
        threads.insert(std::this_thread::get_id());
      },
      1);
  EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), 37);
  if (std::thread::hardware_concurrency() > 1) {
    EXPECT_GT(threads.size(), 1u);
  }
}

TEST(VerifyClose, PassesWithinToleranceAndNamesTheFirstWrongElement) {
  const std::vector<double> expected{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
  EXPECT_TRUE(verify_close({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}, expected, {}, Tolerance{1e-6, 0}, "c").ok);
  const Verification v =
      verify_close({1.0f, 2.0f, 3.0f, 4.0f, 5.5f, 7.0f}, expected, {}, Tolerance{1e-3, 0}, "c", index_2d(3));
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.message, "c[1,1] = 5.5, expected 5 (tolerance 0.005); 2 of 6 elements wrong");
}

TEST(VerifyClose, ToleranceScalesWithTheGivenMagnitude) {
  // A dot product that cancels to ~0: its rounding error follows sum |a b| (here 100), not the result.
  EXPECT_TRUE(verify_close({1e-5f}, {0.0}, {100.0}, Tolerance{1e-6, 0}, "y").ok);
  EXPECT_FALSE(verify_close({1e-3f}, {0.0}, {100.0}, Tolerance{1e-6, 0}, "y").ok);
}

TEST(VerifyClose, PoisonNeverPasses) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Verification v = verify_close({1.0f, nan}, {1.0, 2.0}, {}, Tolerance{1.0, 1.0}, "out");
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.message.rfind("out[1] = nan, expected 2", 0), 0u) << v.message;
  EXPECT_FALSE(verify_close({std::numeric_limits<float>::infinity()}, {1.0}, {}, Tolerance{1e9, 1e9}, "o").ok);
}

TEST(VerifyEqual, IsBitExact) {
  EXPECT_TRUE(verify_equal({1.5f, -0.25f}, {1.5f, -0.25f}, "out").ok);
  const Verification v = verify_equal({1.5f, std::nextafter(-0.25f, 0.0f)}, {1.5f, -0.25f}, "out");
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.message, "out[1] = -0.249999985, expected -0.25 (exact); 1 of 2 elements wrong");
  EXPECT_FALSE(verify_equal({1.0f}, {1.0f, 2.0f}, "out").ok);  // size mismatch
}

TEST(VerifyClose, LargeOutputsCountEveryWrongElementAndNameTheFirst) {
  // Large enough to be checked in parallel parts: the count, the first element and the largest error are
  // those of a serial scan, wherever the wrong elements fall.
  const std::size_t n = 1 << 20;
  std::vector<double> expected(n, 1.0);
  std::vector<float> got(n, 1.0f);
  got[n - 3] = 9.0f;
  got[700001] = 2.0f;
  got[123457] = 1.5f;
  const Verification v = verify_close(got, expected, {}, Tolerance{0.1, 0}, "y");
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.message, "y[123457] = 1.5, expected 1 (tolerance 0.1); 3 of 1048576 elements wrong");
  EXPECT_DOUBLE_EQ(v.max_rel_error, 8.0);
  got[n - 3] = got[700001] = got[123457] = 1.0f;
  got[n - 1] = 1.05f;
  const Verification ok = verify_close(got, expected, {}, Tolerance{0.1, 0}, "y");
  EXPECT_TRUE(ok.ok);
  EXPECT_NEAR(ok.max_rel_error, 0.05, 1e-6);
}

TEST(VerifyEqual, LargeOutputsNameTheFirstWrongElement) {
  const std::size_t n = 1 << 20;
  std::vector<float> expected(n, 3.0f), got(n, 3.0f);
  got[n - 1] = got[500000] = got[99999] = std::numeric_limits<float>::quiet_NaN();
  const Verification v = verify_equal(got, expected, "out");
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.message, "out[99999] = nan, expected 3 (exact); 3 of 1048576 elements wrong");
  EXPECT_TRUE(verify_equal(expected, expected, "out").ok);
}

TEST(HostWork, RandomInputAndReferenceTimesAddUpOnTheCallingThread) {
  const HostWork before = host_work();
  (void)random_floats(1 << 16, 1, 1);
  {
    HostWorkTimer timer(&HostWork::reference_s);
    volatile double sink = 0;
    for (int i = 0; i < 100000; ++i) sink = sink + i;
  }
  EXPECT_GT(host_work().random_input_s, before.random_input_s);
  EXPECT_GT(host_work().reference_s, before.reference_s);
}

TEST(IntParam, NamesTheBenchmarkAndParameter) {
  Params p{{"n", std::int64_t{1024}}, {"kind", std::string("x")}};
  EXPECT_EQ(int_param(p, "n", "matmul/naive"), 1024);
  try {
    int_param(p, "tile", "matmul/tiled");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "matmul/tiled: parameter 'tile' is missing");
  }
  EXPECT_THROW(int_param(p, "kind", "x/y"), InputError);
}

}  // namespace
}  // namespace gpuperf
