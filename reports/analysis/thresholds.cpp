#include "reports/analysis/thresholds.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "core/errors.hpp"
#include "reports/analysis/gate.hpp"

namespace gpuperf::analysis {

namespace {

// Counters marked deterministic that still move between runs of one binary on an H200 (measured with
// bench/detect/detect_eval_gpu.sh, 13 runs): shared load/store wavefronts by up to 1.2% (13303..13468 store
// wavefronts of matvec/shared), bank conflicts by up to 15% where the count is small (832..960). Real changes of these
// (a tile size, padding) are 2x and more.
void nearly_deterministic(Thresholds& t) {
  t.min_effect_pct["shared_load_transactions"] = 2.0;
  t.min_effect_pct["shared_store_transactions"] = 2.0;
  t.min_effect_pct["shared_bank_conflicts"] = 25.0;
}

// The practical floor of the sampled rate counters, each one value per run. Three nightly runs of one build on
// an H100 (issue 39) moved stall ratios by 2.3-3.9% (stall_not_selected 0.2854 -> 0.2924 warps/issue),
// issue activity by 2.1%, and a near-zero stall from 9.9e-05 to 5.8e-04 warps/issue (+489%). A stall ratio's
// few-percent wobble is not a change; a code change that matters moves it by tens of percent and by more than
// a hundredth of a warp per issue. Throughputs and issue activity are percentages of a peak: 5%.
void sampled_rates(Thresholds& t) {
  for (const char* stall : {"stall_long_scoreboard", "stall_math_throttle", "stall_barrier", "stall_not_selected"}) {
    t.min_effect_pct[stall] = 10.0;
    t.min_effect_abs[stall] = 0.01;  // warps/issue
  }
  for (const char* rate : {"issue_active", "sm_throughput", "memory_throughput", "dram_throughput"}) {
    t.min_effect_pct[rate] = 5.0;
    t.min_effect_abs[rate] = 0.5;  // percentage points of the peak
  }
  // A recorded program's per-kernel totals, one value per run: GPU time summed over launches, and its share.
  t.min_effect_pct["gpu_time_total"] = 5.0;
  t.min_effect_pct["gpu_time_share"] = 5.0;
  t.min_effect_abs["gpu_time_share"] = 0.5;  // percentage points
}

}  // namespace

Thresholds Thresholds::for_compare() {
  Thresholds t;
  t.alpha = 0.01;
  t.default_min_effect_pct = 2.0;
  // DRAM bytes and achieved occupancy are single profiler values; on an H200 reruns moved them by up to
  // 5.6% (and kB-sized write-backs by much more, hence the absolute floor).
  t.min_effect_pct = {{"duration", 2.0},        {"gbps", 2.0},
                      {"gflops", 2.0},          {"achieved_occupancy", 5.0},
                      {"dram_bytes_read", 5.0}, {"dram_bytes_written", 5.0}};
  t.min_effect_abs = {{"dram_bytes_read", 1e6}, {"dram_bytes_written", 1e6}};
  sampled_rates(t);
  nearly_deterministic(t);
  return t;
}

Thresholds Thresholds::for_detect() {
  Thresholds t;
  t.alpha = 0.005;
  t.default_min_effect_pct = 1.0;
  nearly_deterministic(t);
  return t;
}

double Thresholds::abs_floor_for(const MetricInfo& metric) const {
  const auto it = min_effect_abs.find(metric.name);
  return it == min_effect_abs.end() ? 0.0 : it->second;
}

bool Thresholds::below_absolute_floor(const MetricInfo& metric, double before, double after) const {
  const auto it = min_effect_abs.find(metric.name);
  return it != min_effect_abs.end() && std::fabs(after - before) < it->second;
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
    return;
  }
  // program_time: a recorded program's total kernel time (program_change.hpp), not a metric of a kernel.
  if (name != kProgramTimeMetric)
    check_metric_name(name, "--threshold '" + spec + "'");  // a typo must not leave the floor at its default
  min_effect_pct[name] = pct;
}

}  // namespace gpuperf::analysis
