#include "profiler/timing.hpp"

#include <algorithm>

namespace gpuperf {

const char* to_string(TimingMode m) { return m == TimingMode::hot ? "hot" : "cold"; }

TimingOptions TimingOptions::quick() {
  TimingOptions o;
  o.warmup_launches = 1;
  o.warmup_min_s = 0.01;
  o.stop.min_samples = 5;
  o.stop.max_samples = 50;
  o.stop.target_rel_spread = 0.02;
  o.stop.max_time_s = 0.1;
  o.stop.min_time_s = 0;
  return o;
}

std::size_t TimingResult::throttled_count() const {
  return static_cast<std::size_t>(std::count(throttled.begin(), throttled.end(), true));
}

std::vector<bool> flag_throttled(const std::vector<double>& sm_clock_mhz, double reference_mhz, double fraction) {
  std::vector<bool> out(sm_clock_mhz.size(), false);
  if (!(reference_mhz > 0)) return out;
  for (std::size_t i = 0; i < sm_clock_mhz.size(); ++i) {
    // A reading of 0 means "no reading", not "stopped".
    out[i] = sm_clock_mhz[i] > 0 && sm_clock_mhz[i] < fraction * reference_mhz;
  }
  return out;
}

}  // namespace gpuperf
