// Where a run's time goes: with GPUPERF_PHASE_TIMES set (to anything but empty or 0), the runner's and the
// collector's phases print their wall time to stderr ("gpuperf phase: <what> <seconds> s"), for
// bench/gpu/suite_wall.sh --phases. Unset, a phase costs one clock read and prints nothing.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace gpuperf {

inline bool phase_log_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("GPUPERF_PHASE_TIMES");
    return v != nullptr && *v != '\0' && std::string(v) != "0";
  }();
  return enabled;
}

// Prints `what` with the seconds since construction (or since the last lap()) when enabled.
class PhaseTimer {
 public:
  PhaseTimer() : start_(std::chrono::steady_clock::now()) {}
  // The seconds since construction or the previous lap; printed as `what` when the log is enabled.
  double lap(const std::string& what) {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - start_).count();
    start_ = now;
    if (phase_log_enabled()) std::fprintf(stderr, "gpuperf phase: %s %.3f s\n", what.c_str(), s);
    return s;
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace gpuperf
