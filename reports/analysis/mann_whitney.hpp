// The Mann-Whitney U test (Wilcoxon rank-sum) of two independent samples, two-sided.
#pragma once

#include <cstddef>
#include <vector>

namespace gpuperf::analysis {

struct MannWhitney {
  double u_x = 0;      // U of the first sample: pairs (x_i, y_j) with x_i > y_j, ties counting 1/2
  double u_y = 0;      // n_x * n_y - u_x
  double z = 0;        // normal score of u_x: tie-corrected variance, continuity-corrected
  double p_value = 1;  // two-sided
  bool exact = false;  // true: p from the exact permutation distribution of U
};

// Exact p when there are no ties and n_x * n_y is small (both <= 50 and the product <= 2500: the
// distribution is counted by dynamic programming); otherwise the normal approximation with the tie
// correction of the variance and a continuity correction of 1/2. Empty samples give p = 1.
MannWhitney mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

// P(U = u) for u = 0..m*n under H0 for sample sizes m and n without ties (exact, by counting).
std::vector<double> mann_whitney_exact_pmf(std::size_t m, std::size_t n);
// P(U <= u) under H0 for sample sizes m and n without ties (exact, by counting).
double mann_whitney_exact_cdf(std::size_t m, std::size_t n, double u);

// Mid-ranks (1-based) of `values` in their own order, ties sharing the mean of their ranks; `tie_term`
// receives sum(t^3 - t) over groups of t tied values (for the variance correction).
std::vector<double> mid_ranks(const std::vector<double>& values, double* tie_term = nullptr);

}  // namespace gpuperf::analysis
