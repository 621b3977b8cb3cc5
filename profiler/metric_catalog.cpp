#include "profiler/metric_catalog.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "core/close_names.hpp"
#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "core/perfworks_spelling.hpp"
#include "profiler/collector.hpp"
#include "profiler/cupti/range_backend.hpp"

namespace gpuperf {
namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// Names a user may ask the collector for by gpuperf name.
std::vector<std::string> collectable_names() {
  std::vector<std::string> out;
  for (const auto& t : known_metrics()) {
    if (t.source == MetricSource::profiler || t.source == MetricSource::static_attr) out.push_back(t.info.name);
  }
  return out;
}

// launches, gpu_time_total and gpu_time_share: counts over a recorded program's launches, which neither a
// benchmark's timing pass nor the profiler produces. Asking `run` or `profile` for one is a mistake to name.
[[noreturn]] void recorded_only(const std::string& name) {
  throw InputError("'" + name +
                   "' is counted over a program's kernel launches by `gpuperf record -- APP ARGS`; "
                   "`run` and `profile` cannot collect it");
}

[[noreturn]] void unknown_name(const std::string& name) {
  std::string msg = "unknown metric '" + name + "'";
  auto close = close_names(name, collectable_names());
  if (!close.empty()) msg += "; did you mean " + join(close, ", ") + "?";
  msg += " gpuperf metrics: " + join(collectable_names(), ", ") +
         "; raw Perfworks names (such as dram__bytes_read.sum) work too: `gpuperf profile --list-metrics` lists the "
         "GPU's";
  throw InputError(msg);
}

class BackendCatalog final : public PerfworksCatalog {
 public:
  explicit BackendCatalog(cupti::RangeProfilerBackend& b) : backend_(b) {}
  std::string chip() const override { return backend_.chip_name(); }
  bool has(const std::string& full_name) override { return backend_.metric_properties(full_name).has_value(); }
  std::string dimension(const std::string& full_name) override {
    auto p = backend_.metric_properties(full_name);
    return p ? p->dim_unit : "";
  }
  std::vector<std::string> base_names() override {
    load();
    std::vector<std::string> out;
    out.reserve(kind_.size());
    for (const auto& [name, kind] : kind_) out.push_back(name);
    return out;
  }
  std::vector<std::string> suffixes(const std::string& base) override {
    load();
    auto it = kind_.find(base);
    if (it == kind_.end()) return {};
    return backend_.sub_metrics(it->second, base);
  }

 private:
  void load() {
    if (!kind_.empty()) return;
    for (auto kind : {cupti::MetricKind::counter, cupti::MetricKind::ratio, cupti::MetricKind::throughput}) {
      for (auto& name : backend_.base_metrics(kind)) {
        // The list also holds unit-qualified aliases ("SM_A.TriageCompute.l1tex__..."): not names users type.
        if (name.find('.') == std::string::npos) kind_.emplace(std::move(name), kind);
      }
    }
  }
  cupti::RangeProfilerBackend& backend_;
  std::map<std::string, cupti::MetricKind> kind_;
};

}  // namespace

std::unique_ptr<PerfworksCatalog> backend_catalog(cupti::RangeProfilerBackend& backend) {
  return std::make_unique<BackendCatalog>(backend);
}

bool looks_like_perfworks(const std::string& name) { return name.find("__") != std::string::npos; }

std::string unit_for_dimension(const std::string& dimension) {
  const auto slash = dimension.find('/');
  if (slash != std::string::npos) {
    const std::string per = dimension.substr(slash + 1);
    return unit_for_dimension(dimension.substr(0, slash)) + "/" + (per == "second" ? "s" : per);
  }
  if (dimension == "percent") return "%";
  if (dimension == "byte") return "bytes";
  if (dimension == "nsecond") return "ns";
  if (dimension == "usecond") return "us";
  if (dimension == "msecond") return "ms";
  if (dimension == "second") return "s";
  if (dimension == "hz") return "Hz";
  return "count";
}

void check_perfworks_name(const std::string& name, PerfworksCatalog& catalog) {
  if (catalog.has(name)) return;
  const auto dot = name.find('.');
  const std::string base = name.substr(0, dot);
  const std::string suffix = dot == std::string::npos ? "" : name.substr(dot);
  std::vector<std::string> suggestions;
  auto bases = catalog.base_names();
  if (std::find(bases.begin(), bases.end(), base) != bases.end()) {
    auto sufs = catalog.suffixes(base);
    for (const auto& s : close_names(suffix.empty() ? ".sum" : suffix, sufs, 5)) suggestions.push_back(base + s);
    if (suggestions.empty()) {
      for (std::size_t i = 0; i < sufs.size() && i < 5; ++i) suggestions.push_back(base + sufs[i]);
    }
    throw InputError("'" + name + "' is not a metric of " + catalog.chip() + ": '" + base + "' needs another suffix" +
                     (suggestions.empty() ? "" : ", e.g. " + join(suggestions, ", ")));
  }
  for (const auto& b : close_names(base, bases, 5)) suggestions.push_back(b + suffix);
  throw InputError("'" + name + "' is not a metric of " + catalog.chip() +
                   (suggestions.empty() ? std::string() : "; did you mean " + join(suggestions, ", ") + "?") +
                   " (`gpuperf profile --list-metrics [TEXT]` lists the GPU's metrics)");
}

std::vector<MetricRequest> resolve_metric_requests(const std::vector<std::string>& names, PerfworksCatalog* catalog) {
  if (names.empty()) throw InputError("no metrics requested");
  std::vector<MetricRequest> out;
  std::set<std::string> seen;
  for (const auto& raw : names) {
    const std::string name = trim(raw);
    if (name.empty()) throw InputError("empty metric name in the metric list");
    if (!seen.insert(name).second) continue;
    MetricRequest r;
    r.name = name;
    if (const MetricTraits* t = find_metric(name)) {
      if (t->source == MetricSource::recorded) recorded_only(name);
      if (t->source == MetricSource::timing || t->source == MetricSource::derived) {
        throw InputError("'" + name +
                         "' is measured by the timing pass (gpuperf run), not by the profiler: the "
                         "profiler's replayed ranges include launch gaps");
      }
      r.info = t->info;
      r.source = t->source;
      r.perfworks = t->perfworks;
      // The chip's own spelling of a counter that it names differently.
      if (catalog != nullptr) {
        for (std::string& p : r.perfworks) p = chip_spelling(p, [&](const std::string& n) { return catalog->has(n); });
      }
    } else if (looks_like_perfworks(name)) {
      r.info = metric_info_for(name);
      if (catalog != nullptr) {
        check_perfworks_name(name, *catalog);
        if (std::string dim = catalog->dimension(name); !dim.empty()) {
          r.info.unit = unit_for_dimension(dim);
          r.info.higher_is_better = false;  // unknown for raw counters: regressions are reported both ways
          r.info.deterministic = r.info.unit == "count" && is_counter_sum(name);
        }
      }
      r.source = MetricSource::profiler;
      r.perfworks = {name};
    } else {
      unknown_name(name);
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::string> list_perfworks_metrics(PerfworksCatalog& catalog, const std::string& filter) {
  std::vector<std::string> out;
  const std::string base_filter = filter.substr(0, filter.find('.'));
  for (const auto& base : catalog.base_names()) {
    if (filter.empty()) {
      out.push_back(base);
      continue;
    }
    if (base.find(base_filter) == std::string::npos) continue;
    for (const auto& s : catalog.suffixes(base)) {
      std::string full = base + s;
      if (full.find(filter) != std::string::npos) out.push_back(std::move(full));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ---- collector.hpp: metric lists and replay modes ----

std::vector<std::string> default_collector_metrics() {
  auto out = default_profile_metrics();
  for (const auto& t : known_metrics()) {
    if (t.source == MetricSource::static_attr) out.push_back(t.info.name);
  }
  return out;
}

MetricSelection parse_metrics_option(const std::string& text) {
  MetricSelection sel;
  const std::string all = trim(text);
  if (all == "none") {
    sel.enabled = false;
    return sel;
  }
  std::vector<std::string> items;
  if (all.empty() || all == "default") {
    sel.from_default = true;
    items = default_collector_metrics();
  } else if (all == "all") {
    items = collectable_names();
  } else {
    std::stringstream ss(all);
    std::string item;
    while (std::getline(ss, item, ',')) {
      item = trim(item);
      if (item.empty()) throw InputError("--metrics '" + text + "' has an empty item");
      if (item == "none" || item == "all") {
        throw InputError("--metrics: '" + item + "' cannot be combined with other names");
      }
      if (item == "default") {
        sel.from_default = true;
        for (auto& d : default_collector_metrics()) items.push_back(d);
      } else {
        items.push_back(item);
      }
    }
  }
  std::set<std::string> seen;
  for (const auto& name : items) {
    const MetricTraits* t = find_metric(name);
    if (t != nullptr && t->source == MetricSource::recorded) recorded_only(name);
    // duration, gbps and gflops come from the timing pass, which always runs: nothing to collect.
    if (t != nullptr && (t->source == MetricSource::timing || t->source == MetricSource::derived)) continue;
    if (t == nullptr && !looks_like_perfworks(name)) unknown_name(name);
    if (seen.insert(name).second) sel.names.push_back(name);
  }
  if (sel.names.empty()) sel.enabled = false;
  return sel;
}

const char* to_string(ReplayMode m) {
  switch (m) {
    case ReplayMode::automatic: return "auto";
    case ReplayMode::user: return "user";
    case ReplayMode::kernel: return "kernel";
  }
  return "auto";
}

ReplayMode replay_mode_from_string(const std::string& s) {
  if (s == "auto") return ReplayMode::automatic;
  if (s == "user") return ReplayMode::user;
  if (s == "kernel") return ReplayMode::kernel;
  throw InputError("replay mode '" + s + "' is not one of auto, user, kernel");
}

}  // namespace gpuperf
