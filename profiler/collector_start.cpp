#include "profiler/collector_start.hpp"

#include <chrono>
#include <utility>

#include "profiler/metric_catalog.hpp"
#include "profiler/phase_log.hpp"

namespace gpuperf {

CollectorStart::CollectorStart(const CollectorOptions& options) {
  bool raw = false;
  for (const auto& name : options.metrics) raw = raw || looks_like_perfworks(name);
  const auto t0 = std::chrono::steady_clock::now();
  if (raw) {
    collector_ = make_cupti_collector(options);
    seconds_ = seconds_between(t0, std::chrono::steady_clock::now());
    return;
  }
  in_background_ = true;
  std::shared_ptr<double> took = thread_seconds_;
  pending_ = std::async(std::launch::async, [options, took] {
    const auto start = std::chrono::steady_clock::now();
    auto collector = make_cupti_collector(options);
    *took = seconds_between(start, std::chrono::steady_clock::now());
    return collector;
  });
}

MetricCollector& CollectorStart::get() {
  if (pending_.valid()) {
    try {
      collector_ = pending_.get();
    } catch (...) {
      failure_ = std::current_exception();
    }
    seconds_ = *thread_seconds_;
  }
  if (failure_) std::rethrow_exception(failure_);
  return *collector_;
}

}  // namespace gpuperf
