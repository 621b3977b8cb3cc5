// What bounds a kernel, as Nsight Compute's Speed Of Light section reads it, and the order in which a
// finding's hints name the counters that explain it. Plain C++: the verdict is derived from stored metrics
// (sm_throughput, memory_throughput, dram_throughput), never stored itself, so every history that holds those
// metrics (a run of today, an imported one) gets the same verdict, and a better rule applies to old runs too.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpuperf {

enum class Bound { memory, compute, latency };
const char* to_string(Bound b);  // "memory", "compute", "latency"

// Below this % of peak for both the SM and memory, neither limits the kernel: it waits (latency-bound).
// Nsight Compute's rule of thumb for its Speed Of Light section.
inline constexpr double kBoundPeakPct = 60.0;

// A kernel's speed of light at one run, in % of peak; nullopt where the metric was not measured (an older
// run, a chip that lacks the counter).
struct SpeedOfLight {
  std::optional<double> sm, memory, dram;
};

// A kernel's speed of light from its metrics by name (`value`: nullopt when it has no usable value): sm_throughput
// and memory_throughput, or where a chip read them as TriageCompute metrics (profiler/speed_of_light.hpp)
// sol_sm_triage and the busiest of sol_l1tex_triage, sol_lts_triage, sol_dramc_triage and dram_throughput (what
// gpu__compute_memory_throughput takes the busiest of, near enough to classify; not stored as memory_throughput).
SpeedOfLight speed_of_light_from(const std::function<std::optional<double>(const char* metric)>& value);

struct BoundVerdict {
  std::optional<Bound> bound;  // nullopt: not classified (see `missing`)
  double pct = 0;              // the throughput that decided: SM for compute, memory otherwise
  std::string unit;            // "SM", "DRAM" or "L1/L2" (memory-bound with DRAM not the busiest)
  double sm = 0, memory = 0;   // both sides of the pair, for the latency text
  std::string missing;         // the metrics it could not use, "sm_throughput, memory_throughput"
};

// Compute-bound when SM throughput reaches kBoundPeakPct and is at least the memory throughput;
// memory-bound when memory throughput reaches it and exceeds SM's; latency-bound when neither does. A
// memory-bound kernel's unit is DRAM when DRAM throughput is within 5 points of the memory throughput (the
// busiest memory unit is DRAM), otherwise L1/L2.
BoundVerdict classify_bound(const SpeedOfLight& sol);

// "compute-bound 91% SM", "memory-bound 82% DRAM", "latency-bound (SM 31%, memory 22%)",
// "bound unknown (no sm_throughput)".
std::string bound_text(const BoundVerdict& v);

// The bound hint of a change: "memory-bound 82% DRAM -> compute-bound 91% SM" when the bound changed, the new
// one alone ("compute-bound 91% SM") when it did not; "" when neither side could be classified.
std::string bound_change_text(const BoundVerdict& before, const BoundVerdict& after);

// The metrics that explain a change of a kernel with this bound, most telling first: for compute, its
// instructions and pipe mix; for memory, its sectors and bytes; for latency, its occupancy and stalls.
const std::vector<std::string>& explaining_metrics(Bound b);

// The rank of `metric` among a finding's hints when the kernel's bound (after the change) is `bound`: the
// explaining metrics first, in their order, then every other metric in the traits table's order (unknown
// names last). Without a bound, the traits table's order alone (as before speed of light was measured).
std::size_t hint_rank(const std::string& metric, std::optional<Bound> bound);

// True when `metric` is among explaining_metrics(bound).
bool explains(const std::string& metric, Bound bound);

// Work counters (instructions, inst_*) whose hints also give the relative change: "+86%".
bool is_work_metric(const std::string& metric);

}  // namespace gpuperf
