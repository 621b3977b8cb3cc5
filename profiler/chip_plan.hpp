// What gpuperf measures on a chip, asked of CUPTI's host API by the chip's name alone (no GPU): `gpuperf metrics
// --chip GA100` and docs/gpus.md. Each metric of a set resolves to its Perfworks names or is `unsupported` with
// the reason; the set's passes; which speed-of-light names the chip takes and whether the bound verdict can be
// made; the metrics PM sampling takes (record --pm-sampling); and whether source lines (SASS metrics) work.
// The answers come from the same functions `run`, `check` and `record` call on a GPU of that chip.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpuperf {

// One metric on the chip.
struct ChipMetric {
  std::string name;                    // gpuperf's name
  std::string kind;                    // "timing", "counter", "SASS-patched counter", "static attribute", ...
  std::vector<std::string> perfworks;  // the Perfworks names it sums (counters)
  bool supported = true;
  std::string reason;  // why not, when unsupported: "GA100 has no TriageCompute.sm__throughput..."
};

struct ChipPlan {
  std::string chip;
  std::vector<ChipMetric> metrics;  // the set asked for, in its order, as `run` and `profile` collect it
  // The supported counters of the set in one range-profiler configuration: their Perfworks names and passes.
  std::size_t perfworks = 0, passes = 0;
  // `record`'s speed of light for the set: "TriageCompute" (one pass group; `run` keeps today's names, whose values
  // the TriageCompute ones do not equal: docs/metrics.md) or today's "sm__throughput, gpu__compute_memory_throughput",
  // and why (the names taken, the passes).
  std::string speed_of_light, speed_of_light_why;
  std::string bound;  // "yes" or "no: <why>" (core/bound.hpp needs an SM and a memory throughput)
  // record --pm-sampling: the stored names of the set the chip takes in one pass; empty with `pm_why` if none.
  std::vector<std::string> pm_sampling;
  std::size_t pm_passes = 0;
  std::string pm_why;
  // Source lines: the SASS counters the per-line pass reads that the chip lacks (all of them: no SASS metrics).
  std::size_t sass_offered = 0;
  std::vector<std::string> sass_missing;
  std::string source_lines_why;  // "" when source lines work
};

// The plan for `chip` ("GA100", as CUPTI names it) and the gpuperf metric names `names` (empty: the default set
// `run` collects). Throws EnvironmentError when CUPTI's module cannot be loaded and InputError when CUPTI does
// not know the chip (listing the chips it names in docs/gpus.md).
ChipPlan plan_for_chip(const std::string& chip, const std::vector<std::string>& names);

// The chips docs/gpus.md covers, oldest first: Turing to Blackwell, data center and desk.
const std::vector<std::string>& documented_chips();

}  // namespace gpuperf
