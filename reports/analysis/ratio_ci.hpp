// A confidence interval for the ratio of two samples' locations: the Hodges-Lehmann shift estimate on
// log values and its distribution-free interval (Bauer 1972; Hollander & Wolfe, Nonparametric Statistical
// Methods, section 4.3), exponentiated. Under a multiplicative shift model this is the ratio of medians.
#pragma once

#include <vector>

namespace gpuperf::analysis {

struct RatioInterval {
  double estimate = 1;  // exp(median of log y_j - log x_i)
  double low = 1, high = 1;
  bool valid = false;  // false: an empty side or non-positive values (then estimate is the ratio of medians)
};

// Interval for y/x at `confidence` (e.g. 0.99). The order statistics come from the exact null
// distribution of U for small samples and its normal approximation otherwise; pairwise differences are
// never materialised (k-th smallest by bisection), so 10^4 x 10^4 samples are fine.
RatioInterval ratio_interval(const std::vector<double>& x, const std::vector<double>& y, double confidence);

}  // namespace gpuperf::analysis
