// Where a run's time goes: with GPUPERF_PHASE_TIMES set (to anything but empty or 0), the runner's and the
// collector's phases print their wall time to stderr ("gpuperf phase: <what> <seconds> s"), for
// bench/gpu/suite_wall.sh --phases. Unset, a phase costs one clock read and prints nothing.
//
// Two kinds of lines: PhaseTimer prints a phase of the process as it ends (CUPTI start-up, a collector
// session, storing); the per-instance phases (set-up, random input, CPU reference, verification, warm-up,
// sampling and, inside sampling, the GPU time of the kernels, L2 flushes and clock probes) are summed over
// a run's instances in phase_totals() and printed once, in first-seen order, by print_phase_totals().
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace gpuperf {

inline bool phase_log_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("GPUPERF_PHASE_TIMES");
    return v != nullptr && *v != '\0' && std::string(v) != "0";
  }();
  return enabled;
}

inline double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Prints `what` with the seconds since construction (or since the last lap()) when enabled.
class PhaseTimer {
 public:
  PhaseTimer() : start_(std::chrono::steady_clock::now()) {}
  // The seconds since construction or the previous lap; printed as `what` when the log is enabled.
  double lap(const std::string& what) {
    const double s = split();
    if (phase_log_enabled()) std::fprintf(stderr, "gpuperf phase: %s %.3f s\n", what.c_str(), s);
    return s;
  }
  // The same without printing (for phase_totals()).
  double split() {
    const auto now = std::chrono::steady_clock::now();
    const double s = seconds_between(start_, now);
    start_ = now;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Seconds per named phase, summed over a run's instances (thread-safe: a set-up may run beside the
// timing of another instance). Adding costs a lock and a short scan; nothing is printed until
// print_phase_totals().
class PhaseTotals {
 public:
  void add(const std::string& what, double seconds) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [name, s] : totals_) {
      if (name == what) {
        s += seconds;
        return;
      }
    }
    totals_.emplace_back(what, seconds);
  }
  std::vector<std::pair<std::string, double>> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(totals_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<std::string, double>> totals_;
};

// The process's per-instance phase totals (the runner, the timing loop and the CLI add to them).
inline PhaseTotals& phase_totals() {
  static PhaseTotals totals;
  return totals;
}

// Prints and clears phase_totals() as "gpuperf phase: instances: <what> <seconds> s" when enabled; a total
// whose name ends in "(count)" is a count, printed without unit.
inline void print_phase_totals() {
  const auto totals = phase_totals().take();
  if (!phase_log_enabled()) return;
  const std::string count = "(count)";
  for (const auto& [what, v] : totals) {
    const bool is_count =
        what.size() >= count.size() && what.compare(what.size() - count.size(), count.size(), count) == 0;
    if (is_count) {
      std::fprintf(stderr, "gpuperf phase: instances: %s %.0f\n", what.c_str(), v);
    } else {
      std::fprintf(stderr, "gpuperf phase: instances: %s %.3f s\n", what.c_str(), v);
    }
  }
}

}  // namespace gpuperf
