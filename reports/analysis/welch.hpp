// Welch's two-sample t-test (unequal variances), two-sided.
#pragma once

#include <vector>

namespace gpuperf::analysis {

struct WelchT {
  double t = 0;        // (mean_y - mean_x) / sqrt(s_x^2/n_x + s_y^2/n_y)
  double df = 0;       // Welch-Satterthwaite degrees of freedom
  double p_value = 1;  // two-sided, from Student's t CDF
};

// Needs at least 2 values per side; otherwise p = 1. Two constant samples: p = 0 when their means
// differ, 1 when equal.
WelchT welch_t_test(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace gpuperf::analysis
