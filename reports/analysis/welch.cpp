#include "reports/analysis/welch.hpp"

#include <cmath>

#include "core/stats.hpp"
#include "reports/analysis/distributions.hpp"

namespace gpuperf::analysis {

WelchT welch_t_test(const std::vector<double>& x, const std::vector<double>& y) {
  WelchT r;
  if (x.size() < 2 || y.size() < 2) return r;
  const double nx = static_cast<double>(x.size()), ny = static_cast<double>(y.size());
  const double mx = mean(x), my = mean(y);
  const double vx = stdev(x) * stdev(x) / nx, vy = stdev(y) * stdev(y) / ny;  // squared standard errors
  const double se2 = vx + vy;
  if (se2 <= 0) {
    // Two constant samples: they differ or they do not; there is no noise to weigh it against.
    r.p_value = (mx == my) ? 1.0 : 0.0;
    r.t = (mx == my) ? 0.0 : std::copysign(INFINITY, my - mx);
    r.df = nx + ny - 2;
    return r;
  }
  r.t = (my - mx) / std::sqrt(se2);
  // Welch-Satterthwaite: (vx + vy)^2 / (vx^2/(nx-1) + vy^2/(ny-1)).
  r.df = se2 * se2 / (vx * vx / (nx - 1) + vy * vy / (ny - 1));
  r.p_value = 2 * student_t_cdf(-std::fabs(r.t), r.df);
  if (r.p_value > 1) r.p_value = 1;
  return r;
}

}  // namespace gpuperf::analysis
