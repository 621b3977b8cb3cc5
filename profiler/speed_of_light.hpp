// Which names the speed-of-light throughputs are read under on a chip: today's (sm__throughput and
// gpu__compute_memory_throughput, 9 range-profiler passes together on GH100) or NVIDIA's single-pass-group
// TriageCompute metrics (2 passes together; the default set with them 4 passes in one configuration instead of
// 4 + 9). CUPTI 13.0's host API accepts TriageCompute.sm__throughput for GH100 and GB100 and refuses it for GA100,
// AD102 and GB202; GB100 refuses the DRAMC one. The host API answers from a chip name alone (no GPU), so the
// choice is made per chip by asking it: `run` and `check` in make_cupti_collector, `record` inside the program at
// its first context (inject_metrics.cpp), both through the functions below. Plain C++, no CUPTI header.
//
// The TriageCompute values are stored under names of their own (sol_sm_triage, sol_l1tex_triage, sol_lts_triage,
// sol_dramc_triage) until validated per instance against today's names and ncu (bench/record/record_gpu55.sh);
// docs/metrics.md says which.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gpuperf {

// The TriageCompute Perfworks names (the SM one first).
extern const char* const kTriageSm;
extern const char* const kTriageL1tex;
extern const char* const kTriageLts;
extern const char* const kTriageDramc;

// True for a TriageCompute Perfworks name.
bool is_triage_name(const std::string& perfworks);

// Whether the chip accepts a Perfworks name in a range-profiler configuration (CUPTI's host API).
using AcceptsMetric = std::function<bool(const std::string& perfworks)>;
// Passes a list of names needs (gpuperf names or Perfworks names, as the caller's list holds).
using PassesOfList = std::function<std::size_t(const std::vector<std::string>& names)>;

// gpuperf metric names: `names` with sm_throughput as sol_sm_triage and memory_throughput as the L1, L2 and DRAMC
// TriageCompute throughputs that `accepts` (each once, in place), whatever the passes.
std::vector<std::string> with_triage_names(const std::vector<std::string>& names, const AcceptsMetric& accepts);

// gpuperf metric names: `names` with sm_throughput as sol_sm_triage and memory_throughput as the L1, L2 and DRAMC
// TriageCompute throughputs (those the chip accepts; dram_throughput stays as it is), when the chip accepts
// TriageCompute.sm__throughput, `names` holds sm_throughput or memory_throughput, and the set then needs fewer
// passes; else `names` unchanged.
std::vector<std::string> speed_of_light_names(const std::vector<std::string>& names, const AcceptsMetric& accepts,
                                              const PassesOfList& passes);

// The same choice over Perfworks lists, inside a recorded program: `triage` is `today` with the triage names in
// place of today's (the recorder plans both). Returns `triage` without the TriageCompute names the chip refuses
// when it accepts TriageCompute.sm__throughput and that list needs fewer passes than `today`; else `today`.
std::vector<std::string> choose_speed_of_light(const std::vector<std::string>& today,
                                               const std::vector<std::string>& triage, const AcceptsMetric& accepts,
                                               const PassesOfList& passes);

}  // namespace gpuperf
