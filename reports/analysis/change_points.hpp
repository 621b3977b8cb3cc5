// Change points of one series of numbers: divisive segmentation with a permutation test.
//
// The method is E-Divisive's (Matteson & James, "A Nonparametric Approach for Multiple Change Point
// Analysis of Multivariate Data", JASA 2014; also the basis of Apache Otava): find the best split of a
// segment, test it, and recurse into both halves while splits are significant. The divergence between the
// two sides is the standardized Mann-Whitney statistic of the split (ranks, as in Pettitt's test,
// Applied Statistics 28(2), 1979) rather than the energy distance: ranks make a single outlier count no
// more than any other point, and with prefix sums of ranks every split of a segment is scored in O(n),
// so each permutation of the test costs O(n) too. The p-value of a split is the share of permutations of
// the segment whose best split scores at least as high, which controls the false-alarm rate of the whole
// search (not of one split) at alpha. After the search, each change point is re-tested against its
// neighbours only and dropped when it no longer passes (Otava does the same), and changes smaller than
// the effect floor are merged away; a change's size for the floor is the Hodges-Lehmann shift between its
// segments (robust to a kernel's two modes, whose segment medians jump between the modes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuperf::analysis {

struct SegmentationOptions {
  double alpha = 0.005;             // permutation p-value a split must reach
  std::size_t min_segment = 4;      // points on each side of a change point
  std::size_t permutations = 1999;  // upper bound per test; stops early once the answer is clear
  double min_effect_pct = 1.0;      // |after/before - 1| a change must reach, in percent
  // ... and this many run-to-run sigmas of the series (its median absolute successive difference): on a
  // series whose runs wobble by 2%, a 2% shift between two long stretches is what 300 flat series show a
  // few times by chance (bench/detect/detect_eval.py nightly), not a step to act on.
  double min_noise_sigmas = 1.5;
  std::uint64_t seed = 1;  // the permutations are seeded: same input, same answer
  // Points further than this many noise sigmas from the median of the 7 points around them leave the
  // search (0: keep all). See find_outliers().
  double outlier_threshold = 5.0;
};

struct Split {
  std::size_t index = 0;  // first point of the new segment (positions count outliers too)
  double p_value = 1;     // permutation p-value against its neighbouring segments
  double before = 0;      // median of the segment before
  double after = 0;       // median of the segment after
};

// Change points of `values` (in order), oldest first. Fewer than 2 * min_segment values (outliers not
// counted): none. Levels are medians of the segments without their outliers.
std::vector<Split> find_change_points(const std::vector<double>& values, const SegmentationOptions& options);

// Deterministic series: every place where the value moves by more than `tolerance_pct` of the previous
// level, with p = 0. A one-run blip is two changes: a deterministic counter does not blip without cause.
std::vector<Split> find_level_changes(const std::vector<double>& values, double tolerance_pct);

// Outliers, in the spirit of a Hampel filter: true for each point further than `threshold` sigmas from the
// median of the 3 points before it and from the median of the 3 points after it. Sigma is estimated from
// the median absolute successive difference, which a level shift does not inflate. A point next to a step
// is close to one of the two sides, so steps are left alone, and so is a point within the limit of two or
// more other points of the series (a mode the kernel keeps returning to, not an outlier). Without this, one slow run
// among the 8 after a change costs a rank test most of its power and pulls the split towards itself. Outliers are
// dropped from the search rather than replaced.
std::vector<bool> find_outliers(const std::vector<double>& values, double threshold);

// The permutation p-value of the best split of `values` (both sides >= min_segment), with that split's
// index in `best_index`. Exposed for tests.
double best_split_p_value(const std::vector<double>& values, std::size_t min_segment, std::size_t permutations,
                          std::uint64_t seed, std::size_t* best_index);

}  // namespace gpuperf::analysis
