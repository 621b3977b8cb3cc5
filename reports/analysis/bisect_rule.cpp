#include "reports/analysis/bisect_rule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/metrics.hpp"

namespace gpuperf::analysis {
namespace {

bool changed(Verdict v) { return v == Verdict::slower || v == Verdict::faster; }

bool same_instance(const BenchmarkInstance& a, const BenchmarkInstance& b) {
  return a.name == b.name && params_key(a.params) == params_key(b.params);
}

// The row of `metric` for `instance` in a comparison of two runs; nullptr when neither run has it.
const CompareRow* find_row(const CompareReport& report, const BenchmarkInstance& instance, const std::string& metric) {
  for (const CompareRow& r : report.rows) {
    if (r.metric.name == metric && same_instance(r.instance, instance)) return &r;
  }
  return nullptr;
}

std::string describe(const char* side, const CompareRow* row) {
  if (row == nullptr) return std::string("no row against ") + side;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s %s (%+.1f%%)", to_string(row->verdict), side, row->change_pct);
  std::string out = buf;
  if (!row->note.empty() && !changed(row->verdict) && row->verdict != Verdict::same) out += ": " + row->note;
  return out;
}

// |log(a / b)|: how far apart two levels are as a ratio, either direction alike.
double log_distance(double a, double b) {
  if (a <= 0 || b <= 0) return std::fabs(a - b);
  return std::fabs(std::log(a / b));
}

CommitDecision decide_instance(const TrackedChange& t, const CompareRow* vs_good, const CompareRow* vs_bad) {
  CommitDecision d;
  d.why = t.instance.display_name() + ": " + describe("vs good", vs_good) + "; " + describe("vs bad", vs_bad);
  if (vs_good == nullptr || vs_bad == nullptr || vs_good->verdict == Verdict::failed ||
      vs_bad->verdict == Verdict::failed || vs_good->verdict == Verdict::missing || vs_good->verdict == Verdict::new_) {
    d.verdict = BisectVerdict::skip;
    return d;
  }
  const Verdict g = vs_good->verdict, b = vs_bad->verdict;
  if (g == Verdict::same && changed(b)) {
    d.verdict = BisectVerdict::good;
  } else if (b == Verdict::same && changed(g)) {
    d.verdict = BisectVerdict::bad;
  } else if (changed(g) && changed(b) && vs_good->candidate && vs_good->base && vs_bad->base) {
    const double c = vs_good->candidate->median;
    const double to_good = log_distance(c, vs_good->base->median), to_bad = log_distance(c, vs_bad->base->median);
    if (to_good < to_bad) {
      d.verdict = BisectVerdict::good;
      d.why += " (nearer good)";
    } else if (to_bad < to_good) {
      d.verdict = BisectVerdict::bad;
      d.why += " (nearer bad)";
    }
  }
  return d;
}

}  // namespace

const char* to_string(BisectVerdict v) {
  switch (v) {
    case BisectVerdict::good: return "good";
    case BisectVerdict::bad: return "bad";
    case BisectVerdict::ambiguous: return "ambiguous";
    case BisectVerdict::skip: return "skip";
  }
  return "?";
}

std::vector<CompareRow> end_rows(const Run& good, const Run& bad, const std::string& metric,
                                 const CompareOptions& options) {
  std::vector<CompareRow> out;
  for (CompareRow& r : compare_runs(good, bad, options).rows) {
    if (r.metric.name == metric) out.push_back(std::move(r));
  }
  return out;
}

std::vector<TrackedChange> reproduced_changes(const Run& good, const Run& bad, const std::string& metric,
                                              const CompareOptions& options) {
  std::vector<TrackedChange> out;
  for (CompareRow& r : end_rows(good, bad, metric, options)) {
    if (changed(r.verdict)) out.push_back(TrackedChange{r.instance, std::move(r)});
  }
  return out;
}

CommitDecision decide_commit(const Run& good, const Run& bad, const Run& candidate,
                             const std::vector<TrackedChange>& tracked, const CompareOptions& options) {
  const CompareReport vs_good = compare_runs(good, candidate, options);
  const CompareReport vs_bad = compare_runs(bad, candidate, options);
  CommitDecision all;
  all.verdict = tracked.empty() ? BisectVerdict::skip : BisectVerdict::good;
  bool any_bad = false, any_ambiguous = false, any_skip = tracked.empty();
  for (const TrackedChange& t : tracked) {
    const CommitDecision d = decide_instance(t, find_row(vs_good, t.instance, t.ends.metric.name),
                                             find_row(vs_bad, t.instance, t.ends.metric.name));
    if (!all.why.empty()) all.why += "; ";
    all.why += d.why;
    any_skip |= d.verdict == BisectVerdict::skip;
    any_bad |= d.verdict == BisectVerdict::bad;
    any_ambiguous |= d.verdict == BisectVerdict::ambiguous;
  }
  if (any_skip) {
    all.verdict = BisectVerdict::skip;
  } else if (any_bad) {
    all.verdict = BisectVerdict::bad;
  } else if (any_ambiguous) {
    all.verdict = BisectVerdict::ambiguous;
  }
  return all;
}

std::vector<CompareRow> moved_with(const Run& before, const Run& at, const std::vector<TrackedChange>& tracked,
                                   const CompareOptions& options) {
  std::vector<CompareRow> out;
  for (CompareRow& r : compare_runs(before, at, options).rows) {
    if (!changed(r.verdict)) continue;
    bool tracked_instance = false, bisected = false;
    for (const TrackedChange& t : tracked) {
      if (!same_instance(t.instance, r.instance)) continue;
      tracked_instance = true;
      bisected |= t.ends.metric.name == r.metric.name;
    }
    const MetricTraits* traits = find_metric(r.metric.name);
    if (!tracked_instance || bisected || (traits != nullptr && traits->source == MetricSource::derived)) continue;
    out.push_back(std::move(r));
  }
  // Per instance, what explains a change of its bound at the culprit first (core/bound.hpp).
  // Compare's rows come instance by instance: keep that, reorder within each instance.
  std::vector<std::pair<std::pair<std::size_t, std::size_t>, std::size_t>> keys;  // ((instance, rank), row)
  std::size_t instance = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i > 0 && !same_instance(out[i].instance, out[i - 1].instance)) ++instance;
    const std::optional<Bound> bound = bound_at(before, at, out[i].instance).second.bound;
    keys.push_back({{instance, hint_rank(out[i].metric.name, bound)}, i});
  }
  std::stable_sort(keys.begin(), keys.end());
  std::vector<CompareRow> ordered;
  for (const auto& k : keys) ordered.push_back(std::move(out[k.second]));
  return ordered;
}

std::pair<BoundVerdict, BoundVerdict> bound_at(const Run& before, const Run& at, const BenchmarkInstance& instance) {
  const auto find = [&](const Run& run) -> const Result* {
    for (const Result& r : run.results) {
      if (same_instance(r.instance, instance)) return &r;
    }
    return nullptr;
  };
  return {classify_bound(speed_of_light(find(before))), classify_bound(speed_of_light(find(at)))};
}

std::vector<std::string> bound_changes(const Run& before, const Run& at, const std::vector<TrackedChange>& tracked) {
  std::vector<std::string> out;
  for (const TrackedChange& t : tracked) {
    const auto [b, a] = bound_at(before, at, t.instance);
    const std::string text = bound_change_text(b, a);
    if (!text.empty()) out.push_back(t.instance.display_name() + ": " + text);
  }
  return out;
}

}  // namespace gpuperf::analysis
