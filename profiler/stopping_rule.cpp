#include "profiler/stopping_rule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "core/stats.hpp"

namespace gpuperf {

const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::not_yet: return "not_yet";
    case StopReason::converged: return "converged";
    case StopReason::max_samples: return "max_samples";
    case StopReason::time_cap: return "time_cap";
  }
  return "not_yet";
}

double median_relative_spread(std::vector<double> samples) {
  const std::size_t n = samples.size();
  if (n < 2) return std::numeric_limits<double>::infinity();
  std::sort(samples.begin(), samples.end());
  const double med = quantile_sorted(samples, 0.5);
  if (!(med > 0)) return std::numeric_limits<double>::infinity();
  // 1-based ranks of the interval's ends; 0.98 = 1.96 / 2 (z of a two-sided 95% interval times the
  // binomial standard deviation sqrt(n)/2).
  const double half = 0.98 * std::sqrt(static_cast<double>(n));
  const double centre = static_cast<double>(n) / 2.0;
  const double lo_rank = std::max(1.0, std::floor(centre - half));
  const double hi_rank = std::min(static_cast<double>(n), std::ceil(centre + half + 1.0));
  const double lo = samples[static_cast<std::size_t>(lo_rank) - 1];
  const double hi = samples[static_cast<std::size_t>(hi_rank) - 1];
  return (hi - lo) / (2.0 * med);
}

double median_drift(const std::vector<double>& samples) {
  const std::size_t n = samples.size();
  if (n < 2) return std::numeric_limits<double>::infinity();
  const double all = median(samples);
  if (!(all > 0)) return std::numeric_limits<double>::infinity();
  const std::vector<double> older(samples.begin(), samples.begin() + static_cast<long>(n / 2));
  const std::vector<double> newer(samples.end() - static_cast<long>(n / 2), samples.end());
  return std::fabs(median(older) - median(newer)) / all;
}

StopReason should_stop(const std::vector<double>& samples, double elapsed_s, const StoppingCriteria& c) {
  const std::size_t n = samples.size();
  if (n >= c.max_samples) return StopReason::max_samples;
  if (n < c.min_samples) return StopReason::not_yet;
  if (elapsed_s >= c.min_time_s && median_relative_spread(samples) < c.target_rel_spread &&
      median_drift(samples) < 2.0 * c.target_rel_spread) {
    return StopReason::converged;
  }
  if (elapsed_s >= c.max_time_s) return StopReason::time_cap;
  return StopReason::not_yet;
}

void validate(const StoppingCriteria& c) {
  if (c.min_samples < 1) throw InputError("timing: the minimum sample count must be at least 1");
  if (c.max_samples < c.min_samples) {
    throw InputError("timing: the maximum sample count (" + std::to_string(c.max_samples) + ") is below the minimum (" +
                     std::to_string(c.min_samples) + ")");
  }
  if (!(c.target_rel_spread > 0)) throw InputError("timing: the target relative spread must be positive");
  if (!(c.max_time_s > 0)) throw InputError("timing: the time cap must be positive");
  if (!(c.min_time_s >= 0) || c.min_time_s > c.max_time_s) {
    throw InputError("timing: the minimum sampling time must be between 0 and the time cap");
  }
}

}  // namespace gpuperf
