// Pairwise comparison of two runs (`gpuperf compare`, `gpuperf check`): one row per benchmark instance and
// metric with a verdict.
//
// Noisy metrics: Mann-Whitney U on the raw samples, the Hodges-Lehmann interval of the ratio of medians at
// 1 - alpha, and a minimum effect size. A change needs p < alpha AND the whole interval beyond the effect
// floor in one direction AND neither median inside the other side's 10-90% range (samples of one run are
// not independent: a kernel may sit in one of two modes for a stretch of samples); an interval inside the
// floor is "same"; a large estimate without that evidence is "ambiguous". Where the two sides' median SM
// clocks differ by more than 1%, a duration change must also hold in cycles (duration x clock), else it is
// "ambiguous" with confirmed_in_cycles = false. With history, a level the machine produced in its last
// runs is "ambiguous" too (CompareOptions::history_runs).
// One value per side (achieved occupancy, DRAM bytes, a recorded kernel's totals): no test; a difference
// within the floor is "same", a larger one "ambiguous" until the history judges it (compare_history.hpp).
// Deterministic metrics: any relative difference above the rounding tolerance (per-metric for the nearly
// deterministic shared-memory counters) is a change.
// The vocabulary (CompareOptions, RunSide, CompareReport) is compare_report.hpp's, so the helpers compare_runs
// calls (compare_history, identity_findings, line_findings) include that, not this.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/bound.hpp"
#include "core/result.hpp"
#include "db/store.hpp"
#include "reports/analysis/compare_report.hpp"
#include "reports/analysis/measurement_verdict.hpp"
#include "reports/analysis/types.hpp"

namespace gpuperf::analysis {

// Every instance and metric of either run; duration rows that changed get hints in `note` naming the
// other metrics of the same instance that changed ("gld_efficiency 100% -> 50%"). `history`, when given,
// is the base branch's series on the candidate's machine (db::Store::history); runs after the candidate
// and the candidate's own run are ignored.
CompareReport compare_runs(const Run& base, const Run& candidate, const CompareOptions& options,
                           std::int64_t base_run_id = 0, std::int64_t candidate_run_id = 0,
                           const std::vector<db::Series>* history = nullptr);

// Judges report.program (when there is one) over the other recordings' totals (program_change.hpp's
// judge_program), with the program_time floor and gate of `options`.
void judge_program_runs(CompareReport& report, const std::vector<double>& base_runs,
                        const std::vector<double>& candidate_runs, const CompareOptions& options);

// A result's speed of light (core/bound.hpp) from its sm_throughput, memory_throughput and dram_throughput;
// empty for a null result or where a metric was not measured.
SpeedOfLight speed_of_light(const Result* r);

}  // namespace gpuperf::analysis
