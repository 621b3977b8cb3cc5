#include "profiler/metric_eval.hpp"

#include <cmath>
#include <cstdio>

#include "core/metrics.hpp"

namespace gpuperf {

double theoretical_occupancy_pct(const StaticAttributes& a) {
  if (a.warp_size <= 0 || a.max_threads_per_sm <= 0 || a.threads_per_block <= 0) return 0;
  // Warps are allocated whole: a 48-thread block holds 2 warps of the SM's budget.
  const int warps_per_block = (a.threads_per_block + a.warp_size - 1) / a.warp_size;
  const int max_warps = a.max_threads_per_sm / a.warp_size;
  if (max_warps == 0) return 0;
  return 100.0 * static_cast<double>(a.active_blocks_per_sm * warps_per_block) / static_cast<double>(max_warps);
}

Measurement failed_measurement(const MetricInfo& info, Status status, const std::string& message) {
  Measurement m;
  m.metric = info;
  m.status = status;
  m.message = message;
  return m;
}

namespace {

Measurement static_measurement(const MetricRequest& r, const StaticAttributes& a) {
  const std::string& n = r.name;
  if (n == "registers") return single_value(r.info, a.registers);
  if (n == "static_shared_bytes") return single_value(r.info, static_cast<double>(a.static_shared_bytes));
  if (n == "local_bytes") return single_value(r.info, static_cast<double>(a.local_bytes));
  if (n == "theoretical_occupancy") {
    if (a.active_blocks_per_sm == 0) {
      return failed_measurement(r.info, Status::failed,
                                "the occupancy API fits no block of this launch shape on an SM (too many threads, "
                                "registers or shared memory per block)");
    }
    return single_value(r.info, theoretical_occupancy_pct(a));
  }
  return failed_measurement(r.info, Status::failed, "no static attribute is called '" + n + "'");
}

std::string format_value(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::vector<Measurement> evaluate_target(const MetricPlan& plan, const std::vector<double>* values,
                                         Status profiler_status, const std::string& profiler_failure,
                                         const StaticAttributes* statics, const std::string& static_failure) {
  std::vector<Measurement> out;
  out.reserve(plan.requests.size());
  for (std::size_t i = 0; i < plan.requests.size(); ++i) {
    const MetricRequest& r = plan.requests[i];
    if (r.source == MetricSource::static_attr) {
      out.push_back(statics != nullptr ? static_measurement(r, *statics)
                                       : failed_measurement(r.info, Status::failed, static_failure));
      continue;
    }
    if (values == nullptr) {
      out.push_back(failed_measurement(r.info, profiler_status, profiler_failure));
      continue;
    }
    double sum = 0;
    std::string bad;
    bool counter = false;  // the value that is not a number is a counter's sum
    for (std::size_t term : plan.terms[i]) {
      const double v = term < values->size() ? (*values)[term] : std::nan("");
      if (!std::isfinite(v)) {
        bad = plan.perfworks[term] + " = " + format_value(v);
        counter = is_counter_sum(plan.perfworks[term]);
        break;
      }
      sum += v;
    }
    if (!bad.empty() && counter) {
      // A sum of events is 0 when none happened: not a number means the range collected nothing (a session
      // restarted with another configuration read so on an H100), a failure, never "not applicable".
      out.push_back(failed_measurement(
          r.info, Status::failed,
          "CUPTI evaluated " + bad + ": a counter's sum is never undefined, so its range collected nothing"));
      continue;
    }
    if (!bad.empty()) {
      out.push_back(failed_measurement(
          r.info, Status::skipped,
          "not applicable: CUPTI evaluated " + bad + " (a ratio with nothing to divide: no operations of that kind)"));
      continue;
    }
    out.push_back(single_value(r.info, sum));
  }
  return out;
}

}  // namespace gpuperf
