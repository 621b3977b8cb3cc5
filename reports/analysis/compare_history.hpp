// What `compare`/`check` take from the base branch's history on the candidate's machine (--history N): the
// run levels of a row's series up to the base run (the window ends at the base: a run newer than the base,
// already at the candidate's level, never widens the band the change is judged by), and two verdicts that
// rest on them.
//   - A noisy change whose candidate median lies within the range of the last N levels is "ambiguous": GPUs
//     move some kernels between run-to-run regimes (two modes a few percent apart) that one run's samples
//     cannot show.
//   - A metric measured once per run (stall ratios, issue activity, throughputs, achieved occupancy, DRAM
//     bytes, a recorded kernel's totals) has no sample test; its one value is judged against every run of
//     the window instead (level_band.hpp): with at least 3 of them, outside their range by more than the
//     metric's practical floor (thresholds.cpp: a stall ratio 10% and 0.01 warps/issue, a throughput 5%)
//     and beyond a prediction bound at 1 - alpha/2 is slower/faster; beyond the range but within the bound
//     is ambiguous; within the range (plus floor) is same. With fewer than 3 it stays ambiguous and says so.
//     The bound's spread is the series' own, shrunk toward the metric's noise across the suite (suite_noise():
//     the median relative spread of the metric's series on this machine) with the weight of
//     kPriorRuns runs: three close runs of a metric whose runs wobble by 3% everywhere else do not make a
//     +2.5% run new. The duration (a summary without samples) and GB/s, GFLOP/s are left alone
//     (level_band.hpp, judged_by_level()).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "db/store.hpp"
#include "reports/analysis/compare_report.hpp"
#include "reports/analysis/types.hpp"

namespace gpuperf::analysis {

// The fewest earlier runs a one-value metric is judged against.
constexpr std::size_t kMinHistoryRuns = 3;
// The weight of the suite-wide noise in a one-value row's spread, in degrees of freedom (runs).
constexpr double kPriorRuns = 4;
// The fewest series of a metric whose spreads make a suite-wide noise.
constexpr std::size_t kMinSuiteSeries = 3;

// Relative run-to-run spread (standard deviation / |median| of a window's levels) of each metric, the median
// over the metric's series in `history` with at least kMinHistoryRuns usable levels in the window (as
// history_levels() picks them). Metrics with fewer than kMinSuiteSeries such series are absent.
std::map<std::string, double> suite_noise(const std::vector<db::Series>& history, const Run& base, const Run& candidate,
                                          std::int64_t candidate_run_id, std::size_t max_runs);

// Run medians of `row`'s series in `history` (machine already chosen by the caller), oldest first: usable
// points only (not excluded, status ok, a value), none of the candidate's own run nor later than the base or
// the candidate (by started_at), at most the newest `max_runs`.
std::vector<double> history_levels(const CompareRow& row, const std::vector<db::Series>& history, const Run& base,
                                   const Run& candidate, std::int64_t candidate_run_id, std::size_t max_runs);

// Applies both rules above to `row` (no-op where neither applies or options.history_runs is 0); `noise` is
// suite_noise() of the same history.
void judge_with_history(CompareRow& row, const std::vector<db::Series>& history, const Run& base, const Run& candidate,
                        std::int64_t candidate_run_id, const CompareOptions& options,
                        const std::map<std::string, double>& noise = {});

// True for a row with a single value on a side, of a metric that is not deterministic and is
// judged_by_level(): the rows judge_with_history() judges by level.
bool one_value_row(const CompareRow& row);

}  // namespace gpuperf::analysis
