#include "reports/analysis/measurement_verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/stats.hpp"
#include "reports/analysis/mann_whitney.hpp"
#include "reports/analysis/ratio_ci.hpp"
#include "reports/analysis/welch.hpp"

namespace gpuperf::analysis {

double pct(double ratio) { return (ratio - 1) * 100; }

Verdict direction(bool candidate_larger, const MetricInfo& m) {
  return candidate_larger == m.higher_is_better ? Verdict::faster : Verdict::slower;
}

namespace {

double change_pct_of(double base, double candidate) {
  if (base == 0) return candidate == 0 ? 0.0 : INFINITY;
  return pct(candidate / base);
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

}  // namespace

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

}  // namespace gpuperf::analysis
