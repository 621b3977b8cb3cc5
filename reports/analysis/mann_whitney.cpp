#include "reports/analysis/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gpuperf::analysis {

std::vector<double> mid_ranks(const std::vector<double>& values, double* tie_term) {
  const std::size_t n = values.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(n);
  double ties = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && values[order[j]] == values[order[i]]) ++j;
    // Positions i..j-1 (0-based) share the mean of ranks i+1..j.
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (std::size_t k = i; k < j; ++k) ranks[order[k]] = rank;
    const auto t = static_cast<double>(j - i);
    ties += t * t * t - t;
    i = j;
  }
  if (tie_term != nullptr) *tie_term = ties;
  return ranks;
}

// The number of arrangements of sizes (i, j) with U = u obeys c(i, j, u) = c(i - 1, j, u - j) +
// c(i, j - 1, u): the largest of all i + j values belongs either to the first sample (beating all j of the
// second) or to the second (adding nothing).
std::vector<double> mann_whitney_exact_pmf(std::size_t m, std::size_t n) {
  const std::size_t max_u = m * n;
  // row[j][u] = c(i, j, u) for the current i.
  std::vector<std::vector<double>> row(n + 1, std::vector<double>(max_u + 1, 0.0));
  for (std::size_t j = 0; j <= n; ++j) row[j][0] = 1.0;  // i = 0: one arrangement, U = 0
  for (std::size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> next(n + 1, std::vector<double>(max_u + 1, 0.0));
    next[0][0] = 1.0;  // j = 0: U = 0
    for (std::size_t j = 1; j <= n; ++j) {
      for (std::size_t u = 0; u <= i * j; ++u) {
        double c = next[j - 1][u];
        if (u >= j) c += row[j][u - j];
        next[j][u] = c;
      }
    }
    row.swap(next);
  }
  std::vector<double> p = row[n];
  const double total = std::accumulate(p.begin(), p.end(), 0.0);
  for (double& v : p) v /= total;
  return p;
}

namespace {

bool exact_allowed(std::size_t m, std::size_t n) { return m <= 50 && n <= 50 && m * n <= 2500; }

}  // namespace

double mann_whitney_exact_cdf(std::size_t m, std::size_t n, double u) {
  if (u < 0) return 0.0;
  const std::vector<double> p = mann_whitney_exact_pmf(m, n);
  const auto last = std::min(static_cast<std::size_t>(std::floor(u + 1e-9)), m * n);
  double sum = 0;
  for (std::size_t k = 0; k <= last; ++k) sum += p[k];
  return std::min(sum, 1.0);
}

MannWhitney mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  MannWhitney r;
  const std::size_t m = x.size(), n = y.size();
  if (m == 0 || n == 0) return r;
  std::vector<double> all(x);
  all.insert(all.end(), y.begin(), y.end());
  double tie_term = 0;
  const std::vector<double> ranks = mid_ranks(all, &tie_term);
  const double rank_sum_x = std::accumulate(ranks.begin(), ranks.begin() + static_cast<std::ptrdiff_t>(m), 0.0);
  const double md = static_cast<double>(m), nd = static_cast<double>(n), big_n = md + nd;
  r.u_x = rank_sum_x - md * (md + 1) / 2;
  r.u_y = md * nd - r.u_x;

  const double mu = md * nd / 2;
  const double var = md * nd / 12.0 * ((big_n + 1) - tie_term / (big_n * (big_n - 1)));
  const double dev = r.u_x - mu;
  if (var > 0) {
    // Continuity correction: move |U - mu| half a step towards zero.
    const double corrected = std::max(std::fabs(dev) - 0.5, 0.0);
    r.z = std::copysign(corrected, dev) / std::sqrt(var);
  }
  if (tie_term == 0 && exact_allowed(m, n)) {
    r.exact = true;
    const double tail = mann_whitney_exact_cdf(m, n, std::min(r.u_x, r.u_y));
    r.p_value = std::min(1.0, 2 * tail);
  } else if (var > 0) {
    r.p_value = std::min(1.0, std::erfc(std::fabs(r.z) / std::sqrt(2.0)));
  } else {
    r.p_value = 1.0;  // every value tied: no evidence of a difference
  }
  return r;
}

}  // namespace gpuperf::analysis
