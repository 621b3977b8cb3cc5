// Pass planning for the collector: which Perfworks metrics go into the one CUPTI configuration, and how a
// batch of instances is split into profiling sessions. Plain C++, unit-tested.
//
// Cost model: a session costs (passes x the batch's launches) plus a fixed setup (enable, set config,
// decode); the passes come from CUPTI (cuptiProfilerHostGetNumOfPasses) for the whole metric set. So all
// metrics share one configuration (CUPTI packs compatible counters into the same pass) and all instances
// of a batch share one session, each in its own range, rather than one session per instance.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "profiler/collector.hpp"
#include "profiler/cupti/range_backend.hpp"
#include "profiler/metric_catalog.hpp"

namespace gpuperf {

struct MetricPlan {
  std::vector<MetricRequest> requests;          // in output order
  std::vector<std::string> perfworks;           // unique full names of all requests
  std::vector<std::vector<std::size_t>> terms;  // per request: indices into `perfworks` summed (profiler)
  // The CUPTI configurations, each a list of indices into `perfworks`; each batch is profiled once per
  // configuration. One configuration unless SASS metrics are kept apart (see plan_metrics).
  std::vector<std::vector<std::size_t>> configurations;
  // Per configuration: true when its metrics are rates over the range's elapsed cycles (speed of light), so
  // under automatic replay its sessions use auto ranges, each the kernel alone (plan_sessions). A user range
  // also spans the launch and the synchronisation around the kernel (about 45 us on an H100), which dilutes
  // an elapsed rate: a 58 us copy read 44% DRAM throughput in a user range against ncu's 63%.
  std::vector<bool> kernel_ranges;
  bool needs_profiler() const { return !perfworks.empty(); }
  bool needs_static() const;
};

// True for metrics CUPTI collects by patching the kernel's SASS (smsp__sass_*, sm__sass_*).
bool is_sass_metric(const std::string& perfworks_name);

// True for metrics whose value is a rate over the range's elapsed cycles (".pct_of_peak_sustained_elapsed",
// ".per_cycle_elapsed"): they need a range that holds the kernel alone (MetricPlan::kernel_ranges).
bool is_elapsed_rate(const std::string& perfworks_name);

// Deduplicates the Perfworks names of all requests (shared_bank_conflicts and a raw
// l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum share one counter). With `separate_sass`,
// SASS-patched metrics get a configuration (so a session) of their own, and hardware counters are read
// while the kernels run unpatched; otherwise everything shares one configuration (CUPTI still puts SASS
// metrics in passes of their own). Elapsed rates (is_elapsed_rate) get a configuration of their own, last,
// marked in kernel_ranges, when there are other metrics too.
MetricPlan plan_metrics(std::vector<MetricRequest> requests, bool separate_sass = false);

// The plan's configurations made one: every metric, in kernel ranges if any configuration was. CUPTI shares
// passes between counters of one configuration only, so one can need fewer passes than the plan's several
// together (GH100, the default set: 11 passes in one against 13 as planned, 4 in user ranges and 9 in auto
// ranges); the collector merges when it does (profiler/collector.cpp). Counters read the same in a range that
// holds the kernel alone as in a user range around its launch; elapsed rates need it. No-op for one
// configuration.
void merge_configurations(MetricPlan& plan);

struct SessionPlan {
  cupti::SessionReplay replay = cupti::SessionReplay::user;
  std::vector<std::size_t> targets;  // indices into the batch, in launch order
};

// Splits a batch into sessions: user replay for idempotent targets (unless `mode` forces one kind),
// kernel replay for the others; at most `max_ranges` targets per user-replay session and one per
// kernel-replay session (the L2 flush before it must stay outside); batch order kept within each.
// With `kernel_ranges` (a configuration of elapsed rates), idempotent targets under automatic replay get
// auto ranges with user replay instead of user ranges: one session for up to `max_ranges` targets, in
// which CUPTI makes every kernel a range (the warm launch and the flush kernels too, which the collector
// skips by launch order) and the collector flushes L2 before every pass of every target, as ncu does.
std::vector<SessionPlan> plan_sessions(const std::vector<bool>& idempotent, ReplayMode mode, std::size_t max_ranges,
                                       bool kernel_ranges = false);

// Range names for a session, one per target: the display name, made unique with "#2", "#3", ... when the
// same instance appears twice (CUPTI keys user ranges by name).
std::vector<std::string> unique_range_names(const std::vector<std::string>& display_names);

}  // namespace gpuperf
