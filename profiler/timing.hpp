// Timing options and the timing back end's interface.
//
// A SampleTimer turns repeated launches of a verified Workload into duration samples. The real one
// (profiler/cupti_timer.hpp) reads each launch's GPU start and end from CUPTI activity records; tests use
// fakes. Durations are never taken from host clocks around an asynchronous launch.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/benchmark.hpp"
#include "profiler/stopping_rule.hpp"

namespace gpuperf {

enum class TimingMode {
  cold,  // flush L2 before every sample (write a buffer of twice the L2 size): the kernel starts from DRAM
  hot,   // launches back to back in batches, caches warm from the previous launch
};
const char* to_string(TimingMode m);

struct TimingOptions {
  TimingMode mode = TimingMode::cold;
  // Untimed launches first, at least this many and for at least this long: the host's set-up of an
  // instance (random input, CPU reference) leaves the GPU idle for a while before it is timed.
  std::size_t warmup_launches = 3;
  double warmup_min_s = 0.05;
  StoppingCriteria stop;
  std::size_t hot_batch = 16;  // hot mode: launches per batch between clock readings
  // A sample is flagged throttled when the SM clock read with it is below this fraction of the reference
  // clock (the highest SM clock the device reports it can run at, else the highest seen in the run).
  double throttle_fraction = 0.90;

  // Fewer samples, for smoke tests (`gpuperf run --quick`): 10 ms warm-up, 5..50 samples, 2% target,
  // no minimum sampling time, 0.1 s cap.
  static TimingOptions quick();
};

struct TimingResult {
  std::vector<double> duration_ns;   // one per sample: the kernel's GPU end - start, in ns
  std::vector<double> sm_clock_mhz;  // one per sample, or empty when no clock could be read
  std::vector<bool> throttled;       // one per sample when sm_clock_mhz is filled
  double reference_clock_mhz = 0;    // what throttled is measured against; 0 when unknown
  std::size_t warmup_launches = 0;
  StopReason stop_reason = StopReason::not_yet;
  double elapsed_s = 0;  // wall time spent sampling (not a measurement: the cap's clock)
  // What one sample ran, from the activity records: its kernels' mangled names in start order, and each one's
  // launch shape (cubin/code_fingerprint.hpp format_launch); empty when no record said (a fake timer).
  std::vector<std::string> kernels;
  std::vector<std::string> launches;
  std::size_t throttled_count() const;
};

// Flags samples whose clock is below `fraction` of `reference_mhz`. Plain function, unit-tested.
std::vector<bool> flag_throttled(const std::vector<double>& sm_clock_mhz, double reference_mhz, double fraction);

class SampleTimer {
 public:
  virtual ~SampleTimer() = default;
  // Times `workload` (already verified) on `stream`. Each launch runs inside an NVTX range named
  // `range_name`. Throws gpuperf::Error on a CUDA or CUPTI failure.
  virtual TimingResult time(Workload& workload, StreamHandle stream, const std::string& range_name,
                            const TimingOptions& options) = 0;
};

}  // namespace gpuperf
