// Distribution functions the tests need: the standard normal, Student's t via the regularized incomplete
// beta function. Plain functions, tested against tabulated values (tests/analysis/test_distributions.cpp).
#pragma once

namespace gpuperf::analysis {

// P(Z <= z) for a standard normal Z.
double normal_cdf(double z);
// The z with normal_cdf(z) == p, for p in (0, 1) (Acklam's rational approximation refined by one Halley
// step: relative error below 1e-12).
double normal_quantile(double p);
// The regularized incomplete beta function I_x(a, b) for a, b > 0 and x in [0, 1], by the continued
// fraction of Numerical Recipes (Press et al., 3rd ed., section 6.4) evaluated with the modified Lentz method.
double incomplete_beta(double a, double b, double x);
// P(T <= t) for Student's t with `df` > 0 degrees of freedom (df need not be an integer: Welch).
double student_t_cdf(double t, double df);
// The t with student_t_cdf(t, df) == p, for p in (0.5, 1) (bisection to a relative 1e-9).
double student_t_quantile(double p, double df);

}  // namespace gpuperf::analysis
