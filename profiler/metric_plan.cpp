#include "profiler/metric_plan.hpp"

#include <algorithm>
#include <map>

namespace gpuperf {

bool MetricPlan::needs_static() const {
  return std::any_of(requests.begin(), requests.end(),
                     [](const MetricRequest& r) { return r.source == MetricSource::static_attr; });
}

bool is_sass_metric(const std::string& name) {
  return name.rfind("smsp__sass_", 0) == 0 || name.rfind("sm__sass_", 0) == 0;
}

bool is_elapsed_rate(const std::string& name) {
  return name.find("pct_of_peak_sustained_elapsed") != std::string::npos ||
         name.find("per_cycle_elapsed") != std::string::npos;
}

MetricPlan plan_metrics(std::vector<MetricRequest> requests, bool separate_sass) {
  MetricPlan plan;
  std::map<std::string, std::size_t> index;
  for (const auto& r : requests) {
    std::vector<std::size_t> terms;
    if (r.source == MetricSource::profiler) {
      for (const auto& name : r.perfworks) {
        auto [it, inserted] = index.emplace(name, plan.perfworks.size());
        if (inserted) plan.perfworks.push_back(name);
        terms.push_back(it->second);
      }
    }
    plan.terms.push_back(std::move(terms));
  }
  plan.requests = std::move(requests);
  std::vector<std::size_t> sass, hardware, all, elapsed;
  for (std::size_t i = 0; i < plan.perfworks.size(); ++i) {
    if (is_elapsed_rate(plan.perfworks[i])) {
      elapsed.push_back(i);
      continue;
    }
    (is_sass_metric(plan.perfworks[i]) ? sass : hardware).push_back(i);
    all.push_back(i);
  }
  if (separate_sass && !sass.empty() && !hardware.empty()) {
    plan.configurations = {hardware, sass};
  } else if (!all.empty()) {
    plan.configurations = {all};
  }
  plan.kernel_ranges.assign(plan.configurations.size(), false);
  if (!elapsed.empty()) {
    plan.configurations.push_back(elapsed);
    plan.kernel_ranges.push_back(true);
  }
  return plan;
}

void merge_configurations(MetricPlan& plan) {
  if (plan.configurations.size() < 2) return;
  std::vector<std::size_t> all;
  for (const auto& c : plan.configurations) all.insert(all.end(), c.begin(), c.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  const bool kernel = std::any_of(plan.kernel_ranges.begin(), plan.kernel_ranges.end(), [](bool k) { return k; });
  plan.configurations = {std::move(all)};
  plan.kernel_ranges = {kernel};
}

std::vector<SessionPlan> plan_sessions(const std::vector<bool>& idempotent, ReplayMode mode, std::size_t max_ranges,
                                       bool kernel_ranges) {
  if (max_ranges == 0) max_ranges = 1;
  std::vector<SessionPlan> out;
  auto add = [&](cupti::SessionReplay replay, std::size_t target) {
    // Kernel replay profiles every kernel between start and stop, the L2 flush too, so each of its
    // sessions holds one target with the flush before it.
    const std::size_t room = replay == cupti::SessionReplay::kernel ? 1 : max_ranges;
    // The open session of this kind, if it still has room.
    for (auto it = out.rbegin(); it != out.rend(); ++it) {
      if (it->replay == replay) {
        if (it->targets.size() < room) {
          it->targets.push_back(target);
          return;
        }
        break;
      }
    }
    out.push_back(SessionPlan{replay, {target}});
  };
  for (std::size_t i = 0; i < idempotent.size(); ++i) {
    cupti::SessionReplay replay = cupti::SessionReplay::user;
    if (mode == ReplayMode::kernel || (mode == ReplayMode::automatic && !idempotent[i])) {
      replay = cupti::SessionReplay::kernel;
    } else if (mode == ReplayMode::automatic && kernel_ranges) {
      replay = cupti::SessionReplay::auto_range_user;
    }
    add(replay, i);
  }
  return out;
}

std::vector<std::string> unique_range_names(const std::vector<std::string>& display_names) {
  std::map<std::string, int> count;
  std::vector<std::string> out;
  out.reserve(display_names.size());
  for (const auto& n : display_names) {
    int k = ++count[n];
    out.push_back(k == 1 ? n : n + "#" + std::to_string(k));
  }
  return out;
}

}  // namespace gpuperf
