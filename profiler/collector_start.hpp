// Starting the CUPTI collector beside other work. make_cupti_collector loads CUPTI's profiler, reads the
// chip's metric list and builds the counter configurations: 0.25-0.7 s of host work on an H100 that
// verifying an instance does not need. `gpuperf profile` starts it on a thread of its own and waits for it
// where the first group of instances is profiled. Not beside the timing loop: CUPTI's activity API, started
// while the profiler starts on another thread, failed on an H100 (CUPTI_ERROR_NOT_INITIALIZED), so
// `gpuperf run` starts the collector first.
//
// A raw Perfworks name among the metrics can only be checked against the chip by that start; then it
// starts at once on the calling thread, as before, so a misspelt name is refused (exit 2) before
// anything is measured.
#pragma once

#include <exception>
#include <future>
#include <memory>

#include "profiler/collector.hpp"

namespace gpuperf {

class CollectorStart {
 public:
  // Starts make_cupti_collector(options): on a thread of its own unless a raw Perfworks name is requested.
  // Throws (at once) only what make_cupti_collector throws on the calling thread.
  explicit CollectorStart(const CollectorOptions& options);
  // Waits for the start; the collector, or the start's exception rethrown (every call, until reset).
  MetricCollector& get();
  // Whether get() has found the collector started (false after a failed start or before get()).
  bool started() const { return collector_ != nullptr; }
  // The wall seconds the start took on its own thread or the caller's (valid after get()).
  double seconds() const { return seconds_; }
  // Whether it started on a thread of its own (no raw Perfworks name).
  bool in_background() const { return in_background_; }
  // The start's exception, when get() found one (null otherwise).
  std::exception_ptr failure() const { return failure_; }

 private:
  std::future<std::unique_ptr<MetricCollector>> pending_;
  std::unique_ptr<MetricCollector> collector_;
  std::exception_ptr failure_;
  double seconds_ = 0;
  bool in_background_ = false;
  std::shared_ptr<double> thread_seconds_ = std::make_shared<double>(0);
};

}  // namespace gpuperf
