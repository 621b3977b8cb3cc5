// The traits table of gpuperf's metrics: described once, used by the collector, the store and the reports.
// Perfworks names verified on an H200 (GH100, CUDA 13.0); see README.md, "Profiling metrics".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace gpuperf {

enum class MetricSource {
  timing,       // the timing pass (CUPTI activity records)
  profiler,     // CUPTI Range Profiler, one or more Perfworks metrics summed
  static_attr,  // cudaFuncGetAttributes / occupancy API, no replay
  derived,      // computed from duration and the benchmark's declared bytes/FLOPs
  // Counted by `gpuperf record` over every launch of a kernel identity in an unmodified program (CUPTI
  // activity records). Not `timing`: a benchmark run's timing pass never produces these, so `run` and
  // `profile` must neither collect them nor drop them silently as "the timing pass gives it".
  recorded,
};

struct MetricTraits {
  MetricInfo info;
  MetricSource source;
  std::vector<std::string> perfworks;  // summed to give the value (source == profiler)
  std::string description;
};

// Every metric gpuperf knows by its own name, in display order.
const std::vector<MetricTraits>& known_metrics();
// nullptr when `name` is not a gpuperf metric name.
const MetricTraits* find_metric(const std::string& name);
// The default set `gpuperf run` collects after timing.
std::vector<std::string> default_profile_metrics();

// Info for any metric name: the traits table's entry, or a guess from a raw Perfworks name's suffix
// (".pct" -> "%", higher is better unknown -> false; ".sum" -> count, deterministic).
MetricInfo metric_info_for(const std::string& name);

// Whether a Perfworks name is a counter's sum ("<counter>.sum"): events counted, 0 when none happened.
bool is_counter_sum(const std::string& perfworks_name);

// A single-value measurement (one sample, summarised, status ok) of a metric with these traits, e.g. a
// static attribute or a summed counter.
Measurement single_value(const MetricInfo& info, double value);
// The same for gpuperf metric `name`, its traits from the table, e.g. a derived GB/s or a recorded kernel's
// launch count.
Measurement single_value(const std::string& name, double value);

}  // namespace gpuperf
