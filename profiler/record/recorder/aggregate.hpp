// From the launches a recorded program made to gpuperf results: each kernel identity is a benchmark
// instance, each launch's GPU duration one sample of it (README.md, "Recording a program").
//
// Identity (stable across runs and commits): `<program>/<kernel name>` with params grid, block and, when
// the launch ran inside NVTX ranges, nvtx (the path "outer/inner"). The kernel name is demangled with its
// template arguments kept and its parameter list dropped ("at::native::vectorized_elementwise_kernel<4,
// ...>"), or shortened to the function ("vectorized_elementwise_kernel"), or left mangled. The device is
// not part of the name: each GPU's launches become a run of their own (one machine series per GPU).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "profiler/metric_plan.hpp"
#include "profiler/record/kernel_naming.hpp"
#include "profiler/record/recorder/record_file.hpp"

namespace gpuperf::record {

// "demangled" | "function" | "mangled"; InputError otherwise.
KernelNaming kernel_naming_from_string(const std::string& s);

// A launch's grid or block as its identity's params write it: "128x1x1".
std::string dims(const std::uint32_t d[3]);

struct SelectOptions {
  std::string kernel_regex;       // ECMAScript regex searched in the identity's kernel name; empty: all
  std::string nvtx_include;       // ECMAScript regex searched in the NVTX path; empty: all launches, in a range or not
  std::uint64_t launch_skip = 0;  // of the launches selected by the regexes, skip the first N ...
  std::optional<std::uint64_t> launch_count;  // ... then keep at most N (ncu's --launch-skip/--launch-count)
  std::size_t max_samples = 1000;             // durations stored per identity (the first ones); counts and
                                              // totals still cover every kept launch
  KernelNaming naming = KernelNaming::demangled;
  // `record --metrics`: the plan the injection library profiled with (its C line lists plan->perfworks).
  // Each identity then gets one Measurement per planned metric, a sample per profiled launch of it.
  const MetricPlan* metrics = nullptr;
  // `record --metrics` with source lines (source_records.hpp): each identity's Result::source from its
  // instrumented launch, or why it has none. An instrumented launch counts as a launch but gives no duration.
  bool source_lines = false;
  // `record --communication-kernel`: the user's substrings naming communication kernels, besides the built-in
  // ones (core/kernel_kind.hpp); with `metrics`, such identities are counted as left unprofiled for that.
  std::vector<std::string> communication_kernels;
};

struct KernelTotals {
  std::uint64_t launches_seen = 0;  // every launch in the record files
  std::uint64_t launches_kept = 0;  // after the selection
  std::size_t identities = 0;
  std::size_t identities_with_counters = 0;  // with options.metrics: identities with every counter profiled
  std::size_t identities_graph_only = 0;     // identities every launch of which came from a CUDA graph
  std::size_t identities_with_lines = 0;     // with options.source_lines: identities whose source lines are ok
  std::size_t identities_communication = 0;  // with options.metrics: communication identities (never profiled)
  std::uint64_t launches_unfinished = 0;     // kept launches still running when the program ended

  // with options.metrics: identities whose profiled launches collected some of the metric groups, not all
  // (profiler/record/inject/pass_groups.hpp); their missing metrics are skipped, saying so
  std::size_t identities_partial_counters = 0;
};

// Results per device (CUDA ordinal in the recorded processes): one Result per identity, sorted by GPU time
// (largest first), with metrics duration (samples in launch order, at most max_samples), launches,
// gpu_time_total (ns, all kept launches) and gpu_time_share (% of that device's kept kernel time), then the
// hardware metrics of its profiled launches when options.metrics is set.
// `program` is the family ("train", see program_name.hpp); it must not contain '/'. Throws InputError for an invalid
// regex.
std::map<std::uint32_t, std::vector<Result>> aggregate_launches(const std::vector<ProcessRecord>& processes,
                                                                const std::string& program,
                                                                const SelectOptions& options, KernelTotals& totals);

// A program name usable as a family: the executable's base name with characters other than letters,
// digits, '_', '-', '.' and '+' replaced by '_' ("python3", "my_app").
std::string program_family(const std::string& app);

}  // namespace gpuperf::record
