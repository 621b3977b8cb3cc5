// `gpuperf bisect`'s decision: is a commit on the good or the bad side of a change, measured by one run?
//
// Every question is asked of compare's own test (compare_runs): a deterministic counter by equality beyond
// rounding, a noisy metric by Mann-Whitney plus the minimum effect. A commit is compared with both ends:
//   same as good and changed from bad  -> good
//   same as bad and changed from good  -> bad
//   changed from both (an intermediate level, or a counter equal to neither end)
//                                      -> the side whose median is nearer in ratio; equally near: ambiguous
//   anything else (same as both, an ambiguous verdict on either side) -> ambiguous: measure again
// An instance that failed or gave a wrong answer at the commit cannot be placed: skip.
// With several tracked instances, a skip of any makes the commit a skip, a bad one makes it bad, and it is
// good only when every instance says good.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"
#include "reports/analysis/compare.hpp"

namespace gpuperf::analysis {

enum class BisectVerdict { good, bad, ambiguous, skip };
const char* to_string(BisectVerdict v);  // "good", "bad", "ambiguous", "skip"

// An instance whose metric differs between the two ends, with the ends' comparison row.
struct TrackedChange {
  BenchmarkInstance instance;
  CompareRow ends;  // base: good end, candidate: bad end
};

// The instances of both ends whose `metric` changed (compare verdict slower or faster) from `good` to
// `bad`, in compare's row order. Empty: the change does not reproduce between these two runs.
std::vector<TrackedChange> reproduced_changes(const Run& good, const Run& bad, const std::string& metric,
                                              const CompareOptions& options);

// The rows of `metric` for the ends of one instance, for a message that says why nothing reproduced.
std::vector<CompareRow> end_rows(const Run& good, const Run& bad, const std::string& metric,
                                 const CompareOptions& options);

struct CommitDecision {
  BisectVerdict verdict = BisectVerdict::ambiguous;
  std::string why;  // "same as good (+0.1%); slower than bad (-4.8%)" per instance
};

CommitDecision decide_commit(const Run& good, const Run& bad, const Run& candidate,
                             const std::vector<TrackedChange>& tracked, const CompareOptions& options);

// What moved from `before` to `at` with the bisected metric: the other metrics of the tracked instances
// whose compare verdict is slower or faster (GB/s and GFLOP/s, which follow the duration, left out); per
// instance, the metrics that explain a change of its bound at `at` first (core/bound.hpp: hint_rank).
std::vector<CompareRow> moved_with(const Run& before, const Run& at, const std::vector<TrackedChange>& tracked,
                                   const CompareOptions& options);

// An instance's bound in `before` and in `at`, from each run's speed-of-light metrics.
std::pair<BoundVerdict, BoundVerdict> bound_at(const Run& before, const Run& at, const BenchmarkInstance& instance);

// Per tracked instance with speed of light in either run: "matmul/tiled[n=1024,tile=16]: memory-bound 82% DRAM
// -> compute-bound 91% SM" (or the bound alone when it did not change).
std::vector<std::string> bound_changes(const Run& before, const Run& at, const std::vector<TrackedChange>& tracked);

}  // namespace gpuperf::analysis
