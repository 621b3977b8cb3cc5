#include "reports/analysis/ratio_ci.hpp"

#include <algorithm>
#include <cmath>

#include "core/stats.hpp"
#include "reports/analysis/distributions.hpp"
#include "reports/analysis/mann_whitney.hpp"

namespace gpuperf::analysis {
namespace {

// Number of pairs (i, j) with y[j] - x[i] <= t; x and y sorted ascending. Two pointers, O(m + n).
double count_at_most(const std::vector<double>& x, const std::vector<double>& y, double t) {
  // Walk y ascending; the first x index with x >= y[j] - t never moves left.
  double count = 0;
  std::size_t first = 0;
  for (double yj : y) {
    const double bound = yj - t;
    while (first < x.size() && x[first] < bound) ++first;
    count += static_cast<double>(x.size() - first);
  }
  return count;
}

// The k-th smallest (1-based) of the m*n differences y[j] - x[i], without materialising them: bisection on
// the value until the bracket is one ulp wide. The count jumps only at actual differences, so the upper
// end of the bracket is (to within an ulp) the k-th difference.
double kth_difference(const std::vector<double>& x, const std::vector<double>& y, double k) {
  double lo = y.front() - x.back();  // smallest difference
  double hi = y.back() - x.front();  // largest difference
  if (count_at_most(x, y, lo) >= k) return lo;
  for (int iter = 0; iter < 200; ++iter) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (count_at_most(x, y, mid) >= k) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return hi;
}

// The largest k with P(U <= k - 1) <= (1 - confidence) / 2, at least 1: the interval is the k-th
// smallest to the k-th largest difference (Hollander & Wolfe, section 4.3).
double order_statistic_index(std::size_t m, std::size_t n, double confidence) {
  const double half_alpha = (1 - confidence) / 2;
  const double mn = static_cast<double>(m) * static_cast<double>(n);
  if (m <= 50 && n <= 50 && m * n <= 2500) {
    const std::vector<double> pmf = mann_whitney_exact_pmf(m, n);
    double cdf = pmf[0];  // P(U <= k - 1) for k = 1
    std::size_t k = 1;
    while (static_cast<double>(k) < mn / 2 && cdf + pmf[k] <= half_alpha) {  // P(U <= k) <= a/2: k + 1 works
      cdf += pmf[k];
      ++k;
    }
    return static_cast<double>(k);
  }
  const double sd = std::sqrt(mn * static_cast<double>(m + n + 1) / 12.0);
  const double k = std::floor(mn / 2 - normal_quantile(1 - half_alpha) * sd + 0.5);
  return std::max(k, 1.0);
}

}  // namespace

RatioInterval ratio_interval(const std::vector<double>& x, const std::vector<double>& y, double confidence) {
  RatioInterval r;
  if (x.empty() || y.empty()) return r;
  const bool positive = std::all_of(x.begin(), x.end(), [](double v) { return v > 0; }) &&
                        std::all_of(y.begin(), y.end(), [](double v) { return v > 0; });
  if (!positive) {
    const double mx = median(x);
    r.estimate = r.low = r.high = (mx != 0) ? median(y) / mx : 1.0;
    return r;
  }
  std::vector<double> lx(x.size()), ly(y.size());
  std::transform(x.begin(), x.end(), lx.begin(), [](double v) { return std::log(v); });
  std::transform(y.begin(), y.end(), ly.begin(), [](double v) { return std::log(v); });
  std::sort(lx.begin(), lx.end());
  std::sort(ly.begin(), ly.end());
  const double mn = static_cast<double>(x.size()) * static_cast<double>(y.size());
  // Median of the differences: the middle one, or the mean of the middle two.
  const double mid_lo = kth_difference(lx, ly, std::floor((mn + 1) / 2));
  const double mid_hi = kth_difference(lx, ly, std::ceil((mn + 1) / 2));
  r.estimate = std::exp((mid_lo + mid_hi) / 2);
  const double k = order_statistic_index(x.size(), y.size(), confidence);
  r.low = std::exp(kth_difference(lx, ly, k));
  r.high = std::exp(kth_difference(lx, ly, mn + 1 - k));
  r.valid = true;
  return r;
}

}  // namespace gpuperf::analysis
