#include "core/metrics.hpp"

#include <map>
#include <utility>

namespace gpuperf {
namespace {

MetricTraits make(const char* name, const char* unit, bool higher_is_better, bool deterministic, MetricSource source,
                  std::vector<std::string> perfworks, const char* description) {
  return MetricTraits{MetricInfo{name, unit, higher_is_better, deterministic}, source, std::move(perfworks),
                      description};
}

}  // namespace

const std::vector<MetricTraits>& known_metrics() {
  static const std::vector<MetricTraits> table = {
      make("duration", "ns", false, false, MetricSource::timing, {},
           "kernel duration from CUPTI activity records (GPU start to end)"),
      // A recorded program's kernels: one sample of `duration` per launch, and these three per kernel
      // identity (name, launch shape, NVTX range) and run. A deterministic program launches a kernel the same
      // number of times every run, so any change in `launches` is real (a new code path, a changed loop).
      make("launches", "count", false, true, MetricSource::recorded, {},
           "launches of the kernel in the recorded program"),
      make("gpu_time_total", "ns", false, false, MetricSource::recorded, {},
           "sum of the durations of the kernel's launches in the recorded program"),
      make("gpu_time_share", "%", false, false, MetricSource::recorded, {},
           "the kernel's share of the recorded program's total kernel time on that GPU"),
      make("gbps", "GB/s", true, false, MetricSource::derived, {}, "declared bytes per launch / median duration"),
      make("gflops", "GFLOP/s", true, false, MetricSource::derived, {}, "declared FLOPs per launch / median duration"),
      make("gld_efficiency", "%", true, true, MetricSource::profiler,
           {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"},
           "bytes used per global-load sector fetched"),
      make("gst_efficiency", "%", true, true, MetricSource::profiler,
           {"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"},
           "bytes used per global-store sector written"),
      make("shared_load_transactions", "count", false, true, MetricSource::profiler,
           {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"}, "shared-memory load wavefronts"),
      make("shared_store_transactions", "count", false, true, MetricSource::profiler,
           {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"}, "shared-memory store wavefronts"),
      make("shared_bank_conflicts", "count", false, true, MetricSource::profiler,
           {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"},
           "shared-memory bank conflicts, loads plus stores"),
      make("achieved_occupancy", "%", true, false, MetricSource::profiler,
           {"sm__warps_active.avg.pct_of_peak_sustained_active"}, "average active warps / maximum"),
      make("dram_bytes_read", "bytes", false, false, MetricSource::profiler, {"dram__bytes_read.sum"},
           "bytes read from device memory"),
      make("dram_bytes_written", "bytes", false, false, MetricSource::profiler, {"dram__bytes_write.sum"},
           "bytes written to device memory"),
      // Speed of light (Nsight Compute's first section): how close the kernel came to the peak of its busiest
      // compute unit and of its busiest memory unit, over the kernel's elapsed cycles. Higher is closer to the
      // hardware's limit. They classify the kernel (core/bound.hpp); not deterministic (clocks, caches).
      make("sm_throughput", "%", true, false, MetricSource::profiler,
           {"sm__throughput.avg.pct_of_peak_sustained_elapsed"},
           "compute (SM) throughput: the busiest SM pipe or unit, % of its peak"),
      make("memory_throughput", "%", true, false, MetricSource::profiler,
           {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
           "memory throughput: the busiest of L1, L2 and DRAM, % of its peak"),
      make("dram_throughput", "%", true, false, MetricSource::profiler,
           {"dram__throughput.avg.pct_of_peak_sustained_elapsed"}, "DRAM throughput, % of peak"),
      // The speed of light as NVIDIA's TriageCompute metrics read it: 2 range-profiler passes together on GH100
      // where sm__throughput and gpu__compute_memory_throughput need 9 (profiler/speed_of_light.hpp). Only some
      // chips accept them (GH100 and GB100 in CUPTI 13.0, GB100 without the DRAMC one); the default set takes
      // them instead of sm_throughput and memory_throughput where the chip does and the set then needs fewer
      // passes. Names of their own until validated against those and ncu per instance (docs/metrics.md).
      make("sol_sm_triage", "%", true, false, MetricSource::profiler,
           {"TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed"},
           "SM throughput (TriageCompute configuration), % of peak: sm_throughput in fewer passes"),
      make("sol_l1tex_triage", "%", true, false, MetricSource::profiler,
           {"SM_A.TriageCompute.l1tex__throughput.avg.pct_of_peak_sustained_elapsed"},
           "L1/texture throughput (TriageCompute configuration), % of peak"),
      make("sol_lts_triage", "%", true, false, MetricSource::profiler,
           {"LTS.TriageCompute.lts__throughput.avg.pct_of_peak_sustained_elapsed"},
           "L2 (LTS) throughput (TriageCompute configuration), % of peak"),
      make("sol_dramc_triage", "%", true, false, MetricSource::profiler,
           {"FBSP.TriageCompute.dramc__throughput.avg.pct_of_peak_sustained_elapsed"},
           "DRAM controller throughput (TriageCompute configuration), % of peak"),
      // Work: warp instructions executed, in total and on the pipes that explain a compute change. Exact for a
      // deterministic kernel (same input size, same code): any change is a change of the code or its launch.
      make("instructions", "count", false, true, MetricSource::profiler, {"smsp__inst_executed.sum"},
           "warp instructions executed"),
      make("inst_fma", "count", false, true, MetricSource::profiler, {"smsp__inst_executed_pipe_fma.sum"},
           "warp instructions on the FMA pipe (FP32 add, multiply, fused multiply-add; IMAD)"),
      make("inst_alu", "count", false, true, MetricSource::profiler, {"smsp__inst_executed_pipe_alu.sum"},
           "warp instructions on the ALU pipe (integer and logic, FP32 compare and min/max, conversions)"),
      make("inst_lsu", "count", false, true, MetricSource::profiler, {"smsp__inst_executed_pipe_lsu.sum"},
           "warp instructions on the load-store pipe (global, local, shared memory)"),
      make("issue_active", "%", true, false, MetricSource::profiler,
           {"smsp__issue_active.avg.pct_of_peak_sustained_active"},
           "issue slots busy: cycles a scheduler issued an instruction, % of active cycles"),
      // Why warps wait (Nsight Compute's Warp State section): per issued instruction, the warps stalled for
      // each reason. Lower is better; not deterministic.
      make("stall_long_scoreboard", "warps/issue", false, false, MetricSource::profiler,
           {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"},
           "warps waiting on a global, local or texture memory result, per issue"),
      make("stall_math_throttle", "warps/issue", false, false, MetricSource::profiler,
           {"smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"},
           "warps waiting for a busy math pipe, per issue"),
      make("stall_barrier", "warps/issue", false, false, MetricSource::profiler,
           {"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"},
           "warps waiting at a block barrier (__syncthreads), per issue"),
      make("stall_not_selected", "warps/issue", false, false, MetricSource::profiler,
           {"smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio"},
           "warps ready but not picked (another warp issued), per issue"),
      make("theoretical_occupancy", "%", true, true, MetricSource::static_attr, {},
           "occupancy API: resident warps per SM / maximum"),
      make("registers", "count", false, true, MetricSource::static_attr, {}, "registers per thread"),
      make("static_shared_bytes", "bytes", false, true, MetricSource::static_attr, {},
           "static shared memory per block"),
      make("local_bytes", "bytes", false, true, MetricSource::static_attr, {},
           "local memory per thread (spills, stack)"),
  };
  return table;
}

const MetricTraits* find_metric(const std::string& name) {
  for (const auto& t : known_metrics()) {
    if (t.info.name == name) return &t;
  }
  return nullptr;
}

std::vector<std::string> default_profile_metrics() {
  return {"gld_efficiency",
          "gst_efficiency",
          "shared_load_transactions",
          "shared_store_transactions",
          "shared_bank_conflicts",
          "achieved_occupancy",
          "dram_bytes_read",
          "dram_bytes_written",
          "sm_throughput",
          "memory_throughput",
          "dram_throughput",
          "instructions",
          "inst_fma",
          "inst_alu",
          "inst_lsu",
          "issue_active",
          "stall_long_scoreboard",
          "stall_math_throttle",
          "stall_barrier",
          "stall_not_selected"};
}

namespace {
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

bool is_counter_sum(const std::string& perfworks_name) { return ends_with(perfworks_name, ".sum"); }

Measurement single_value(const MetricInfo& info, double value) {
  Measurement m;
  m.metric = info;
  m.samples = {value};
  m.summary = summarize(m.samples);
  return m;
}

Measurement single_value(const std::string& name, double value) { return single_value(metric_info_for(name), value); }

MetricInfo metric_info_for(const std::string& name) {
  if (const MetricTraits* t = find_metric(name)) return t->info;
  MetricInfo info;
  info.name = name;
  if (ends_with(name, ".pct") || name.find("pct_of_peak") != std::string::npos) {
    info.unit = "%";
  } else if (name.rfind("dram__bytes", 0) == 0 || name.find("__bytes") != std::string::npos) {
    info.unit = "bytes";
  } else if (name.rfind("gpu__time_duration", 0) == 0) {
    info.unit = "ns";
  } else {
    info.unit = "count";
  }
  info.higher_is_better = info.unit == "%";
  info.deterministic = is_counter_sum(name) && info.unit == "count";
  return info;
}

}  // namespace gpuperf
