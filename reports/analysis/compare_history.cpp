#include "reports/analysis/compare_history.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "core/stats.hpp"
#include "core/value_text.hpp"
#include "reports/analysis/detect.hpp"
#include "reports/analysis/distributions.hpp"
#include "reports/analysis/level_band.hpp"

namespace gpuperf::analysis {
namespace {

std::string range_text(const LevelBand& band, const MetricInfo& metric) {
  return "the last " + std::to_string(band.m) + " runs' range (" +
         format_value(band.low, metric.unit, UnitText::terminal) + " to " +
         format_value(band.high, metric.unit, UnitText::terminal) + ")";
}

// A faster/slower noisy row at a level the machine produced before: ambiguous.
void within_history(CompareRow& row, const std::vector<double>& levels) {
  if (row.verdict != Verdict::slower && row.verdict != Verdict::faster) return;
  if (levels.size() < kMinHistoryRuns) return;
  const LevelBand band = level_band(levels);
  const double c = row.candidate->median;
  if (c < band.low || c > band.high) return;
  row.verdict = Verdict::ambiguous;
  row.ambiguous_by_history = true;
  add_note(row, "within " + range_text(band, row.metric));
}

// The levels of one series' window (see history_levels()).
std::vector<double> window_levels(const db::Series& s, const Run& base, const Run& candidate,
                                  std::int64_t candidate_run_id, std::size_t max_runs) {
  const auto newer = [](const std::string& a, const std::string& b) { return !b.empty() && a > b; };
  std::vector<double> levels;
  for (const db::SeriesPoint& p : s.points) {
    if (p.excluded || p.status != Status::ok || p.summary.n == 0 || p.run_id == candidate_run_id ||
        p.run_uuid == candidate.uuid || newer(p.started_at, base.started_at) ||
        newer(p.started_at, candidate.started_at)) {
      continue;
    }
    levels.push_back(p.summary.median);
  }
  if (levels.size() > max_runs) levels.erase(levels.begin(), levels.end() - static_cast<std::ptrdiff_t>(max_runs));
  return levels;
}

// The spread the bound uses: the series' own standard deviation (m - 1 degrees of freedom) pooled with the
// suite's relative spread at the series' level (kPriorRuns degrees of freedom). Returns {sd, d.f.}.
std::pair<double, double> shrunk_spread(const LevelBand& band, const std::string& metric,
                                        const std::map<std::string, double>& noise) {
  const double own_df = static_cast<double>(band.m) - 1;
  const auto it = noise.find(metric);
  if (it == noise.end()) return {band.sd, own_df};
  const double prior = it->second * std::fabs(band.level);
  const double df = own_df + kPriorRuns;
  return {std::sqrt((own_df * band.sd * band.sd + kPriorRuns * prior * prior) / df), df};
}

// A one-value row (ambiguous: no test) judged by its level against the earlier runs.
void one_value_against_levels(CompareRow& row, const std::vector<double>& levels, const CompareOptions& options,
                              const std::map<std::string, double>& noise) {
  if (levels.size() < kMinHistoryRuns) {
    add_note(row, std::to_string(levels.size()) + " earlier run" + (levels.size() == 1 ? "" : "s") +
                      " of the base branch on this machine; " + std::to_string(kMinHistoryRuns) +
                      " judge one value (--history)");
    row.verdict = Verdict::not_enough_data;
    row.runs_needed = kMinHistoryRuns - levels.size();
    return;
  }
  const Thresholds& t = options.thresholds;
  const LevelBand band = level_band(levels);
  const double p = 1 - t.alpha / 2;
  const auto [sd, df] = shrunk_spread(band, row.metric.name, noise);
  const double m = static_cast<double>(band.m);
  const double bound = student_t_quantile(p, df) * sd * std::sqrt(1 + 1 / m);
  const double abs_floor = t.abs_floor_for(row.metric);
  const double margin = t.min_effect_for(row.metric);
  const double c = row.candidate->median;
  row.note.clear();  // "no test" no longer holds: the history is the test
  char buf[200];
  if (outside_band(c, band, margin, abs_floor, 0.0) == 0) {  // rule 1 alone: inside the range and margin
    row.verdict = Verdict::same;
    std::snprintf(buf, sizeof buf, "one value: within %.3g%% of ", margin);
    add_note(row, buf + range_text(band, row.metric));
    return;
  }
  std::snprintf(buf, sizeof buf, "%.0f%% prediction bound %s +- %s", (2 * p - 1) * 100,
                format_value(band.level, row.metric.unit, UnitText::terminal).c_str(),
                format_value(bound, row.metric.unit, UnitText::terminal).c_str());
  const int d = outside_band(c, band, margin, abs_floor, bound);
  if (d == 0) {
    row.verdict = Verdict::ambiguous;
    add_note(row, "one value: beyond " + range_text(band, row.metric) + " but within the " + buf);
    return;
  }
  row.verdict = (d > 0) == row.metric.higher_is_better ? Verdict::faster : Verdict::slower;
  add_note(row, "one value: outside " + range_text(band, row.metric) + " and the " + buf);
}

}  // namespace

bool one_value_row(const CompareRow& row) {
  if (row.metric.deterministic || !row.base || !row.candidate) return false;
  // A pruned run's median is judged against the history's medians whatever the metric: its samples are gone.
  if (row.samples_pruned) return true;
  return (row.base->n == 1 || row.candidate->n == 1) && judged_by_level(row.metric);
}

std::vector<double> history_levels(const CompareRow& row, const std::vector<db::Series>& history, const Run& base,
                                   const Run& candidate, std::int64_t candidate_run_id, std::size_t max_runs) {
  const std::string key = params_key(row.instance.params);
  for (const db::Series& s : history) {
    if (s.key.metric.name == row.metric.name && s.key.instance.name == row.instance.name &&
        params_key(s.key.instance.params) == key) {
      return window_levels(s, base, candidate, candidate_run_id, max_runs);
    }
  }
  return {};
}

std::map<std::string, double> suite_noise(const std::vector<db::Series>& history, const Run& base, const Run& candidate,
                                          std::int64_t candidate_run_id, std::size_t max_runs) {
  std::map<std::string, std::vector<double>> spreads;
  for (const db::Series& s : history) {
    if (s.key.metric.deterministic || !judged_by_level(s.key.metric)) continue;
    const std::vector<double> levels = window_levels(s, base, candidate, candidate_run_id, max_runs);
    if (levels.size() < kMinHistoryRuns) continue;
    const LevelBand band = level_band(levels);
    if (band.level != 0) spreads[s.key.metric.name].push_back(band.sd / std::fabs(band.level));
  }
  std::map<std::string, double> out;
  for (auto& [name, v] : spreads) {
    if (v.size() >= kMinSuiteSeries) out[name] = median(v);  // fewer series are not a suite's noise
  }
  return out;
}

void judge_with_history(CompareRow& row, const std::vector<db::Series>& history, const Run& base, const Run& candidate,
                        std::int64_t candidate_run_id, const CompareOptions& options,
                        const std::map<std::string, double>& noise) {
  if (options.history_runs == 0 || !row.candidate) return;
  const bool one_value = one_value_row(row) && row.verdict == Verdict::ambiguous;
  const bool noisy_change =
      !row.metric.deterministic && (row.verdict == Verdict::slower || row.verdict == Verdict::faster);
  if (!one_value && !noisy_change) return;
  const std::vector<double> levels =
      history_levels(row, history, base, candidate, candidate_run_id, options.history_runs);
  if (one_value) {
    one_value_against_levels(row, levels, options, noise);
    if (row.samples_pruned) row.note = "samples pruned: " + row.note;
  } else {
    within_history(row, levels);
  }
}

}  // namespace gpuperf::analysis
