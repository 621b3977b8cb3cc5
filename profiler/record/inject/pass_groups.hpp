// `record --metrics`: the metric set split into groups, one per profiled launch of an identity, so that each
// profiled launch replays a few of the passes instead of all of them. Plain C++, tested with a fake pass count.
//
// Why: kernel replay runs every pass inside the launch call, saving and restoring the memory the kernel can
// reach, about 190 ms of a profiled launch's 0.35 s on an H100 for the default metrics (13 passes on GH100:
// docs/bound.md). An identity's profiled launches (--profile-launches, default 3) share its name, grid, block
// and NVTX path, so each can collect a part and the identity's counters are their union. An identity whose
// launches did not reach every group has partial counters, and says so (profiler/record/recorder/aggregate.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpuperf::record::inject {

// Passes a metric list needs (CUPTI: cuptiProfilerHostGetNumOfPasses on a configuration of those metrics).
using PassCount = std::function<std::size_t(const std::vector<std::string>& metrics)>;

// Splits `metrics` into at most `groups` non-empty groups of indices into `metrics` (each in ascending order).
// The metrics that need more than one pass on their own (GH100: the speed-of-light throughputs, sm__throughput 8
// passes and gpu__compute_memory_throughput 5, 9 together) are one group, the last: whoever collects them pays
// their passes, and together they share some; the others are balanced over the other groups, so most profiled
// launches replay their few passes (GH100's default set: the other 19 metrics need 4 together). Balanced: each
// metric weighs its own pass count, the heaviest are placed first, each in the group with the fewest passes so
// far (longest processing time first), the groups in the order of their first index. Without such metrics, or
// with only them, every metric is balanced so over `groups`. One group of every metric when `groups` <= 1, there
// are fewer than two metrics, or the whole set needs one pass (nothing to gain). `passes` is called once per
// metric and once for the whole set. (Balancing every metric over three groups, as before, made GH100's default
// set 3 + 5 + 9 = 17 passes an identity; 4 + 9 now.)
std::vector<std::vector<std::size_t>> split_passes(const std::vector<std::string>& metrics, std::size_t groups,
                                                   const PassCount& passes);

// A set that needs at most this many passes together is not split: every profiled launch collects all of it, so
// no identity is partial (GH100's default set with the TriageCompute speed of light: 4 passes; with today's names
// 12, split into 4 + 9).
inline constexpr std::size_t kOneGroupMostPasses = 6;

// The groups `record --metrics` splits `metrics` into unless told (--profile-groups): 1 when the whole set needs
// at most kOneGroupMostPasses passes; else 2 when some metric needs
// more than one pass on its own (those, and the rest: an identity's counters are whole after two profiled
// launches, the first giving every metric but those), else as many as an identity's profiled launches
// (`per_identity`), at most 8; 1 when one launch an identity is profiled.
std::size_t default_groups(const std::vector<std::string>& metrics, std::size_t per_identity, const PassCount& passes);

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
// `first_for_new`: an identity that has collected no group yet takes the first whatever the kept session. The
// caller asks it when the last group holds the metrics that need several passes alone (split_passes,
// last_group_needs_passes_alone): an identity may run once, and the first group has the most metrics for the
// fewest passes (GH100's default set: 19 metrics in 4 passes, against 2 in 9). Without it, in GPT-2 on an H100,
// 8 of the 44-45 kernels profiled once took the kept speed-of-light group in each of 4 runs, and so had 2 metrics
// instead of 19 (0 with it, 5 runs: docs/record-ends.md).
std::size_t next_group(std::vector<bool>& collected, std::optional<std::size_t> kept, bool first_for_new = false);

// Whether a metric needs more than one pass on its own (`passes` of it alone): GH100's speed-of-light throughputs
// (sm__throughput 8 passes, gpu__compute_memory_throughput 5). split_passes puts them in a group of their own,
// the last; pack_single_pass cannot collect them.
bool needs_passes_alone(const std::string& metric, const PassCount& passes);

// Whether split_passes' last group of `groups` holds the metrics that need several passes alone and the others
// none (there is another group): then an identity's first profiled launch takes the first group (next_group,
// first_for_new).
bool last_group_needs_passes_alone(const std::vector<std::vector<std::size_t>>& groups,
                                   const std::vector<std::string>& metrics, const PassCount& passes);

// A profiled launch whose counters were lost (CUPTI failed to decode its range; the kernel ran, so the program's
// results stand): `group`, which it was to collect, is given back to its identity (unmarked in `collected`), so a
// later launch of the identity collects it, unless the identity lost counters `most` times already (`lost`, its
// count, raised here). False: the loss stands.
bool give_back_group(std::vector<bool>& collected, std::size_t group, unsigned& lost, unsigned most);

}  // namespace gpuperf::record::inject
