#include "reports/analysis/change_points.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <queue>
#include <utility>

#include "core/stats.hpp"
#include "reports/analysis/mann_whitney.hpp"

namespace gpuperf::analysis {
namespace {

// SplitMix64 (Steele, Lea & Flood, OOPSLA 2014): small, fast and the same on every platform, unlike the
// distributions of <random>; the permutations must not depend on the standard library.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound), rejecting the biased tail.
  std::size_t below(std::size_t bound) {
    const std::uint64_t b = bound;
    const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % b);
    std::uint64_t r;
    do {
      r = next();
    } while (r >= limit);
    return static_cast<std::size_t>(r % b);
  }

 private:
  std::uint64_t state_;
};

std::uint64_t mix(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  SplitMix64 g(seed ^ (a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL));
  return g.next();
}

// The best split of `ranks` (mid-ranks of one segment): max over k of |z_k|, where z_k is the
// standardized Mann-Whitney U of the first k points against the rest, with both sides >= min_segment.
// `var_factor` is ((n + 1) - sum(t^3 - t) / (n (n - 1))) / 12, the tie-corrected variance of U per
// k (n - k). O(n) by a running rank sum.
double best_score(const std::vector<double>& ranks, double var_factor, std::size_t min_segment, std::size_t* best_k) {
  const std::size_t n = ranks.size();
  const double nd = static_cast<double>(n);
  double rank_sum = 0, best = -1;
  for (std::size_t k = 1; k + min_segment <= n; ++k) {
    rank_sum += ranks[k - 1];
    if (k < min_segment) continue;
    const double kd = static_cast<double>(k);
    const double u = rank_sum - kd * (kd + 1) / 2;
    const double pairs = kd * (nd - kd);
    const double z = std::fabs(u - pairs / 2) / std::sqrt(pairs * var_factor);
    if (z > best) {
      best = z;
      if (best_k != nullptr) *best_k = k;
    }
  }
  return best;
}

double segment_median(const std::vector<double>& v, std::size_t a, std::size_t b) {
  return median(
      std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(a), v.begin() + static_cast<std::ptrdiff_t>(b)));
}

// |after / before - 1| in percent; infinite when the level leaves zero.
double effect_pct(double before, double after) {
  if (before == 0) return after == 0 ? 0.0 : INFINITY;
  return std::fabs(after / before - 1) * 100;
}

// The size of the change between [a, k) and [k, b) for the effect floor: the Hodges-Lehmann shift (the median
// of every difference after - before) relative to the median before, in percent. Not the difference of the
// two medians: the median of a kernel with two modes a few percent apart jumps from one mode to the other
// when the modes' shares differ a little between two stretches of runs, while the shift of the pairs stays
// near zero (most pairs land in the same mode). A step moves every pair: the shift is the step.
double split_effect_pct(const std::vector<double>& v, std::size_t a, std::size_t k, std::size_t b) {
  std::vector<double> diffs;
  diffs.reserve((k - a) * (b - k));
  for (std::size_t i = a; i < k; ++i) {
    for (std::size_t j = k; j < b; ++j) diffs.push_back(v[j] - v[i]);
  }
  const double before = segment_median(v, a, k);
  return effect_pct(before, before + median(diffs));
}

// costs[j] = sum of absolute deviations of seq[0, j) from their median, for j = 0..seq.size(). Two heaps
// keep the running median (the lower middle for an even count: every point between the two middles gives
// the same sum) and the sums on each side, so all prefixes cost O(n log n) together.
std::vector<double> prefix_l1_costs(const std::vector<double>& seq) {
  std::priority_queue<double> lower;                                       // max-heap: values <= median
  std::priority_queue<double, std::vector<double>, std::greater<>> upper;  // min-heap: values above
  double sum_lower = 0, sum_upper = 0;
  std::vector<double> costs(seq.size() + 1, 0.0);
  for (std::size_t j = 0; j < seq.size(); ++j) {
    const double x = seq[j];
    if (lower.empty() || x <= lower.top()) {
      lower.push(x);
      sum_lower += x;
    } else {
      upper.push(x);
      sum_upper += x;
    }
    if (lower.size() > upper.size() + 1) {
      upper.push(lower.top());
      sum_upper += lower.top();
      sum_lower -= lower.top();
      lower.pop();
    } else if (upper.size() > lower.size()) {
      lower.push(upper.top());
      sum_lower += upper.top();
      sum_upper -= upper.top();
      upper.pop();
    }
    const double m = lower.top();
    costs[j + 1] =
        (m * static_cast<double>(lower.size()) - sum_lower) + (sum_upper - m * static_cast<double>(upper.size()));
  }
  return costs;
}

// Where a single step in values[a, b) sits: the split minimising the least-absolute-deviations cost of a
// two-level fit, both sides >= min_segment. Values, not ranks: the size of the jump between two runs is
// what places it, and ranks discard it (a rank statistic prefers balanced splits and drifts towards the
// middle by a few runs). Prefix costs from the left and from the right make every split O(1): the search
// is O(n log n), so a year of history costs no more per run than a quarter.
std::size_t l1_best_split(const std::vector<double>& v, std::size_t a, std::size_t b, std::size_t min_segment) {
  std::vector<double> segment(v.begin() + static_cast<std::ptrdiff_t>(a), v.begin() + static_cast<std::ptrdiff_t>(b));
  const std::vector<double> left = prefix_l1_costs(segment);
  std::reverse(segment.begin(), segment.end());
  const std::vector<double> right = prefix_l1_costs(segment);
  std::size_t best = a + min_segment;
  double best_cost = INFINITY;
  for (std::size_t k = a + min_segment; k + min_segment <= b; ++k) {
    const double cost = left[k - a] + right[b - k];
    if (cost < best_cost) {
      best_cost = cost;
      best = k;
    }
  }
  return best;
}

// Permutation tests of the segments [a, b) of one series, each computed once. The test says whether the
// segment holds a change (ranks: robust, and calibrated by the permutations); l1_best_split() says where.
class SegmentTester {
 public:
  SegmentTester(const std::vector<double>& values, const SegmentationOptions& options)
      : values_(values), options_(options), min_segment_(std::max<std::size_t>(options.min_segment, 1)) {}

  // p-value of the best split of [a, b) and that split (absolute index).
  std::pair<double, std::size_t> test(std::size_t a, std::size_t b) {
    const auto key = std::make_pair(a, b);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    const std::vector<double> segment(values_.begin() + static_cast<std::ptrdiff_t>(a),
                                      values_.begin() + static_cast<std::ptrdiff_t>(b));
    const double p =
        best_split_p_value(segment, min_segment_, options_.permutations, mix(options_.seed, a, b), nullptr);
    // Where the step sits matters only for a significant segment; placing it is O(n^2 log n), so a series
    // of pure noise (the common case) stays linear in its length.
    const std::size_t k = p <= options_.alpha ? l1_best_split(values_, a, b, min_segment_) : a;
    const auto result = std::make_pair(p, k);
    cache_.emplace(key, result);
    return result;
  }

 private:
  const std::vector<double>& values_;
  const SegmentationOptions& options_;
  std::size_t min_segment_;
  std::map<std::pair<std::size_t, std::size_t>, std::pair<double, std::size_t>> cache_;
};

}  // namespace

// The effect floor of a series: the fixed floor, or min_noise_sigmas of its run-to-run noise (from the median
// absolute successive difference, which a step does not inflate) relative to its median, whichever is larger.
double effect_floor_pct(const std::vector<double>& values, const SegmentationOptions& options) {
  if (values.size() < 3 || !(options.min_noise_sigmas > 0)) return options.min_effect_pct;
  std::vector<double> diffs;
  for (std::size_t i = 1; i < values.size(); ++i) diffs.push_back(std::fabs(values[i] - values[i - 1]));
  const double sigma = 1.4826 * median(diffs) / std::sqrt(2.0);
  const double level = std::fabs(median(values));
  if (!(level > 0)) return options.min_effect_pct;
  return std::max(options.min_effect_pct, options.min_noise_sigmas * sigma / level * 100);
}

std::vector<bool> find_outliers(const std::vector<double>& values, double threshold) {
  const std::size_t n = values.size();
  std::vector<bool> out(n, false);
  if (n < 5 || !(threshold > 0)) return out;
  // Noise from successive differences: a level shift moves one difference only, so the MAD of the
  // differences sees the noise and not the steps. sd(x_i - x_{i-1}) = sqrt(2) sd(x).
  std::vector<double> diffs;
  for (std::size_t i = 1; i < n; ++i) diffs.push_back(std::fabs(values[i] - values[i - 1]));
  const double sigma = 1.4826 * median(diffs) / std::sqrt(2.0);
  if (!(sigma > 0)) return out;  // mostly repeated values: nothing to measure outliers against
  // A point is an outlier when it is far from the level on its left AND from the level on its right (the
  // medians of up to 3 neighbours each side). A point next to a step sits at one of the two levels;
  // a centred window would straddle the step, and with one outlier in it take that outlier's value.
  constexpr std::size_t kSide = 3;
  constexpr std::size_t kModeRuns = 2;  // other runs this near make a level a mode
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t left = std::min(i, kSide), right = std::min(n - 1 - i, kSide);
    const double limit = threshold * sigma;
    const bool far_left = left == 0 || std::fabs(values[i] - segment_median(values, i - left, i)) > limit;
    const bool far_right = right == 0 || std::fabs(values[i] - segment_median(values, i + 1, i + 1 + right)) > limit;
    if (!(far_left && far_right)) continue;
    // A level the series keeps returning to is a mode, not an outlier: a kernel with two modes a few percent
    // apart has runs in the other mode between its neighbours all the time. Dropping them would leave the
    // search a series of runs bunched by mode, and the rank test would split it where nothing changed.
    std::size_t near = 0;
    for (std::size_t j = 0; j < n && near < kModeRuns; ++j) {
      if (j != i && std::fabs(values[j] - values[i]) <= limit) ++near;
    }
    out[i] = near < kModeRuns;
  }
  return out;
}

double best_split_p_value(const std::vector<double>& values, std::size_t min_segment, std::size_t permutations,
                          std::uint64_t seed, std::size_t* best_index) {
  const std::size_t n = values.size();
  min_segment = std::max<std::size_t>(min_segment, 1);
  if (n < 2 * min_segment) return 1.0;
  double tie_term = 0;
  std::vector<double> ranks = mid_ranks(values, &tie_term);
  const double nd = static_cast<double>(n);
  const double var_factor = ((nd + 1) - tie_term / (nd * (nd - 1))) / 12.0;
  if (var_factor <= 0) return 1.0;  // every value tied
  const double observed = best_score(ranks, var_factor, min_segment, best_index);
  // Sequential Monte Carlo p-value (Besag & Clifford, Biometrika 1991): stop once `kEnough` permutations
  // scored as high as the data; then p = kEnough / done. Otherwise p = (hits + 1) / (permutations + 1).
  constexpr std::size_t kEnough = 20;
  const double tolerance = observed * 1e-12;
  SplitMix64 rng(seed);
  std::size_t hits = 0;
  for (std::size_t done = 1; done <= permutations; ++done) {
    for (std::size_t i = n - 1; i > 0; --i) std::swap(ranks[i], ranks[rng.below(i + 1)]);  // Fisher-Yates
    if (best_score(ranks, var_factor, min_segment, nullptr) >= observed - tolerance) {
      if (++hits == kEnough) return static_cast<double>(hits) / static_cast<double>(done);
    }
  }
  return static_cast<double>(hits + 1) / static_cast<double>(permutations + 1);
}

std::vector<Split> find_change_points(const std::vector<double>& raw, const SegmentationOptions& options) {
  // Outliers leave the search; `kept[i]` is the position in `raw` of the i-th point searched.
  const std::vector<bool> outlier = find_outliers(raw, options.outlier_threshold);
  std::vector<double> values;
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (outlier[i]) continue;
    values.push_back(raw[i]);
    kept.push_back(i);
  }
  const std::size_t n = values.size();
  const std::size_t min_segment = std::max<std::size_t>(options.min_segment, 1);
  if (n < 2 * min_segment) return {};
  SegmentTester tester(values, options);
  const double floor_pct = effect_floor_pct(values, options);

  // 1. Divisive search: split while the best split of a segment is significant. A significant split whose
  //    effect is below the floor is not kept, but both halves are still searched: a small real shift must
  //    not hide a large one next to it.
  std::vector<std::size_t> cuts;
  std::vector<std::pair<std::size_t, std::size_t>> pending{{0, n}};
  while (!pending.empty()) {
    const auto [a, b] = pending.back();
    pending.pop_back();
    if (b - a < 2 * min_segment) continue;
    const auto [p, k] = tester.test(a, b);
    if (p > options.alpha) continue;
    if (split_effect_pct(values, a, k, b) >= floor_pct) {
      cuts.push_back(k);
    }
    pending.emplace_back(a, k);
    pending.emplace_back(k, b);
  }
  std::sort(cuts.begin(), cuts.end());

  // 2. Re-test each change point against its neighbouring segments only and move it to the best split of
  //    that window; drop the weakest that fails (p above alpha, or effect below the floor) and repeat.
  for (std::size_t round = 0; round < 4 * n && !cuts.empty(); ++round) {
    std::size_t weakest = cuts.size();
    double weakest_score = -1;
    bool moved = false;
    for (std::size_t i = 0; i < cuts.size(); ++i) {
      const std::size_t a = i == 0 ? 0 : cuts[i - 1];
      const std::size_t b = i + 1 == cuts.size() ? n : cuts[i + 1];
      const auto [p, k] = tester.test(a, b);
      const double effect = split_effect_pct(values, a, cuts[i], b);
      // Failing by significance ranks before failing by size; among each, the worst goes first.
      double score = -1;
      if (p > options.alpha) {
        score = 1 + p;
      } else if (effect < floor_pct) {
        score = 1 - effect / std::max(floor_pct, 1e-12);
      }
      if (score > weakest_score) {
        weakest_score = score;
        weakest = i;
      }
      if (score < 0 && k != cuts[i] && !moved) {
        cuts[i] = k;  // one move per round, so the neighbours' windows are re-read
        moved = true;
      }
    }
    if (weakest_score >= 0) {
      cuts.erase(cuts.begin() + static_cast<std::ptrdiff_t>(weakest));
    } else if (!moved) {
      break;
    }
  }

  std::vector<Split> out;
  for (std::size_t i = 0; i < cuts.size(); ++i) {
    const std::size_t a = i == 0 ? 0 : cuts[i - 1];
    const std::size_t b = i + 1 == cuts.size() ? n : cuts[i + 1];
    Split s;
    s.index = kept[cuts[i]];
    s.p_value = tester.test(a, b).first;
    s.before = segment_median(values, a, cuts[i]);
    s.after = segment_median(values, cuts[i], b);
    out.push_back(s);
  }
  return out;
}

std::vector<Split> find_level_changes(const std::vector<double>& values, double tolerance_pct) {
  std::vector<Split> out;
  if (values.empty()) return out;
  double level = values.front();
  for (std::size_t i = 1; i < values.size(); ++i) {
    const double scale = std::max(std::fabs(level), std::fabs(values[i]));
    if (std::fabs(values[i] - level) > tolerance_pct / 100 * scale) {
      Split s;
      s.index = i;
      s.p_value = 0;
      s.before = level;
      s.after = values[i];
      out.push_back(s);
      level = values[i];
    }
  }
  return out;
}

}  // namespace gpuperf::analysis
