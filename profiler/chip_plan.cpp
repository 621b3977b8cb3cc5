#include "profiler/chip_plan.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "core/perfworks_spelling.hpp"
#include "profiler/collector.hpp"
#include "profiler/cupti/range_backend.hpp"
#include "profiler/cupti/range_backend_loader.hpp"
#include "profiler/metric_catalog.hpp"
#include "profiler/metric_plan.hpp"
#include "profiler/record/pm_sampling.hpp"
#include "profiler/source_line_aggregate.hpp"
#include "profiler/speed_of_light.hpp"

namespace gpuperf {
namespace {

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Whether the chip takes `perfworks` in a range-profiler configuration; `why` gets CUPTI's reason when not.
bool accepts(cupti::RangeProfilerBackend& host, const std::string& perfworks, std::string* why) {
  if (!host.metric_properties(perfworks)) {
    *why = host.chip_name() + " has no " + perfworks;
    return false;
  }
  try {
    host.add_configuration({perfworks});
    return true;
  } catch (const cupti::BackendError& e) {
    *why = host.chip_name() + " refuses " + perfworks + " in a configuration (" + e.call() + ")";
    return false;
  }
}

ChipMetric row_of(cupti::RangeProfilerBackend& host, const std::string& name) {
  ChipMetric row;
  row.name = name;
  const MetricTraits* t = find_metric(name);
  if (t == nullptr) {  // a raw Perfworks name
    row.kind = "Perfworks counter";
    row.perfworks = {name};
    row.supported = accepts(host, name, &row.reason);
    return row;
  }
  switch (t->source) {
    case MetricSource::timing: row.kind = "timing (activity records)"; return row;
    case MetricSource::static_attr: row.kind = "static attribute (cudaFuncGetAttributes, occupancy API)"; return row;
    case MetricSource::derived: row.kind = "derived (duration and declared bytes or FLOPs)"; return row;
    case MetricSource::recorded: row.kind = "recorded (record's activity records)"; return row;
    case MetricSource::profiler: break;
  }
  row.perfworks = t->perfworks;
  const bool sass = std::any_of(t->perfworks.begin(), t->perfworks.end(),
                                [](const std::string& p) { return p.rfind("smsp__sass_", 0) == 0; });
  row.kind = sass ? "SASS-patched counter" : "counter";
  for (std::string& p : row.perfworks) {
    std::string why;
    if (accepts(host, p, &why)) continue;
    // The chip's own spelling of the counter, as the collector takes it.
    const std::string spelled = chip_spelling(p, [&](const std::string& o) {
      std::string ignored;
      return accepts(host, o, &ignored);
    });
    if (spelled != p) {
      p = spelled;
      continue;
    }
    row.supported = false;
    row.reason = why;
    break;
  }
  return row;
}

}  // namespace

const std::vector<std::string>& documented_chips() {
  // Turing (T4: TU104), Ampere (A100: GA100; A10G, RTX 30xx: GA102), Ada (L40S, RTX 4090: AD102; L4: AD104),
  // Hopper (H100, H200: GH100), Blackwell (B200: GB100; RTX 50xx: GB202).
  static const std::vector<std::string> chips{"TU104", "GA100", "GA102", "AD102", "AD104", "GH100", "GB100", "GB202"};
  return chips;
}

ChipPlan plan_for_chip(const std::string& chip, const std::vector<std::string>& names) {
  const cupti::BackendFactory& factory = cupti::load_backend();
  std::unique_ptr<cupti::RangeProfilerBackend> host;
  try {
    host = factory.open_host(chip);
  } catch (const cupti::BackendError& e) {
    throw InputError("CUPTI's host API does not know chip '" + chip + "' (" + e.call() +
                     "); chips are named as CUPTI names them, e.g. " + joined(documented_chips()));
  }
  const std::unique_ptr<PerfworksCatalog> catalog = backend_catalog(*host);
  ChipPlan plan;
  plan.chip = chip;
  const std::vector<std::string> asked = names.empty() ? default_collector_metrics() : names;
  for (const std::string& n : asked) plan.metrics.push_back(row_of(*host, n));
  // The speed of light as record chooses it on this chip (run and check keep today's names: cli/measure.cpp).
  const std::vector<std::string> chosen = speed_of_light_for_chip(asked, chip);

  // The Perfworks names of `list`'s counters this chip has (static attributes and what it refuses left out), and the
  // passes they take in one configuration.
  const auto perfworks_of = [&](const std::vector<std::string>& list) {
    std::vector<std::string> counters;
    for (const std::string& n : list) {
      const MetricTraits* t = find_metric(n);
      const bool counter = t == nullptr || t->source == MetricSource::profiler;
      const auto row =
          std::find_if(plan.metrics.begin(), plan.metrics.end(), [&](const ChipMetric& m) { return m.name == n; });
      const bool usable = row == plan.metrics.end() ? row_of(*host, n).supported : row->supported;
      if (counter && usable) counters.push_back(n);
    }
    return counters.empty() ? std::vector<std::string>{}
                            : plan_metrics(resolve_metric_requests(counters, catalog.get())).perfworks;
  };
  const auto passes_of = [&](const std::vector<std::string>& list) -> std::size_t {
    const std::vector<std::string> perfworks = perfworks_of(list);
    return perfworks.empty() ? 0 : host->add_configuration(perfworks);
  };
  plan.perfworks = perfworks_of(asked).size();
  plan.passes = passes_of(asked);

  std::string why;
  const bool triage_sm = accepts(*host, kTriageSm, &why);
  if (has(chosen, "sol_sm_triage")) {
    std::vector<std::string> triage;
    for (const std::string& n : chosen) {
      if (n.rfind("sol_", 0) == 0) triage.push_back(n);
    }
    plan.speed_of_light = "TriageCompute";
    plan.speed_of_light_why = joined(triage) + ": the set needs " + std::to_string(passes_of(chosen)) +
                              " passes with them against " + std::to_string(passes_of(asked));
  } else if (has(asked, "sm_throughput") || has(asked, "memory_throughput")) {
    plan.speed_of_light = "sm__throughput, gpu__compute_memory_throughput";
    plan.speed_of_light_why =
        triage_sm ? "TriageCompute would need no fewer passes for this set" : chip + " has no TriageCompute names";
  } else {
    plan.speed_of_light = "none asked";
  }

  const auto usable = [&](const char* n) {
    return std::any_of(plan.metrics.begin(), plan.metrics.end(),
                       [&](const ChipMetric& m) { return m.name == n && m.supported; });
  };
  const bool sm_side = usable("sm_throughput") || usable("sol_sm_triage");
  const bool memory_side = usable("memory_throughput") || usable("sol_l1tex_triage") || usable("sol_lts_triage") ||
                           usable("sol_dramc_triage") || usable("dram_throughput");
  plan.bound = sm_side && memory_side ? "yes"
               : !sm_side             ? "no: no SM throughput in the set on " + chip
                                      : "no: no memory throughput in the set on " + chip;

  const AcceptsMetric pm_accepts = [&](const std::string& m) { return factory.pm_sampling_passes(chip, {m}) > 0; };
  const PassesOfList pm_passes = [&](const std::vector<std::string>& list) {
    return factory.pm_sampling_passes(chip, list);
  };
  const std::vector<std::string> pm = record::choose_pm_metrics(pm_accepts, pm_passes);
  for (const std::string& p : pm) {
    const record::PmMetric* m = record::find_pm_metric(p);
    plan.pm_sampling.push_back(m != nullptr ? m->name : p);
  }
  if (pm.empty()) {
    plan.pm_why = "no PM-sampling set (record/pm_sampling.hpp) fits one pass on " + chip;
  } else {
    plan.pm_passes = factory.pm_sampling_passes(chip, pm);
  }

  std::vector<std::string> offered;
  try {
    offered = cupti::load_sass_backend().chip_metrics(chip);
  } catch (const cupti::BackendError& e) {
    plan.source_lines_why = chip + " offers no SASS metrics (" + e.call() + ": " + to_string(e.kind()) + ")";
  }
  plan.sass_offered = offered.size();
  for (const char* c : sass_counter_names()) {
    if (!has(offered, c)) plan.sass_missing.emplace_back(c);
  }
  if (plan.source_lines_why.empty() && !plan.sass_missing.empty()) {
    plan.source_lines_why = chip + " lacks " + joined(plan.sass_missing);
  }
  return plan;
}

}  // namespace gpuperf
