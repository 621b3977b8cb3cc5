// Verified workloads kept alive in groups, so the hardware-metric collector can profile a whole group in
// one CUPTI session (its per-session start costs more than the replay passes themselves). `gpuperf run`
// (timing, then metrics per group) and `gpuperf profile` (metrics only) share this, so both place every
// buffer the same way and both profile in sessions of the same size. Plain C++: tested with fakes.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "kernels/benchmark.hpp"

namespace gpuperf {

// One live instance to profile in a batch; both pointers must outlive the call that receives it.
struct ProfileTarget {
  const InstanceRef* ref = nullptr;
  Workload* workload = nullptr;
};

struct GroupLimits {
  // Most instances in one group: the collector's ranges per session (CollectorOptions).
  std::size_t max_instances = 64;
  // True when keeping one more workload alive would leave too little device memory free (the caller
  // decides what "too little" is). Empty: memory never ends a group.
  std::function<bool()> memory_low;
};

// Instance `index` made ready (verified, and timed by the runner); null when there is nothing to keep
// alive (a wrong answer, a failure, or a caller that profiles nothing).
using PrepareFn = std::function<std::unique_ptr<Workload>(std::size_t index)>;
// A complete group: its live targets and their indices into the instance list, in order.
using GroupFn = std::function<void(const std::vector<ProfileTarget>& targets, const std::vector<std::size_t>& index)>;

// Calls `prepare` for every instance in order. A group is handed to `run_group`, then its workloads are
// destroyed, before the next instance is prepared when the group holds `limits.max_instances` workloads or
// `limits.memory_low()` says so; whatever is left after the last instance forms the final group. Every
// group has at least one target. Exceptions from the callbacks propagate (the live workloads are freed).
void for_each_live_group(const std::vector<InstanceRef>& instances, const GroupLimits& limits, const PrepareFn& prepare,
                         const GroupFn& run_group);

}  // namespace gpuperf
