#include "core/bound.hpp"

#include <algorithm>
#include <cstdio>

#include "core/metrics.hpp"

namespace gpuperf {

SpeedOfLight speed_of_light_from(const std::function<std::optional<double>(const char* metric)>& value) {
  SpeedOfLight sol;
  sol.sm = value("sm_throughput");
  if (!sol.sm) sol.sm = value("sol_sm_triage");
  sol.memory = value("memory_throughput");
  sol.dram = value("dram_throughput");
  if (!sol.memory) {
    bool triage = false;
    for (const char* m : {"sol_l1tex_triage", "sol_lts_triage", "sol_dramc_triage", "dram_throughput"}) {
      const std::optional<double> v = value(m);
      triage = triage || (v && m[0] == 's');
      if (v && (!sol.memory || *v > *sol.memory)) sol.memory = v;
    }
    if (!triage) sol.memory.reset();  // dram_throughput alone is not the memory side
  }
  return sol;
}
namespace {

constexpr double kDramWithinPoints = 5.0;  // DRAM this close to the memory throughput: DRAM is the busiest

std::string pct_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", v);
  return buf;
}

std::size_t table_rank(const std::string& name) {
  const auto& table = known_metrics();
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].info.name == name) return i;
  }
  return table.size();
}

}  // namespace

const char* to_string(Bound b) {
  switch (b) {
    case Bound::memory: return "memory";
    case Bound::compute: return "compute";
    case Bound::latency: return "latency";
  }
  return "?";
}

BoundVerdict classify_bound(const SpeedOfLight& sol) {
  BoundVerdict v;
  if (!sol.sm) v.missing = "sm_throughput";
  if (!sol.memory) v.missing += std::string(v.missing.empty() ? "" : ", ") + "memory_throughput";
  if (!sol.sm || !sol.memory) return v;
  v.sm = *sol.sm;
  v.memory = *sol.memory;
  if (v.sm < kBoundPeakPct && v.memory < kBoundPeakPct) {
    v.bound = Bound::latency;
    v.pct = std::max(v.sm, v.memory);
  } else if (v.sm >= v.memory) {
    v.bound = Bound::compute;
    v.pct = v.sm;
    v.unit = "SM";
  } else {
    v.bound = Bound::memory;
    v.pct = v.memory;
    if (!sol.dram) {
      v.unit = "memory";
      v.missing = "dram_throughput";
    } else {
      v.unit = *sol.dram >= v.memory - kDramWithinPoints ? "DRAM" : "L1/L2";
    }
  }
  return v;
}

std::string bound_text(const BoundVerdict& v) {
  if (!v.bound) return "bound unknown (no " + v.missing + ")";
  if (*v.bound == Bound::latency) return "latency-bound (SM " + pct_text(v.sm) + ", memory " + pct_text(v.memory) + ")";
  return std::string(to_string(*v.bound)) + "-bound " + pct_text(v.pct) + ' ' + v.unit;
}

std::string bound_change_text(const BoundVerdict& before, const BoundVerdict& after) {
  if (!before.bound && !after.bound) return "";
  if (!after.bound) return bound_text(before) + " -> " + bound_text(after);
  if (!before.bound || (*before.bound == *after.bound && before.unit == after.unit)) return bound_text(after);
  return bound_text(before) + " -> " + bound_text(after);
}

const std::vector<std::string>& explaining_metrics(Bound b) {
  static const std::vector<std::string> compute = {"instructions",  "inst_fma",     "inst_alu",
                                                   "inst_lsu",      "issue_active", "stall_math_throttle",
                                                   "sm_throughput", "registers"};
  static const std::vector<std::string> memory = {"gld_efficiency",
                                                  "gst_efficiency",
                                                  "dram_bytes_read",
                                                  "dram_bytes_written",
                                                  "dram_throughput",
                                                  "memory_throughput",
                                                  "shared_bank_conflicts",
                                                  "shared_load_transactions",
                                                  "shared_store_transactions",
                                                  "inst_lsu",
                                                  "stall_long_scoreboard"};
  static const std::vector<std::string> latency = {
      "achieved_occupancy",    "theoretical_occupancy", "registers",          "static_shared_bytes", "local_bytes",
      "stall_long_scoreboard", "stall_barrier",         "stall_not_selected", "issue_active"};
  switch (b) {
    case Bound::compute: return compute;
    case Bound::memory: return memory;
    case Bound::latency: return latency;
  }
  return latency;
}

bool explains(const std::string& metric, Bound bound) {
  const auto& list = explaining_metrics(bound);
  return std::find(list.begin(), list.end(), metric) != list.end();
}

std::size_t hint_rank(const std::string& metric, std::optional<Bound> bound) {
  const std::size_t table = known_metrics().size() + 1;
  if (bound) {
    const auto& list = explaining_metrics(*bound);
    const auto it = std::find(list.begin(), list.end(), metric);
    if (it != list.end()) return static_cast<std::size_t>(it - list.begin());
    return table + table_rank(metric);
  }
  return table_rank(metric);
}

bool is_work_metric(const std::string& metric) { return metric == "instructions" || metric.rfind("inst_", 0) == 0; }

}  // namespace gpuperf
