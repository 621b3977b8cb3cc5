// The statistics against values checked independently (brute-force
// enumeration of all arrangements for exact U p-values, direct formulas and numerical integration of the
// t density, computed in Python).
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "reports/analysis/distributions.hpp"
#include "reports/analysis/mann_whitney.hpp"
#include "reports/analysis/ratio_ci.hpp"
#include "reports/analysis/welch.hpp"

namespace gpuperf::analysis {
namespace {

TEST(Distributions, NormalCdfAndQuantile) {
  EXPECT_NEAR(normal_cdf(0), 0.5, 1e-15);
  EXPECT_NEAR(normal_cdf(1.96), 0.9750021048517795, 1e-13);
  EXPECT_NEAR(normal_cdf(-3), 0.0013498980316301, 1e-13);
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-10);
  EXPECT_NEAR(normal_quantile(0.005), -2.5758293035489004, 1e-10);
  for (double p : {1e-10, 0.01, 0.3, 0.5, 0.77, 0.999}) EXPECT_NEAR(normal_cdf(normal_quantile(p)), p, p * 1e-9);
}

TEST(Distributions, IncompleteBetaExactCases) {
  // Integer a, b: I_x(a, b) = sum_{j=a}^{a+b-1} C(a+b-1, j) x^j (1-x)^(a+b-1-j); a=2, b=3, x=1/2: 11/16.
  EXPECT_NEAR(incomplete_beta(2, 3, 0.5), 0.6875, 1e-14);
  EXPECT_NEAR(incomplete_beta(1, 1, 0.3), 0.3, 1e-14);                             // uniform
  EXPECT_NEAR(incomplete_beta(3, 1, 0.4), 0.064, 1e-14);                           // x^a when b = 1
  EXPECT_NEAR(incomplete_beta(5, 7, 0.9), 1 - incomplete_beta(7, 5, 0.1), 1e-14);  // symmetry
  EXPECT_EQ(incomplete_beta(2, 2, 0), 0.0);
  EXPECT_EQ(incomplete_beta(2, 2, 1), 1.0);
}

TEST(Distributions, StudentT) {
  EXPECT_NEAR(student_t_cdf(1, 1), 0.75, 1e-14);  // Cauchy
  // df = 2 has a closed form: 1/2 + t / (2 sqrt(2 + t^2)).
  EXPECT_NEAR(student_t_cdf(1, 2), 0.5 + 1 / (2 * std::sqrt(3.0)), 1e-14);
  // Numerical integration of the density (Simpson, 2e5 panels).
  EXPECT_NEAR(student_t_cdf(2.0, 10), 0.9633059826146273, 1e-9);
  EXPECT_NEAR(student_t_cdf(1.5, 3.7), 0.8932009153989899, 1e-9);
  EXPECT_NEAR(student_t_cdf(-2.5, 24.5), 0.00974763606000878, 1e-9);
  EXPECT_NEAR(student_t_cdf(0, 7), 0.5, 1e-15);
  // Large df tends to the normal.
  EXPECT_NEAR(student_t_cdf(1.96, 1e7), normal_cdf(1.96), 1e-6);
}

TEST(Distributions, StudentTQuantileRemembered) {
  // Tabulated: t_{0.975, 10} = 2.228139, t_{0.995, 3} = 5.840909.
  EXPECT_NEAR(student_t_quantile(0.975, 10), 2.2281388519649385, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.995, 3), 5.840909309733349, 1e-7);
  // A remembered answer is the computed one, bit for bit, and other (p, df) pairs are not confused with it.
  const double first = student_t_quantile(0.9, 7.5);
  EXPECT_EQ(student_t_quantile(0.9, 7.5), first);
  EXPECT_NE(student_t_quantile(0.9, 8.5), first);
  EXPECT_NEAR(student_t_cdf(first, 7.5), 0.9, 1e-9);
  // NaN is answered (not remembered) and leaves the remembered answers alone.
  student_t_quantile(0.9, std::nan(""));
  EXPECT_EQ(student_t_quantile(0.9, 7.5), first);
}

TEST(MannWhitney, MidRanksAndTieTerm) {
  double ties = 0;
  const std::vector<double> r = mid_ranks({3, 1, 3, 2, 3}, &ties);
  EXPECT_EQ(r, (std::vector<double>{4, 1, 4, 2, 4}));
  EXPECT_EQ(ties, 24.0);  // one group of 3: 27 - 3
}

TEST(MannWhitney, ExactSmallSamples) {
  // Completely separated 3 vs 3: U = 0, P(U <= 0) = 1/20, two-sided 0.1.
  MannWhitney r = mann_whitney_u({1, 2, 3}, {4, 5, 6});
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u_x, 0);
  EXPECT_EQ(r.u_y, 9);
  EXPECT_NEAR(r.p_value, 0.1, 1e-14);
  // 5 vs 5 separated: 2 / C(10, 5).
  EXPECT_NEAR(mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}).p_value, 2.0 / 252, 1e-14);
  // Interleaved: U = 6, brute force over all 126 arrangements: 52/126.
  r = mann_whitney_u({1.1, 3.5, 5.2, 7.9}, {2.2, 4.6, 6.3, 8.4, 10.1});
  EXPECT_EQ(r.u_x, 6);
  EXPECT_NEAR(r.p_value, 0.4126984126984127, 1e-12);
  r = mann_whitney_u({12.1, 14.3, 11.8, 13.0, 12.6}, {15.2, 13.9, 16.8, 14.7, 15.5, 17.1});
  EXPECT_EQ(r.u_x, 1);
  EXPECT_NEAR(r.p_value, 0.008658008658008658, 1e-12);  // 4 / 462
  // Symmetric in its arguments.
  EXPECT_NEAR(mann_whitney_u({15.2, 13.9, 16.8, 14.7, 15.5, 17.1}, {12.1, 14.3, 11.8, 13.0, 12.6}).p_value, r.p_value,
              1e-14);
  EXPECT_NEAR(mann_whitney_exact_cdf(4, 4, 2), 4.0 / 70, 1e-14);
}

TEST(MannWhitney, NormalApproximationWithTies) {
  // Ties force the normal approximation: tie-corrected variance, continuity correction.
  const MannWhitney r = mann_whitney_u({1, 2, 2, 3, 3, 3, 4, 5}, {3, 4, 4, 5, 5, 6, 7, 7, 8});
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.u_x, 7.5);
  EXPECT_NEAR(r.z, -2.727939278646863, 1e-12);
  EXPECT_NEAR(r.p_value, 0.006373133838085877, 1e-12);
}

TEST(MannWhitney, NormalApproximationLargeSamples) {
  std::vector<double> x, y;
  for (int i = 1; i <= 60; ++i) {
    x.push_back(i);
    y.push_back(i + 30.5);
  }
  const MannWhitney r = mann_whitney_u(x, y);
  EXPECT_FALSE(r.exact);  // 60 > 50
  EXPECT_EQ(r.u_x, 435);
  EXPECT_NEAR(r.z, -7.1617676573567675, 1e-10);
  EXPECT_NEAR(r.p_value / 7.964332670470494e-13, 1.0, 1e-6);
}

TEST(MannWhitney, DegenerateInputs) {
  EXPECT_EQ(mann_whitney_u({}, {1, 2}).p_value, 1.0);
  EXPECT_EQ(mann_whitney_u({5, 5, 5}, {5, 5}).p_value, 1.0);  // all tied
}

TEST(Welch, TextbookExample) {
  // Two samples of 15 (the Welch's t-test example of Wikipedia, "A1"/"A2"); t, df by formula, p by
  // numerical integration of the t density.
  const std::vector<double> a1{27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
                               21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4};
  const std::vector<double> a2{27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
                               24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4};
  const WelchT r = welch_t_test(a1, a2);
  EXPECT_NEAR(r.t, 2.45535639828601, 1e-10);
  EXPECT_NEAR(r.df, 24.98852929023142, 1e-9);
  EXPECT_NEAR(r.p_value, 0.02137800146286173, 1e-8);
}

TEST(Welch, Degenerate) {
  EXPECT_EQ(welch_t_test({1}, {2, 3}).p_value, 1.0);
  EXPECT_EQ(welch_t_test({2, 2, 2}, {2, 2}).p_value, 1.0);
  EXPECT_EQ(welch_t_test({2, 2, 2}, {3, 3}).p_value, 0.0);
}

TEST(RatioInterval, HodgesLehmannAndExactInterval) {
  // 6 vs 7: the median of 42 log ratios, and for 95% the 7th smallest to the 7th largest (exact null
  // distribution of U: P(U <= 6) <= 0.025 < P(U <= 7)).
  const RatioInterval r = ratio_interval({100, 102, 98, 101, 99, 103}, {110, 112, 109, 111, 113, 108, 110.5}, 0.95);
  ASSERT_TRUE(r.valid);
  EXPECT_NEAR(r.estimate, 1.0995048390476088, 1e-12);
  EXPECT_NEAR(r.low, 1.072815533980583, 1e-12);
  EXPECT_NEAR(r.high, 1.1275510204081634, 1e-12);
}

TEST(RatioInterval, PureScalingGivesTheFactor) {
  const RatioInterval r = ratio_interval({1, 2, 3, 4}, {2, 4, 6, 8}, 0.9);
  EXPECT_NEAR(r.estimate, 2.0, 1e-12);
  // 90%: P(U <= 1) = 2/70 <= 0.05 < P(U <= 2) = 4/70: the 2nd smallest and 2nd largest of 16 ratios.
  EXPECT_NEAR(r.low, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(r.high, 6.0, 1e-12);
}

TEST(RatioInterval, BisectionMatchesBruteForceOnLargeSamples) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(10, 0.05);
  std::vector<double> x(300), y(400);
  for (double& v : x) v = dist(rng);
  for (double& v : y) v = 1.03 * dist(rng);
  const RatioInterval r = ratio_interval(x, y, 0.99);
  std::vector<double> d;
  for (double b : y) {
    for (double a : x) d.push_back(std::log(b) - std::log(a));
  }
  std::sort(d.begin(), d.end());
  const double mid = (d[d.size() / 2 - 1] + d[d.size() / 2]) / 2;  // even count
  EXPECT_NEAR(std::log(r.estimate), mid, 1e-12);
  // Normal approximation of the order statistic: k = round(mn/2 - z * sqrt(mn(m+n+1)/12)).
  const double mn = 300.0 * 400.0;
  const double k = std::floor(mn / 2 - normal_quantile(0.995) * std::sqrt(mn * 701 / 12) + 0.5);
  EXPECT_NEAR(std::log(r.low), d[static_cast<std::size_t>(k) - 1], 1e-12);
  EXPECT_NEAR(std::log(r.high), d[d.size() - static_cast<std::size_t>(k)], 1e-12);
  EXPECT_GT(r.low, 1.0);
  EXPECT_LT(r.low, 1.03);
  EXPECT_GT(r.high, 1.03);
}

TEST(RatioInterval, NonPositiveValuesFallBackToRatioOfMedians) {
  const RatioInterval r = ratio_interval({0, 2, 4}, {3, 6, 9}, 0.95);
  EXPECT_FALSE(r.valid);
  EXPECT_NEAR(r.estimate, 3.0, 1e-15);
}

}  // namespace
}  // namespace gpuperf::analysis
