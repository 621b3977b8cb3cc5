// The gate set: which verdicts fail a job (exit 1 of `compare`, `check`, `detect --fail-on-regression`, the
// nightly and pre-merge recipes, JUnit failures). Data, stated in every output, not a branch buried in the
// comparison code (as Bencher's thresholds name the measures that may alert).
//
// By default a job fails on
//   - duration (the kernel got slower), and a failed or incorrect kernel (always), and
//   - the deterministic counters of the work (core/metrics.cpp, MetricInfo::deterministic): instructions and
//     the pipe mix, global load/store efficiency, shared load/store transactions and bank conflicts,
//     registers, static shared bytes, local bytes, theoretical occupancy, a recorded kernel's launches. They
//     change only when the code or the launch changes, so a move is a fact, never noise.
// Sampled and rate counters (stall ratios, issue activity, SM/memory/DRAM throughput, achieved occupancy,
// DRAM bytes, a recorded kernel's GPU time totals) and GB/s, GFLOP/s (the duration's own test, inverted)
// still get verdicts, appear in every table and explain a duration's finding, but fail a job only when the
// user gates on them: `--gate stall_barrier,achieved_occupancy`, or `--gate all`.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace gpuperf::analysis {

// The name `--gate` and `--threshold` know a recorded program's total kernel time by (program_change.hpp):
// not a metric of a kernel, and not in the default gate.
inline constexpr const char* kProgramTimeMetric = "program_time";

// True for a metric in the default gate: duration, or a deterministic counter.
bool default_gate(const MetricInfo& metric);

struct GateSet {
  bool all = false;             // --gate all: every metric gates
  std::set<std::string> extra;  // metrics gated besides the default, by name

  // True when a slower verdict of `metric` fails the job.
  bool gates(const MetricInfo& metric) const;
  // Applies one --gate value: "all", "default" (no change), or a comma-separated list of metric names, each
  // checked by check_metric_name(). Throws InputError naming the option.
  void add(const std::string& spec, const std::string& option = "--gate");
  // "duration, failed or incorrect kernels, deterministic counters" plus "+ NAME, ..." or "every metric":
  // the line outputs print.
  std::string describe() const;
  // The user's additions, for JSON: ["all"] or the names.
  std::vector<std::string> added() const;
};

// Empty for a known metric name; else "expected a metric name, got 'duraton'; did you mean duration?" (the
// CLI's wording for a refused value, cli/option_kinds.hpp), or the list of names when none is close.
std::string unknown_metric(const std::string& name);

// Throws InputError (exit 2) for a name that is neither a gpuperf metric (core/metrics.hpp) nor a raw
// Perfworks name (it holds "__", e.g. dram__bytes_read.sum): "--gate: expected a metric name, got 'duraton';
// did you mean duration?". `option` names where it was given.
void check_metric_name(const std::string& name, const std::string& option);

}  // namespace gpuperf::analysis
