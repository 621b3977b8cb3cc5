#include "reports/analysis/level_band.hpp"

#include <algorithm>
#include <cmath>

#include "core/metrics.hpp"
#include "core/stats.hpp"
#include "reports/analysis/distributions.hpp"

namespace gpuperf::analysis {

bool judged_by_level(const MetricInfo& metric) {
  const MetricTraits* t = find_metric(metric.name);
  return t == nullptr || (t->source != MetricSource::timing && t->source != MetricSource::derived);
}

LevelBand level_band(const std::vector<double>& levels) {
  LevelBand b;
  b.m = levels.size();
  if (levels.empty()) return b;
  b.level = median(levels);
  b.sd = levels.size() >= 2 ? stdev(levels) : 0.0;
  const auto [lo, hi] = std::minmax_element(levels.begin(), levels.end());
  b.low = *lo;
  b.high = *hi;
  return b;
}

double prediction_bound(const LevelBand& band, double p) {
  if (band.m < 2) return INFINITY;
  const double m = static_cast<double>(band.m);
  return student_t_quantile(p, m - 1) * band.sd * std::sqrt(1 + 1 / m);
}

int outside_band(double v, const LevelBand& band, double margin_pct, double abs_floor, double bound) {
  const double margin = margin_pct / 100;
  const double above = std::max(std::fabs(band.high) * margin, abs_floor);
  const double below = std::max(std::fabs(band.low) * margin, abs_floor);
  if (v <= band.high + above && v >= band.low - below) return 0;  // rule 1
  if (std::fabs(v - band.level) <= bound) return 0;               // rule 2
  return v > band.level ? 1 : -1;
}

}  // namespace gpuperf::analysis
