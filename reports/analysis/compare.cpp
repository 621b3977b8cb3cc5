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
#include "reports/analysis/mann_whitney.hpp"
#include "reports/analysis/not_enough_data.hpp"
#include "reports/analysis/ratio_ci.hpp"
#include "reports/analysis/welch.hpp"

namespace gpuperf::analysis {
namespace {

double pct(double ratio) { return (ratio - 1) * 100; }

double change_pct_of(double base, double candidate) {
  if (base == 0) return candidate == 0 ? 0.0 : INFINITY;
  return pct(candidate / base);
}

// Larger is better or worse, per the metric's direction.
Verdict direction(bool candidate_larger, const MetricInfo& m) {
  return candidate_larger == m.higher_is_better ? Verdict::faster : Verdict::slower;
}

Summary summary_of(const Measurement& m) {
  if (m.summary.n > 0 || m.samples.empty()) return m.summary;
  return summarize(m.samples);
}

// True when the median of either side lies within the 10-90% quantile range of the other.
bool overlapping(std::vector<double> base, std::vector<double> cand) {
  std::sort(base.begin(), base.end());
  std::sort(cand.begin(), cand.end());
  const double mb = quantile_sorted(base, 0.5), mc = quantile_sorted(cand, 0.5);
  const auto inside = [](double v, const std::vector<double>& sorted) {
    return v >= quantile_sorted(sorted, 0.1) && v <= quantile_sorted(sorted, 0.9);
  };
  return inside(mc, base) || inside(mb, cand);
}

// The statistical verdict of noisy samples; fills p, the interval and change_pct of `row`.
Verdict noisy_verdict(const std::vector<double>& base, const std::vector<double>& cand, const MetricInfo& metric,
                      double min_effect, double alpha, CompareRow& row, std::string* why) {
  const MannWhitney mw = mann_whitney_u(base, cand);
  const RatioInterval ci = ratio_interval(base, cand, 1 - alpha);
  row.p_value = mw.p_value;
  row.ci_low_pct = pct(ci.low);
  row.ci_high_pct = pct(ci.high);
  const bool significant = mw.p_value < alpha;
  const bool above = row.ci_low_pct > min_effect, below = row.ci_high_pct < -min_effect;
  const bool inside = row.ci_low_pct >= -min_effect && row.ci_high_pct <= min_effect;
  char buf[200];
  if (significant && (above || below)) {
    // The samples within one run are not independent: GPUs switch between clock, memory and cache regimes
    // for stretches of samples, so one kernel can show two modes a few percent apart, and which one
    // dominates differs from run to run (transpose/padded on an H200: 34.1 and 35.4 us). A change must
    // move the typical value out of what the other run itself produced: neither median may lie inside
    // the other side's 10-90% range.
    if (!overlapping(base, cand)) return direction(above, metric);
    std::snprintf(buf, sizeof buf,
                  "significant, but each median lies inside the other run's 10-90%% range "
                  "(two modes, or noisy samples)");
    if (why != nullptr) *why = buf;
    return Verdict::ambiguous;
  }
  if (inside) return Verdict::same;
  if (std::fabs(row.change_pct) < min_effect) return Verdict::same;
  std::snprintf(buf, sizeof buf, "%s; %.0f%% CI [%+.1f%%, %+.1f%%] reaches inside the %.3g%% floor",
                significant ? "significant" : "not significant", (1 - alpha) * 100, row.ci_low_pct, row.ci_high_pct,
                min_effect);
  if (why != nullptr) *why = buf;
  return Verdict::ambiguous;
}

// Samples times their SM clock (ns x MHz = 1e-3 cycles: only ratios matter here).
std::vector<double> cycles(const Measurement& m, double median_clock) {
  std::vector<double> out(m.samples.size());
  const bool per_sample = m.sm_clock_mhz.size() == m.samples.size();
  for (std::size_t i = 0; i < m.samples.size(); ++i) {
    const double clock = per_sample && m.sm_clock_mhz[i] > 0 ? m.sm_clock_mhz[i] : median_clock;
    out[i] = m.samples[i] * clock;
  }
  return out;
}

double median_clock(const Measurement& m) {
  std::vector<double> c;
  for (double v : m.sm_clock_mhz) {
    if (v > 0) c.push_back(v);
  }
  return c.empty() ? 0.0 : median(c);
}

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

void add_note(CompareRow& row, const std::string& text) {
  if (text.empty()) return;
  if (!row.note.empty()) row.note += "; ";
  row.note += text;
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

RunSide run_side(const Run& run, std::int64_t run_id) {
  RunSide s;
  s.run_id = run_id;
  s.uuid = run.uuid;
  s.commit = run.commit;
  s.branch = run.branch;
  s.label = run.label;
  s.started_at = run.started_at;
  s.fingerprint = run.machine.fingerprint();
  s.gpu_name = run.machine.gpu_name;
  s.machine_name = machine_name(run.machine);
  s.rank = run.rank;
  s.local_rank = run.local_rank;
  s.world_size = run.world_size;
  return s;
}

bool is_regression(const CompareRow& row) {
  if (row.verdict == Verdict::slower) return row.gated;
  return row.verdict == Verdict::failed && row.candidate_status != Status::ok && row.base &&
         row.base_status == Status::ok;
}

bool is_ungated_slowdown(const CompareRow& row) { return row.verdict == Verdict::slower && !row.gated; }

std::vector<std::string> CompareReport::missing_instances() const {
  std::vector<std::string> names;
  std::set<std::string> present;  // instances with a candidate row (or seen already)
  for (const auto& r : rows) {
    if (r.verdict != Verdict::missing) present.insert(r.instance.display_name());
  }
  for (const auto& r : rows) {
    if (r.verdict == Verdict::missing && present.insert(r.instance.display_name()).second) {
      names.push_back(r.instance.display_name());
    }
  }
  return names;
}

bool CompareReport::missing_fails() const { return !allow_missing && !program && !missing_instances().empty(); }

bool CompareReport::regression() const {
  if (missing_fails()) return true;
  if (program && program->regression()) return true;
  return std::any_of(rows.begin(), rows.end(), [](const CompareRow& r) { return is_regression(r); });
}

void judge_program_runs(CompareReport& report, const std::vector<double>& base_runs,
                        const std::vector<double>& candidate_runs, const CompareOptions& options) {
  if (!report.program) return;
  const auto floor = options.thresholds.min_effect_pct.find(kProgramTimeMetric);
  const double min_effect = floor != options.thresholds.min_effect_pct.end() ? floor->second : kProgramTimeFloorPct;
  const bool gated = options.gate.all || options.gate.extra.count(kProgramTimeMetric) > 0;
  judge_program(*report.program, base_runs, candidate_runs, min_effect, gated, report.base.branch, report.base.commit);
}

CompareRow compare_measurement(const Measurement* base, Status base_status, const Measurement* candidate,
                               Status candidate_status, const CompareOptions& options) {
  CompareRow row;
  row.metric = candidate != nullptr ? candidate->metric : base->metric;
  // A metric's own status counts only where the instance itself was fine.
  if (base != nullptr && base_status == Status::ok) base_status = base->status;
  if (candidate != nullptr && candidate_status == Status::ok) candidate_status = candidate->status;
  row.base_status = base_status;
  row.candidate_status = candidate_status;
  row.gated = options.gate.gates(row.metric);
  if (base != nullptr) row.base = summary_of(*base);
  if (candidate != nullptr) row.candidate = summary_of(*candidate);
  const double min_effect = options.thresholds.min_effect_for(row.metric);
  row.min_effect_pct = min_effect;

  const bool base_bad = base != nullptr && base_status != Status::ok;
  const bool cand_bad = candidate != nullptr && candidate_status != Status::ok;
  if (base_bad || cand_bad) {
    row.verdict = Verdict::failed;
    row.gated = true;  // a failed or incorrect kernel always fails the job
    if (cand_bad && base_bad && candidate_status == base_status && candidate->message == base->message) {
      add_note(row, std::string("both ") + to_string(candidate_status) +
                        (candidate->message.empty() ? "" : ": " + candidate->message));
      return row;
    }
    if (cand_bad) {
      add_note(row, std::string("candidate ") + to_string(candidate_status) +
                        (candidate->message.empty() ? "" : ": " + candidate->message));
    }
    if (base_bad) {
      add_note(row,
               std::string("base ") + to_string(base_status) + (base->message.empty() ? "" : ": " + base->message));
    }
    return row;
  }
  if (base == nullptr) {
    row.verdict = Verdict::new_;
    return row;
  }
  if (candidate == nullptr) {
    row.verdict = Verdict::missing;
    return row;
  }
  if (row.base->n == 0 || row.candidate->n == 0) {
    row.verdict = Verdict::ambiguous;
    add_note(row, "no value on one side");
    return row;
  }

  const double b = row.base->median, c = row.candidate->median;
  row.change_pct = change_pct_of(b, c);
  if (options.thresholds.below_absolute_floor(row.metric, b, c)) {
    row.verdict = Verdict::same;
    return row;
  }
  if (row.metric.deterministic) {
    // Any difference beyond rounding is real: the same code on the same GPU gives the same counter.
    const double scale = std::max(std::fabs(b), std::fabs(c));
    row.verdict = std::fabs(c - b) > min_effect / 100 * scale ? direction(c > b, row.metric) : Verdict::same;
    return row;
  }
  if (base->samples.size() < 2 || candidate->samples.size() < 2) {
    // One value per side: no test is possible, only the size of the difference. A run whose raw samples were
    // pruned (`gpuperf db prune`) keeps its summary of n > 1 samples but no samples to rank: its median is
    // all there is, judged the same way (and against the history, compare_history.hpp).
    row.samples_pruned =
        (base->samples.empty() && base->summary.n > 1) || (candidate->samples.empty() && candidate->summary.n > 1);
    if (std::fabs(row.change_pct) < min_effect) {
      row.verdict = Verdict::same;
      if (row.samples_pruned) add_note(row, "samples pruned: medians only");
    } else {
      row.verdict = Verdict::ambiguous;
      add_note(row, row.samples_pruned
                        ? "samples pruned: medians only, no test"
                        : "one value per side: no test");  // compare_runs() judges it against the history
    }
    return row;
  }

  row.welch_p_value = welch_t_test(base->samples, candidate->samples).p_value;
  std::string why;
  row.verdict =
      noisy_verdict(base->samples, candidate->samples, row.metric, min_effect, options.thresholds.alpha, row, &why);
  add_note(row, why);

  // Clocks: a duration change on two different SM clocks must hold in cycles too, or the clock explains it.
  row.base_clock_mhz = median_clock(*base);
  row.candidate_clock_mhz = median_clock(*candidate);
  if (row.metric.name == "duration" && row.base_clock_mhz > 0 && row.candidate_clock_mhz > 0 &&
      std::fabs(pct(row.candidate_clock_mhz / row.base_clock_mhz)) > options.clock_tolerance_pct) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "clock %.0f -> %.0f MHz", row.base_clock_mhz, row.candidate_clock_mhz);
    add_note(row, buf);
    if (row.verdict == Verdict::faster || row.verdict == Verdict::slower) {
      CompareRow in_cycles = row;
      const std::vector<double> cb = cycles(*base, row.base_clock_mhz);
      const std::vector<double> cc = cycles(*candidate, row.candidate_clock_mhz);
      in_cycles.change_pct = change_pct_of(median(cb), median(cc));
      const Verdict v = noisy_verdict(cb, cc, row.metric, min_effect, options.thresholds.alpha, in_cycles, nullptr);
      std::snprintf(buf, sizeof buf, "in cycles %+.1f%%", in_cycles.change_pct);
      if (v == row.verdict) {
        add_note(row, std::string(buf) + ": confirmed");
      } else {
        row.verdict = Verdict::ambiguous;
        row.confirmed_in_cycles = false;
        add_note(row, std::string(buf) + ": not confirmed, the clock may explain it");
      }
    }
  }
  return row;
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
