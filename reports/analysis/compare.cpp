#include "reports/analysis/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/bound.hpp"
#include "core/metrics.hpp"
#include "reports/analysis/compare_history.hpp"
#include "reports/analysis/detect.hpp"
#include "reports/analysis/identity_findings.hpp"
#include "reports/analysis/line_findings.hpp"
#include "reports/analysis/measurement_verdict.hpp"
#include "reports/analysis/not_enough_data.hpp"

namespace gpuperf::analysis {
namespace {

// The measurement `name` of one side's result. A failed instance may lack it, or carry the reason only on
// the result: then a stand-in carries the result's message, so the row still says why.
const Measurement* side(const Result* r, const std::string& name, Measurement& stub) {
  if (r == nullptr) return nullptr;
  const Measurement* m = r->find(name);
  if (r->status == Status::ok) return m;
  if (m != nullptr)
    stub = *m;
  else
    stub.metric = metric_info_for(name);
  if (!r->message.empty()) stub.message = r->message;
  return &stub;
}

// GB/s and GFLOP/s are single values computed from the median duration: no test of their own is possible,
// but the duration's test is theirs (ratio inverted). Without this they would read "ambiguous" next to
// a clear duration verdict.
void follow_duration(std::vector<CompareRow>& rows, std::size_t first, std::size_t end) {
  const CompareRow* d = nullptr;
  for (std::size_t i = first; i < end; ++i) {
    if (rows[i].metric.name == "duration") d = &rows[i];
  }
  if (d == nullptr || (d->verdict != Verdict::same && d->verdict != Verdict::slower && d->verdict != Verdict::faster)) {
    return;
  }
  for (std::size_t i = first; i < end; ++i) {
    CompareRow& r = rows[i];
    const MetricTraits* t = find_metric(r.metric.name);
    if (t == nullptr || t->source != MetricSource::derived || !r.base || !r.candidate || r.base->n != 1 ||
        r.candidate->n != 1 || (r.verdict != Verdict::ambiguous && r.verdict != Verdict::same)) {
      continue;
    }
    r.verdict = d->verdict == Verdict::same ? Verdict::same : direction(r.candidate->median > r.base->median, r.metric);
    r.p_value = d->p_value;
    r.ci_low_pct = pct(1 / (1 + d->ci_high_pct / 100));
    r.ci_high_pct = pct(1 / (1 + d->ci_low_pct / 100));
    r.confirmed_in_cycles = d->confirmed_in_cycles;
    r.note = "from the duration's test";
  }
}

}  // namespace

SpeedOfLight speed_of_light(const Result* r) {
  SpeedOfLight sol;
  if (r == nullptr) return sol;
  const auto value = [&](const char* name) -> std::optional<double> {
    const Measurement* m = r->find(name);
    if (m == nullptr || m->status != Status::ok || m->summary.n == 0) return std::nullopt;
    return m->summary.median;
  };
  return speed_of_light_from(value);
}

void judge_program_runs(CompareReport& report, const std::vector<double>& base_runs,
                        const std::vector<double>& candidate_runs, const CompareOptions& options) {
  if (!report.program) return;
  const auto floor = options.thresholds.min_effect_pct.find(kProgramTimeMetric);
  const double min_effect = floor != options.thresholds.min_effect_pct.end() ? floor->second : kProgramTimeFloorPct;
  const bool gated = options.gate.all || options.gate.extra.count(kProgramTimeMetric) > 0;
  judge_program(*report.program, base_runs, candidate_runs, min_effect, gated, report.base.branch, report.base.commit);
}

namespace {

// A one-value row the history could not judge (too few earlier runs, or no history asked for) is "not enough
// data", with the command whose runs would settle it: that many runs of the instance on the base's commit and
// branch, then the comparison again.
void say_not_enough_data(CompareRow& row, const Run& base, bool judged_by_history) {
  if (row.verdict == Verdict::ambiguous && !judged_by_history && one_value_row(row)) {
    row.verdict = Verdict::not_enough_data;
    row.runs_needed = kMinHistoryRuns;
  }
  if (row.verdict != Verdict::not_enough_data) return;
  const std::size_t n = std::max<std::size_t>(row.runs_needed, 1);
  // A recorded program's kernel is measured again by recording the program again, not by `gpuperf run`.
  const std::string repeat = base.command.empty() ? repeat_command(row.instance, base.branch, n)
                                                  : repeat_record_command(base.command, base.branch, n);
  row.next_step = "on the base's commit" + (base.commit.empty() ? std::string() : " " + base.commit.substr(0, 10)) +
                  ": " + repeat + ", then compare again" + (judged_by_history ? "" : " with --history");
}

}  // namespace

CompareReport compare_runs(const Run& base, const Run& candidate, const CompareOptions& options,
                           std::int64_t base_run_id, std::int64_t candidate_run_id,
                           const std::vector<db::Series>* history) {
  CompareReport report;
  report.base = run_side(base, base_run_id);
  report.candidate = run_side(candidate, candidate_run_id);
  report.gate = options.gate;
  report.kinds = kind_split_change(base, candidate);
  report.program = program_change(base, candidate, options.families);
  judge_program_runs(report, {}, {}, options);

  // (benchmark name, params key) -> result, on each side.
  using Key = std::pair<std::string, std::string>;
  std::map<Key, const Result*> b_results, c_results;
  for (const Result& r : base.results) b_results[{r.instance.name, params_key(r.instance.params)}] = &r;
  for (const Result& r : candidate.results) c_results[{r.instance.name, params_key(r.instance.params)}] = &r;
  std::map<Key, int> keys;
  for (const auto& [k, r] : b_results) keys[k] = 0;
  for (const auto& [k, r] : c_results) keys[k] = 0;

  const auto metric_rank = [](const std::string& name) {
    const auto& table = known_metrics();
    for (std::size_t i = 0; i < table.size(); ++i) {
      if (table[i].info.name == name) return std::make_pair(i, std::string());
    }
    return std::make_pair(table.size(), name);
  };

  std::vector<std::pair<std::size_t, std::size_t>> ranges;    // each instance's rows: [first, end)
  std::vector<std::pair<BoundVerdict, BoundVerdict>> bounds;  // each instance's bound: base, candidate
  for (const auto& [key, unused] : keys) {
    const auto bi = b_results.find(key);
    const auto ci = c_results.find(key);
    const Result* br = bi == b_results.end() ? nullptr : bi->second;
    const Result* cr = ci == c_results.end() ? nullptr : ci->second;
    // Metrics of either side, in the traits table's order.
    std::map<std::pair<std::size_t, std::string>, std::string> metrics;
    for (const Result* r : {br, cr}) {
      if (r == nullptr) continue;
      for (const Measurement& m : r->metrics) metrics[metric_rank(m.metric.name)] = m.metric.name;
    }
    const Result& any = cr != nullptr ? *cr : *br;
    std::size_t first_row = report.rows.size();
    if (metrics.empty()) {
      // No metric on either side: the instance failed before measuring anything (one "failed" row), or
      // there is nothing to compare.
      const bool b_bad = br != nullptr && br->status != Status::ok, c_bad = cr != nullptr && cr->status != Status::ok;
      if (b_bad || c_bad) metrics[metric_rank("duration")] = "duration";
    }
    for (const auto& [rank, name] : metrics) {
      Measurement b_stub, c_stub;
      const Measurement* bm = side(br, name, b_stub);
      const Measurement* cm = side(cr, name, c_stub);
      if (bm == nullptr && cm == nullptr) continue;
      CompareRow row = compare_measurement(bm, br != nullptr ? br->status : Status::ok, cm,
                                           cr != nullptr ? cr->status : Status::ok, options);
      row.machine = cm != nullptr ? report.candidate.fingerprint : report.base.fingerprint;
      row.instance = any.instance;
      report.rows.push_back(std::move(row));
    }
    if (report.rows.size() > first_row) {
      ranges.emplace_back(first_row, report.rows.size());
      bounds.emplace_back(classify_bound(speed_of_light(br)), classify_bound(speed_of_light(cr)));
    }
  }
  if (history != nullptr) {
    const auto noise = suite_noise(*history, base, candidate, candidate_run_id, options.history_runs);
    for (CompareRow& row : report.rows) {
      judge_with_history(row, *history, base, candidate, candidate_run_id, options, noise);
    }
  }
  for (CompareRow& row : report.rows) say_not_enough_data(row, base, history != nullptr && options.history_runs > 0);
  for (std::size_t r = 0; r < ranges.size(); ++r) {
    const auto [first_row, end_row] = ranges[r];
    follow_duration(report.rows, first_row, end_row);
    // Root-cause hints: a duration that moved, and what else moved with it.
    for (std::size_t i = first_row; i < end_row; ++i) {
      CompareRow& d = report.rows[i];
      if (d.metric.name != "duration" ||
          (d.verdict != Verdict::slower && d.verdict != Verdict::faster && d.verdict != Verdict::ambiguous)) {
        continue;
      }
      // Rows are in the traits table's order; order_hints() puts first what explains the kernel's bound.
      std::vector<std::pair<std::string, std::string>> moved;
      for (std::size_t j = first_row; j < end_row; ++j) {
        const CompareRow& o = report.rows[j];
        if (j == i || (o.verdict != Verdict::slower && o.verdict != Verdict::faster) || !o.base || !o.candidate) {
          continue;
        }
        moved.emplace_back(o.metric.name, change_hint(o.metric, o.base->median, o.candidate->median));
      }
      const bool any_moved = !moved.empty();
      std::string with;
      for (const std::string& h : order_hints(std::move(moved), bounds[r].first, bounds[r].second)) {
        with += (with.empty() ? "" : ", ") + h;
      }
      if (!with.empty()) add_note(d, any_moved ? "with " + with : with);  // the bound alone when nothing moved
    }
  }
  attach_line_changes(report, base, candidate);  // the source lines that moved, for every writer
  attach_identities(report, base, candidate);    // same code or not, and what else changed
  return report;
}

}  // namespace gpuperf::analysis
