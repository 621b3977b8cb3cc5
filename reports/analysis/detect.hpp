// Change points over history (`gpuperf detect`, and the reports' trend charts).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/bound.hpp"
#include "db/store.hpp"
#include "reports/analysis/gate.hpp"
#include "reports/analysis/tail_changes.hpp"
#include "reports/analysis/thresholds.hpp"
#include "reports/analysis/types.hpp"

namespace gpuperf::analysis {

struct DetectOptions {
  Thresholds thresholds = Thresholds::for_detect();
  std::size_t min_segment = 4;        // runs on each side before a change can be called
  std::size_t permutations = 1999;    // per permutation test
  std::optional<std::size_t> recent;  // only changes starting within each series' newest N points
  // Fill ChangePoint::hints: a duration change's root causes, and for any other change the duration change
  // of the same instance at that run (the one it may explain).
  bool hints = true;
  // Unconfirmed changes (tail_changes.hpp): a change starting in the newest runs of a noisy series with raw
  // samples, before min_segment runs confirm it. Tails of every length are tested: the segmentation often
  // needs more than min_segment runs after a step (with a small min_segment, its permutation test has too
  // few runs on a side), and a change flagged last night should stay flagged until it does, not vanish
  // for a night and come back.
  bool unconfirmed = true;
  TailOptions tail;
  GateSet gate;  // which regressions fail `detect --fail-on-regression` (ChangePoint::gated)
};

// Change points of every series. The point of a run is its median (a single value is its own median).
// Points of excluded runs and points whose status is not ok are skipped; ChangePoint::index still refers
// to positions in series[i].points. Noisy metrics: find_change_points(), then find_tail_change() after the
// last of them (raw samples needed: db::HistoryFilter::with_samples, or attach_recent_samples()); the
// deterministic ones: find_level_changes(). Ordered by series, then by index. Same input, same output
// (seeded permutations).
std::vector<ChangePoint> detect_changes(const std::vector<db::Series>& series, const DetectOptions& options = {});

// Root-cause hints for `change` (a duration change): the other metrics of the same machine and instance
// whose value moved at the same run, as "gld_efficiency 100% -> 50%" or "registers 32 -> 40".
// Deterministic metrics: the value at the change's run against the one at the previous run. Noisy
// metrics: a change point of their own (in `changes`) within one run of it.
std::vector<std::string> root_cause_hints(const ChangePoint& change, const std::vector<db::Series>& series,
                                          const std::vector<ChangePoint>& changes, const DetectOptions& options);

// A hint for a metric that moved: "gld_efficiency 100% -> 50%"; a work counter adds its relative change,
// "instructions 37.7M -> 71.3M (+89%)".
std::string change_hint(const MetricInfo& m, double before, double after);

// A change's hints, given each moved metric as (metric name, hint text) in the traits table's order and the
// kernel's bound before and after it (core/bound.hpp): the metrics that explain a change of a kernel of that
// bound first (its bound after the change, else before), then the bound hint ("memory-bound 82% DRAM ->
// compute-bound 91% SM"), then the rest. Without a bound on either side, the input order and no bound hint.
std::vector<std::string> order_hints(std::vector<std::pair<std::string, std::string>> moved, const BoundVerdict& before,
                                     const BoundVerdict& after);

}  // namespace gpuperf::analysis
