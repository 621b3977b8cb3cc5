#include "reports/family_pairs.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "core/metrics.hpp"

namespace gpuperf::reports {

bool same_shared_axes(const Params& a, const Params& b) {
  for (const auto& [axis, value] : a) {
    auto it = b.find(axis);
    if (it != b.end() && !(it->second == value)) return false;
  }
  return true;
}

namespace {

// Hardware counters from the profiler (and raw Perfworks names); not timing, derived or static attributes.
bool is_hardware_metric(const std::string& name) {
  const MetricTraits* t = find_metric(name);
  return t == nullptr || t->source == MetricSource::profiler;
}

// One direction for every pair of a family, so that "up" means the same in neighbouring charts: the role
// (baseline or variant) that is slower, by the latest ratio, in most of the family's pairs is the numerator
// of all of them (a tie: the baseline). The ratios then read slower/faster, above 1, except for a pair whose
// variant crossed over, which reads below 1 instead of flipping (memory/strided over memory/coalesced at
// every stride; matmul/naive over matmul/tiled at every size).
void orient_family(FamilyPanel& panel) {
  int baseline_slower = 0, variant_slower = 0;
  for (const VariantPair& pair : panel.pairs) {
    if (pair.ratio.empty()) continue;
    (pair.ratio.back().value > 1 ? variant_slower : baseline_slower) += 1;
  }
  const bool baseline_on_top = baseline_slower >= variant_slower;
  for (VariantPair& pair : panel.pairs) {
    pair.numerator_is_baseline = baseline_on_top;
    if (!baseline_on_top) continue;
    for (auto& point : pair.ratio) point.value = 1 / point.value;
  }
}

}  // namespace

std::string key_metric(const InstanceTrends& a, const InstanceTrends& b) {
  struct Candidate {
    std::size_t rank;
    std::string name;
    double score;
  };
  std::vector<Candidate> candidates;
  for (const auto& sa : a.series) {
    if (!is_hardware_metric(sa.metric.name)) continue;
    const TrendSeries* sb = b.find(sa.metric.name);
    if (sb == nullptr || sb->points.empty() || sa.points.empty()) continue;
    const double va = sa.latest(), vb = sb->latest();
    const double top = std::max(std::fabs(va), std::fabs(vb));
    if (top == 0) continue;
    const double score = std::fabs(va - vb) / top;
    // Below 5% the two variants do the same thing on this counter; noise must not be called the key.
    if (score >= 0.05) candidates.push_back({metric_rank(sa.metric.name), sa.metric.name, score});
  }
  if (candidates.empty()) return "";
  double best = 0;
  for (const auto& c : candidates) best = std::max(best, c.score);
  const Candidate* pick = nullptr;
  for (const auto& c : candidates) {
    if (c.score < best - 0.05) continue;
    if (pick == nullptr || std::tie(c.rank, c.name) < std::tie(pick->rank, pick->name)) pick = &c;
  }
  return pick->name;
}

std::vector<FamilyPanel> build_family_panels(const std::vector<InstanceTrends>& instances) {
  std::map<std::string, FamilyPanel> panels;
  for (std::size_t v = 0; v < instances.size(); ++v) {
    const InstanceTrends& variant = instances[v];
    if (variant.baseline.empty()) continue;
    const TrendSeries* vd = variant.find("duration");
    for (std::size_t b = 0; b < instances.size(); ++b) {
      const InstanceTrends& base = instances[b];
      if (b == v || base.instance.name != variant.baseline) continue;
      if (!same_shared_axes(variant.instance.params, base.instance.params)) continue;
      VariantPair pair;
      pair.variant = v;
      pair.baseline = b;
      pair.key_metric = key_metric(variant, base);
      const TrendSeries* bd = base.find("duration");
      if (vd != nullptr && bd != nullptr && !vd->points.empty() && !bd->points.empty()) {
        // variant/baseline here; orient_family may turn every pair of the family over.
        for (const auto& p : vd->points) {
          const Summary* d = bd->at(p.run);
          if (d == nullptr || d->median == 0) continue;
          pair.ratio.push_back({p.run, p.summary.median / d->median});
        }
      }
      FamilyPanel& panel = panels[variant.family()];
      panel.family = variant.family();
      panel.pairs.push_back(std::move(pair));
    }
  }
  std::vector<FamilyPanel> out;
  for (auto& [name, panel] : panels) {
    orient_family(panel);
    out.push_back(std::move(panel));
  }
  return out;
}

}  // namespace gpuperf::reports
