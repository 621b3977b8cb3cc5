// Metric-name resolution for the collector: gpuperf's own names (the traits table in
// core/metrics.hpp) and raw Perfworks names, checked against what the chip offers.
// Plain C++: the chip's metric list comes through PerfworksCatalog (the CUPTI host API, or a test table).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/metrics.hpp"

namespace gpuperf {

namespace cupti {
class RangeProfilerBackend;
}

// One requested metric, resolved.
struct MetricRequest {
  std::string name;                              // as requested: "gld_efficiency" or "dram__bytes_read.sum"
  MetricInfo info;                               // unit, direction, determinism
  MetricSource source = MetricSource::profiler;  // profiler or static_attr
  std::vector<std::string> perfworks;            // full Perfworks names summed into the value (profiler)
};

// What a chip offers, by name. Implemented over the CUPTI host API (backend_catalog) and by tests.
class PerfworksCatalog {
 public:
  virtual ~PerfworksCatalog() = default;
  virtual std::string chip() const = 0;
  // True when `full_name` ("dram__bytes_read.sum") is a metric of the chip.
  virtual bool has(const std::string& full_name) = 0;
  // Perfworks' dimension of the metric's values ("byte", "percent", "nsecond", "warp", ""); "" if unknown.
  virtual std::string dimension(const std::string& full_name) = 0;
  // Every base metric name ("dram__bytes_read"), all kinds.
  virtual std::vector<std::string> base_names() = 0;
  // The suffixes `base` accepts (".sum", ".avg.pct_of_peak_sustained_active", ".pct", ...).
  virtual std::vector<std::string> suffixes(const std::string& base) = 0;
};

// The catalog of the chip a back end was opened for (host API; works without a GPU).
std::unique_ptr<PerfworksCatalog> backend_catalog(cupti::RangeProfilerBackend& backend);

// True for names gpuperf treats as raw Perfworks names ("unit__counter.rollup").
bool looks_like_perfworks(const std::string& name);

// gpuperf's unit for a Perfworks dimension: "percent" -> "%", "byte" -> "bytes", "nsecond" -> "ns",
// "byte/second" -> "bytes/s"; counts of anything else ("warp", "sector", "") -> "count".
std::string unit_for_dimension(const std::string& dimension);

// Resolves `names` in order, without duplicates. Our names come from the traits table; a raw Perfworks
// name must exist in `catalog` (skipped when `catalog` is null), which also gives its unit. Throws InputError for an
// unknown name (listing close names), for a timing, derived or recorded metric (not the profiler's), and for an empty
// list.
std::vector<MetricRequest> resolve_metric_requests(const std::vector<std::string>& names, PerfworksCatalog* catalog);

// Throws InputError when `name` is not a metric of the catalog's chip; the message suggests close full
// names (other suffixes of the same base, or close base names with the given suffix).
void check_perfworks_name(const std::string& name, PerfworksCatalog& catalog);

// Every metric of the chip, "base.suffix", sorted; for `gpuperf profile --list-metrics`.
// With `filter`, only names containing it.
std::vector<std::string> list_perfworks_metrics(PerfworksCatalog& catalog, const std::string& filter);

// The value of a --metrics option. `enabled` is false for "none".
struct MetricSelection {
  bool enabled = true;
  std::vector<std::string> names;  // resolved, deduplicated, in the order given
  // "default" was asked (alone or in the list): its speed-of-light throughputs may be read under the TriageCompute
  // names where the chip has them and the set needs fewer passes (profiler/speed_of_light.hpp).
  bool from_default = false;
};
// Parses "none", "default", "all" or a comma-separated list of gpuperf names and raw Perfworks names
// ("gld_efficiency,dram__bytes_read.sum"); "default" may appear inside a list. Throws InputError for an
// unknown gpuperf name (listing close names), a metric only `gpuperf record` counts, or an empty item. Raw Perfworks
// names (they contain "__") are checked later, against the chip, by make_cupti_collector().
MetricSelection parse_metrics_option(const std::string& text);

}  // namespace gpuperf
