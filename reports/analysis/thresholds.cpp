#include "reports/analysis/thresholds.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "profiler/model/errors.hpp"

namespace gpuperf::analysis {

Thresholds Thresholds::for_compare() {
  Thresholds t;
  t.alpha = 0.01;
  t.default_min_effect_pct = 2.0;
  t.min_effect_pct = {{"duration", 2.0},          {"gbps", 2.0},          {"gflops", 2.0},
                      {"achieved_occupancy", 3.0}, {"dram_bytes_read", 1.0}, {"dram_bytes_written", 1.0}};
  return t;
}

Thresholds Thresholds::for_detect() {
  Thresholds t;
  t.alpha = 0.005;
  t.default_min_effect_pct = 1.0;
  return t;
}

double Thresholds::min_effect_for(const MetricInfo& metric) const {
  if (auto it = min_effect_pct.find(metric.name); it != min_effect_pct.end()) return it->second;
  return metric.deterministic ? deterministic_tolerance_pct : default_min_effect_pct;
}

void Thresholds::apply(const std::string& spec) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
    throw InputError("threshold '" + spec + "' must look like METRIC=PERCENT, e.g. duration=3 or '*=2.5'");
  }
  const std::string name = spec.substr(0, eq);
  std::string number = spec.substr(eq + 1);
  if (!number.empty() && number.back() == '%') number.pop_back();
  char* end = nullptr;
  errno = 0;
  const double pct = std::strtod(number.c_str(), &end);
  if (number.empty() || end == nullptr || *end != '\0' || errno != 0 || !std::isfinite(pct) || pct < 0) {
    throw InputError("threshold '" + spec + "': '" + spec.substr(eq + 1) +
                     "' is not a percentage (a number >= 0, optionally followed by %)");
  }
  if (name == "*") {
    default_min_effect_pct = pct;
  } else {
    min_effect_pct[name] = pct;
  }
}

}  // namespace gpuperf::analysis
