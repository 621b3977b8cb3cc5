#include "profiler/live_groups.hpp"

#include <utility>

namespace gpuperf {

void for_each_live_group(const std::vector<InstanceRef>& instances, const GroupLimits& limits, const PrepareFn& prepare,
                         const GroupFn& run_group) {
  std::vector<std::unique_ptr<Workload>> live;
  std::vector<std::size_t> index;
  auto flush = [&] {
    if (live.empty()) return;
    std::vector<ProfileTarget> targets;
    targets.reserve(live.size());
    for (std::size_t k = 0; k < live.size(); ++k) targets.push_back({&instances[index[k]], live[k].get()});
    run_group(targets, index);
    live.clear();  // the group's device memory is free again before the next instance is made
    index.clear();
  };
  const std::size_t max_instances = limits.max_instances == 0 ? 1 : limits.max_instances;
  for (std::size_t i = 0; i < instances.size(); ++i) {
    if (!live.empty() && (live.size() >= max_instances || (limits.memory_low && limits.memory_low()))) flush();
    if (auto w = prepare(i)) {
      live.push_back(std::move(w));
      index.push_back(i);
    }
  }
  flush();
}

}  // namespace gpuperf
