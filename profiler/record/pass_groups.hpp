// `record --metrics`: the metric set split into groups, one per profiled launch of an identity, so that each
// profiled launch replays a few of the passes instead of all of them. Plain C++, tested with a fake pass count.
//
// Why: kernel replay runs every pass inside the launch call, saving and restoring the memory the kernel can
// reach, about 190 ms of a profiled launch's 0.35 s on an H100 for the default metrics (13 passes on GH100:
// docs/bound.md). An identity's profiled launches (--profile-launches, default 3) share its name, grid, block
// and NVTX path, so each can collect a part and the identity's counters are their union. An identity whose
// launches did not reach every group has partial counters, and says so (profiler/record/aggregate.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpuperf::record::inject {

// Passes a metric list needs (CUPTI: cuptiProfilerHostGetNumOfPasses on a configuration of those metrics).
using PassCount = std::function<std::size_t(const std::vector<std::string>& metrics)>;

// Splits `metrics` into at most `groups` non-empty groups of indices into `metrics` (each in ascending order,
// the groups ordered by their first index), balancing the passes: each metric weighs its own pass count, the
// heaviest are placed first, each in the group with the fewest passes so far (longest processing time first).
// CUPTI packs counters of one pass together, so a group may need fewer passes than its weights add up to.
// One group of every metric when `groups` <= 1, there are fewer than two metrics, or the whole set needs one
// pass (nothing to gain). `passes` is called once per metric and once for the whole set.
std::vector<std::vector<std::size_t>> split_passes(const std::vector<std::string>& metrics, std::size_t groups,
                                                   const PassCount& passes);

}  // namespace gpuperf::record::inject

namespace gpuperf::record::inject {

// `metrics` in groups that each need one pass, for a process where kernel replay must not restore memory
// (a rank of a distributed job: launch_policy.hpp). A one-pass replay runs the kernel once and restores
// nothing, so a peer's write into the process's communication buffers is never undone. Each metric, in order,
// joins the first group it still fits in one pass with, else begins a group; a metric that needs more than one
// pass on its own (GH100: the speed-of-light throughputs, sm__throughput 8 passes) cannot be collected so and
// is in `unfit`. Groups hold ascending indices into `metrics` and are ordered by their first index.
struct SinglePassGroups {
  std::vector<std::vector<std::size_t>> groups;
  std::vector<std::size_t> unfit;
};
SinglePassGroups pack_single_pass(const std::vector<std::string>& metrics, const PassCount& passes);

// The group an identity's next profiled launch collects, marked in `collected` (one flag a group: the groups its
// profiled launches collected so far): of those it lacks, the kept session's (`kept`, when a session is kept on
// the launch's context), which restarts that session (0.2-4 ms on an H100) instead of beginning one (150-250 ms),
// else the first. An identity that has every group (more profiled launches than groups) starts over.
std::size_t next_group(std::vector<bool>& collected, std::optional<std::size_t> kept);

}  // namespace gpuperf::record::inject
