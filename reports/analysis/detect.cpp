#include "reports/analysis/detect.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/bound.hpp"
#include "core/metrics.hpp"
#include "core/result.hpp"
#include "core/value_text.hpp"
#include "reports/analysis/change_points.hpp"
#include "reports/analysis/level_band.hpp"

namespace gpuperf::analysis {
namespace {

bool usable(const db::SeriesPoint& p) { return !p.excluded && p.status == Status::ok && p.summary.n > 0; }

bool is_time_metric(const MetricInfo& m) { return m.name == "duration"; }

// A counter marked deterministic that moves at more than a quarter of its runs is not: treat it as noisy.
bool behaves_deterministic(const std::vector<Split>& level_changes, std::size_t n) {
  return level_changes.size() <= std::max<std::size_t>(2, n / 4);
}

std::string instance_key(const db::Series& s) {
  return s.key.fingerprint + '\n' + s.key.instance.name + '\n' + params_key(s.key.instance.params);
}

// Position of `metric` in the traits table (unknown metrics after, by name), for ordering hints.
std::size_t metric_rank(const std::string& name) {
  const auto& table = known_metrics();
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].info.name == name) return i;
  }
  return table.size();
}

// The duration change that a counter's change `c` may explain: one of the same machine and instance at the
// same run or a neighbouring one (a noisy level is placed to within a run), as "duration 100 us -> 176 us".
std::vector<std::string> explained_duration(const ChangePoint& c, const std::vector<ChangePoint>& all) {
  for (const ChangePoint& d : all) {
    if (!is_time_metric(d.metric) || d.machine != c.machine || d.instance.name != c.instance.name ||
        params_key(d.instance.params) != params_key(c.instance.params)) {
      continue;
    }
    if (d.run_id == c.run_id || d.previous_run_id == c.run_id || c.previous_run_id == d.run_id) {
      return {d.metric.name + ' ' + format_value(d.before, d.metric.unit, UnitText::terminal) + " -> " +
              format_value(d.after, d.metric.unit, UnitText::terminal)};
    }
  }
  return {};
}

// The kernel's speed of light at run `run_id` from its series (the instance's series of one machine).
SpeedOfLight speed_of_light_at(const std::vector<const db::Series*>& instance_series, std::int64_t run_id) {
  const auto value = [&](const char* metric) -> std::optional<double> {
    std::optional<double> out;
    for (const db::Series* s : instance_series) {
      if (s->key.metric.name != metric) continue;
      for (const db::SeriesPoint& p : s->points) {
        if (p.run_id == run_id && usable(p)) out = p.summary.median;
      }
    }
    return out;
  };
  return speed_of_light_from(value);
}

}  // namespace

std::string change_hint(const MetricInfo& m, double before, double after) {
  std::string text = m.name + ' ' + format_value(before, m.unit, UnitText::terminal) + " -> " +
                     format_value(after, m.unit, UnitText::terminal);
  if (is_work_metric(m.name) && before != 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " (%+.0f%%)", (after / before - 1) * 100);
    text += buf;
  }
  return text;
}

std::vector<std::string> order_hints(std::vector<std::pair<std::string, std::string>> moved, const BoundVerdict& before,
                                     const BoundVerdict& after) {
  const std::optional<Bound> bound = after.bound ? after.bound : before.bound;
  std::stable_sort(moved.begin(), moved.end(),
                   [&](const auto& a, const auto& b) { return hint_rank(a.first, bound) < hint_rank(b.first, bound); });
  std::vector<std::string> out;
  const std::string bound_hint = bound_change_text(before, after);
  bool placed = bound_hint.empty();
  for (auto& [name, text] : moved) {
    if (!placed && !explains(name, *bound)) {
      out.push_back(bound_hint);
      placed = true;
    }
    out.push_back(std::move(text));
  }
  if (!placed) out.push_back(bound_hint);
  return out;
}

std::vector<ChangePoint> detect_changes(const std::vector<db::Series>& series, const DetectOptions& options) {
  std::vector<ChangePoint> all;
  for (std::size_t si = 0; si < series.size(); ++si) {
    const db::Series& s = series[si];
    std::vector<std::size_t> at;  // positions in s.points of the usable points
    std::vector<double> values;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      if (!usable(s.points[i])) continue;
      at.push_back(i);
      values.push_back(s.points[i].summary.median);
    }
    const MetricInfo& metric = s.key.metric;
    std::vector<Split> splits;
    bool deterministic = false;
    if (metric.deterministic) {
      splits = find_level_changes(values, options.thresholds.min_effect_for(metric));
      deterministic = behaves_deterministic(splits, values.size());
    }
    std::optional<TailChange> tail;
    if (!deterministic) {
      SegmentationOptions seg;
      seg.alpha = options.thresholds.alpha;
      seg.min_segment = options.min_segment;
      seg.permutations = options.permutations;
      MetricInfo noisy = metric;
      noisy.deterministic = false;  // a jittery "deterministic" counter gets the noisy floor
      seg.min_effect_pct = options.thresholds.min_effect_for(noisy);
      // A stable seed per series (FNV-1a), so the same history gives the same answer on every machine.
      seg.seed = fnv1a64(instance_key(s) + '\n' + metric.name);
      splits = find_change_points(values, seg);
      if (options.unconfirmed) {
        std::vector<TailRun> runs;
        const bool judged_once = judged_by_level(metric);
        for (std::size_t i : at) {
          const db::SeriesPoint& p = s.points[i];
          runs.push_back({p.summary.median, &p.samples, &p.sm_clock_mhz, judged_once && p.summary.n == 1});
        }
        TailOptions to = options.tail;
        to.range_margin_pct = seg.min_effect_pct;  // within detect's floor of a level seen: not a new one
        // Every tail length: a step the segmentation has not confirmed yet, however many runs old, is still
        // tested (a smaller --min-segment must never hide what a larger one finds).
        tail = find_tail_change(runs, splits.empty() ? 0 : splits.back().index, noisy, runs.size(), to);
      }
    }
    if (tail) {
      Split sp;
      sp.index = tail->index;
      sp.p_value = tail->p_value;
      sp.before = tail->before;
      sp.after = tail->after;
      splits.push_back(sp);
    }
    for (const Split& sp : splits) {
      const db::SeriesPoint& first = s.points[at[sp.index]];
      const db::SeriesPoint& last_old = s.points[at[sp.index - 1]];
      ChangePoint c;
      c.machine = s.key.fingerprint;  // machine_name is filled by the command, from the store's machines
      c.run_id = first.run_id;
      c.run_uuid = first.run_uuid;
      c.commit = first.commit;
      c.previous_commit = last_old.commit;
      c.started_at = first.started_at;
      c.previous_run_id = last_old.run_id;
      c.instance = s.key.instance;
      c.metric = metric;
      c.index = at[sp.index];
      c.series_index = si;
      c.before = sp.before;
      c.after = sp.after;
      c.change_pct = sp.before != 0 ? (sp.after / sp.before - 1) * 100 : (sp.after == 0 ? 0.0 : INFINITY);
      const bool went_up = sp.after > sp.before;
      c.kind = (went_up == metric.higher_is_better) ? ChangeKind::improvement : ChangeKind::regression;
      c.confidence = 1 - sp.p_value;
      c.runs_after = values.size() - sp.index;
      c.unconfirmed = tail && sp.index == tail->index;
      c.gated = options.gate.gates(metric);
      all.push_back(std::move(c));
    }
  }
  if (options.hints) {
    for (ChangePoint& c : all) {
      c.hints = is_time_metric(c.metric) ? root_cause_hints(c, series, all, options) : explained_duration(c, all);
    }
  }
  if (options.recent) {
    const std::size_t recent = *options.recent;
    std::vector<ChangePoint> kept;
    for (ChangePoint& c : all) {
      if (c.runs_after <= recent) kept.push_back(std::move(c));
    }
    all.swap(kept);
  }
  return all;
}

std::vector<std::string> root_cause_hints(const ChangePoint& change, const std::vector<db::Series>& series,
                                          const std::vector<ChangePoint>& changes, const DetectOptions& options) {
  const std::string key = change.machine + '\n' + change.instance.name + '\n' + params_key(change.instance.params);
  std::vector<const db::Series*> mine;  // the instance's series on the change's machine
  for (const db::Series& s : series) {
    if (instance_key(s) == key) mine.push_back(&s);
  }
  std::vector<std::pair<std::string, std::string>> hints;  // (metric, text)
  for (std::size_t si = 0; si < series.size(); ++si) {
    const db::Series& s = series[si];
    if (s.key.metric.name == change.metric.name || instance_key(s) != key) continue;
    // The point of this metric in the change's run, and the last usable one before it.
    std::size_t now = s.points.size();
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      if (s.points[i].run_id == change.run_id && usable(s.points[i])) now = i;
    }
    if (now == s.points.size()) continue;
    std::size_t before = now;
    for (std::size_t i = now; i-- > 0;) {
      if (usable(s.points[i])) {
        before = i;
        break;
      }
    }
    const MetricInfo& m = s.key.metric;
    std::string text;
    if (m.deterministic && before != now) {
      const double a = s.points[before].summary.median, b = s.points[now].summary.median;
      const double scale = std::max(std::fabs(a), std::fabs(b));
      if (std::fabs(b - a) > options.thresholds.min_effect_for(m) / 100 * scale) text = change_hint(m, a, b);
    } else if (!m.deterministic) {
      // A change point of its own within one usable run of the duration change.
      for (const ChangePoint& other : changes) {
        if (other.series_index != si) continue;
        std::size_t lo = std::min(other.index, now), hi = std::max(other.index, now);
        std::size_t between = 0;
        for (std::size_t i = lo; i < hi; ++i) between += usable(s.points[i]) ? 1 : 0;
        if (between <= 1) {
          text = m.name + ' ' + format_value(other.before, m.unit, UnitText::terminal) + " -> " +
                 format_value(other.after, m.unit, UnitText::terminal);
          break;
        }
      }
    }
    if (!text.empty()) hints.emplace_back(m.name, text);
  }
  // Without speed of light (older runs) the traits table's order, as before; with it, the counters that
  // explain the kernel's kind of change first, then its bound.
  std::sort(hints.begin(), hints.end(), [](const auto& a, const auto& b) {
    return std::make_pair(metric_rank(a.first), a.first) < std::make_pair(metric_rank(b.first), b.first);
  });
  return order_hints(std::move(hints), classify_bound(speed_of_light_at(mine, change.previous_run_id)),
                     classify_bound(speed_of_light_at(mine, change.run_id)));
}

}  // namespace gpuperf::analysis
