#include "reports/analysis/tail_changes.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "core/stats.hpp"
#include "reports/analysis/distributions.hpp"
#include "reports/analysis/level_band.hpp"
#include "reports/analysis/measurement_verdict.hpp"

namespace gpuperf::analysis {
namespace {

bool has_samples(const TailRun& r) { return r.samples != nullptr && r.samples->size() >= 2; }

// What the previous segment [a, b) says about the level a new run should have.
struct Reference {
  LevelBand band;  // rules 1 and 2: the newest level_runs run medians of the segment
  // Rule 2: t * sd * sqrt(1 + 1/m). Two runs in a row beyond `bound_more` each with probability
  // sqrt(alpha), so both with alpha. Rule 4: one run beyond `bound_night_one` with night_one_alpha.
  double bound_more = 0, bound_night_one = 0;
  // Rule 4: the series' newest level_runs run medians before the tail, across change points.
  std::vector<double> visited;
  std::size_t pooled_from = 0, pooled_to = 0;  // rule 3's runs
  // Their raw samples (and clocks), pooled on first use: most nights of most series fail rules 1 and 2.
  std::optional<Measurement> pooled;
};

Reference reference_of(const std::vector<TailRun>& runs, std::size_t a, std::size_t b, const TailOptions& o) {
  Reference ref;
  const std::size_t m = std::min(b - a, std::max<std::size_t>(o.level_runs, 2));
  std::vector<double> levels;
  for (std::size_t i = b - m; i < b; ++i) levels.push_back(runs[i].level);
  ref.band = level_band(levels);
  ref.bound_more = prediction_bound(ref.band, 1 - std::sqrt(o.alpha));
  ref.bound_night_one = prediction_bound(ref.band, 1 - std::min(o.night_one_alpha, o.alpha));
  for (std::size_t i = b - std::min(b, std::max<std::size_t>(o.level_runs, 2)); i < b; ++i) {
    ref.visited.push_back(runs[i].level);
  }
  ref.pooled_from = b - std::min(b - a, std::max<std::size_t>(o.sample_runs, 1));
  ref.pooled_to = b;
  return ref;
}

const Measurement& pooled(const std::vector<TailRun>& runs, Reference& ref, const MetricInfo& metric) {
  if (ref.pooled) return *ref.pooled;
  Measurement m;
  m.metric = metric;
  bool clocks = true;
  for (std::size_t i = ref.pooled_from; i < ref.pooled_to; ++i) {
    if (!has_samples(runs[i])) continue;
    m.samples.insert(m.samples.end(), runs[i].samples->begin(), runs[i].samples->end());
    const bool clocked = runs[i].sm_clock_mhz != nullptr && runs[i].sm_clock_mhz->size() == runs[i].samples->size();
    clocks = clocks && clocked;
    if (clocked) {
      m.sm_clock_mhz.insert(m.sm_clock_mhz.end(), runs[i].sm_clock_mhz->begin(), runs[i].sm_clock_mhz->end());
    }
  }
  if (!clocks) m.sm_clock_mhz.clear();  // cycles only where every pooled sample has its clock
  m.summary = summarize(m.samples);
  ref.pooled = std::move(m);
  return *ref.pooled;
}

// Rule 4's second half: `v` lies within the margin of visited_runs or more of the levels visited before.
bool visited_level(double v, const Reference& ref, double margin_pct, double abs_floor, const TailOptions& o) {
  std::size_t near = 0;
  for (double level : ref.visited) {
    if (std::fabs(v - level) <= std::max(std::fabs(level) * margin_pct / 100, abs_floor)) ++near;
  }
  return near >= std::max<std::size_t>(o.visited_runs, 1);
}

// Rules 1, 2 and 4 on a level: +1 when it moved up, -1 down, 0 not at all. Rule 4 holds for a lone run,
// and for every run while the segment is shorter than full_history. A run that measured one value has no
// samples for rule 3: rule 1's margin is then the metric's compare floor (and absolute floor), as
// `compare --history` judges such a value (level_band.hpp).
int level_moved(double v, const Reference& ref, bool lone, bool one_value, const MetricInfo& metric,
                const TailOptions& o) {
  double margin = o.range_margin_pct, abs_floor = 0;
  if (one_value) {
    margin = std::max(margin, o.thresholds.min_effect_for(metric));
    abs_floor = o.thresholds.abs_floor_for(metric);
  }
  const bool night_one_rule = lone || ref.band.m < o.full_history;
  const int d = outside_band(v, ref.band, margin, abs_floor, night_one_rule ? ref.bound_night_one : ref.bound_more);
  if (d == 0) return 0;
  if (!night_one_rule) return d;
  if (visited_level(v, ref, margin, abs_floor, o)) return 0;
  const double level = ref.band.level;
  if (level != 0 && std::fabs(v / level - 1) * 100 < o.night_one_min_effect_pct) return 0;
  return d;
}

// Rule 3: the run's raw samples against the pooled ones, as compare judges two runs; true when they moved
// in `direction` (+1 up, -1 down).
bool samples_moved(const std::vector<TailRun>& runs, std::size_t at, int direction, Reference& ref,
                   const MetricInfo& metric, const TailOptions& o) {
  const TailRun& run = runs[at];
  if (!has_samples(run)) return false;
  const Measurement& base = pooled(runs, ref, metric);
  if (base.samples.size() < 2) return false;
  Measurement candidate;
  candidate.metric = metric;
  candidate.samples = *run.samples;
  if (run.sm_clock_mhz != nullptr && run.sm_clock_mhz->size() == run.samples->size()) {
    candidate.sm_clock_mhz = *run.sm_clock_mhz;
  }
  candidate.summary = summarize(candidate.samples);
  CompareOptions co;
  co.thresholds = o.thresholds;
  const CompareRow row = compare_measurement(&base, Status::ok, &candidate, Status::ok, co);
  if (row.verdict != Verdict::slower && row.verdict != Verdict::faster) return false;
  const bool up = (row.verdict == Verdict::faster) == metric.higher_is_better;
  return (up ? 1 : -1) == direction;
}

// The direction in which every run of [from, to) moved by all rules (`lone`: a tail of one run), or 0.
int runs_moved(const std::vector<TailRun>& runs, std::size_t from, std::size_t to, bool lone, Reference& ref,
               const MetricInfo& metric, const TailOptions& o) {
  int direction = 0;
  for (std::size_t i = to; i-- > from;) {  // newest first: it fails most often
    const int d = level_moved(runs[i].level, ref, lone, runs[i].one_value, metric, o);
    if (d == 0 || (direction != 0 && d != direction)) return 0;
    direction = d;
  }
  for (std::size_t i = to; i-- > from;) {
    if (!runs[i].one_value && !samples_moved(runs, i, direction, ref, metric, o)) return 0;
  }
  return direction;
}

double tail_median(const std::vector<TailRun>& runs, std::size_t from) {
  std::vector<double> levels;
  for (std::size_t i = from; i < runs.size(); ++i) levels.push_back(runs[i].level);
  return median(levels);
}

// A tail that one weak run would otherwise cut short. A 4-sigma step leaves about one run in six within
// two sigmas of the old level; without this, an alarm raised on the step's night would vanish on such a
// night and be raised again (a second "new" alarm) when the segmentation confirms it. So a tail of k >= 2
// runs also stands when its start alone passed as a tail of one run, or its first two as a tail of two (an
// alarm was raised then, against this same segment), its median level still passes rules 1 and 2, and each
// of its runs is nearer that median than the old level (a run back at the old level withdraws it).
int extends(const std::vector<TailRun>& runs, std::size_t start, Reference& ref, const MetricInfo& metric,
            const TailOptions& o) {
  const std::size_t n = runs.size();
  if (n - start < 2) return 0;
  int direction = runs_moved(runs, start, start + 1, true, ref, metric, o);
  if (direction == 0 && n - start >= 3) direction = runs_moved(runs, start, start + 2, false, ref, metric, o);
  if (direction == 0) return 0;
  const double level = tail_median(runs, start);
  if (level_moved(level, ref, false, runs[start].one_value, metric, o) != direction) return 0;
  for (std::size_t i = start; i < n; ++i) {
    if (std::fabs(runs[i].level - level) >= std::fabs(runs[i].level - ref.band.level)) return 0;
  }
  return direction;
}

}  // namespace

std::optional<TailChange> find_tail_change(const std::vector<TailRun>& runs, std::size_t segment_start,
                                           const MetricInfo& metric, std::size_t max_runs, const TailOptions& options) {
  const std::size_t n = runs.size();
  const std::size_t history = std::max<std::size_t>(options.min_history, 2);  // an sd needs two
  if (segment_start > n || n - segment_start < history + 1) return std::nullopt;
  const std::size_t longest = std::min(max_runs, n - segment_start - history);
  for (std::size_t k = longest; k >= 1; --k) {
    const std::size_t start = n - k;
    Reference ref = reference_of(runs, segment_start, start, options);
    if (runs_moved(runs, start, n, k == 1, ref, metric, options) == 0 &&
        extends(runs, start, ref, metric, options) == 0) {
      continue;
    }
    TailChange c;
    c.index = start;
    c.runs = k;
    c.before = ref.band.level;
    c.after = tail_median(runs, start);
    // As if the tail's median were the mean of k runs: an indication of strength, not an exact test.
    const double m = static_cast<double>(ref.band.m);
    const double se = ref.band.sd * std::sqrt(1 / static_cast<double>(k) + 1 / m);
    const double z = se > 0 ? std::fabs(c.after - c.before) / se : INFINITY;
    c.p_value = std::isfinite(z) ? std::min(1.0, 2 * (1 - student_t_cdf(z, m - 1))) : 0.0;
    return c;
  }
  return std::nullopt;
}

}  // namespace gpuperf::analysis
