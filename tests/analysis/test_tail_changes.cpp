// Unconfirmed changes (tail_changes.hpp) through detect_changes(): known series with fake raw samples,
// replayed night by night as the nightly job sees them.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/metrics.hpp"
#include "reports/analysis/detect.hpp"

namespace gpuperf::analysis {
namespace {

// Run levels around 100 us: 20 runs with 0.5% run-to-run noise, for the history before a step.
std::vector<double> history(std::size_t n, double level, double cv, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, cv);
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(level * (1 + noise(rng)));
  return v;
}

// A duration series whose run i has 200 samples around levels[i] (0.4% spread), run ids 1..N, commits c1..cN.
db::Series series_of(const std::vector<double>& levels, std::uint64_t seed = 99, bool with_samples = true) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> spread(0, 0.004);
  db::Series s;
  s.key.machine_id = 1;
  s.key.fingerprint = "gpu-0";
  s.key.instance = {"memory/coalesced", Params{{"n", std::int64_t{16777216}}}};
  s.key.metric = metric_info_for("duration");
  for (std::size_t i = 0; i < levels.size(); ++i) {
    db::SeriesPoint p;
    p.run_id = static_cast<std::int64_t>(i + 1);
    p.run_uuid = "uuid-" + std::to_string(i + 1);
    p.commit = "c" + std::to_string(i + 1);
    p.started_at = "2026-11-01T02:00:00Z";
    std::vector<double> samples;
    for (int k = 0; k < 200; ++k) samples.push_back(levels[i] * (1 + spread(rng)));
    p.summary = summarize(samples);
    if (with_samples) p.samples = samples;
    s.points.push_back(p);
  }
  return s;
}

// detect_changes() on the first `nights` runs, as the nightly job sees the history that night.
std::vector<ChangePoint> night(const std::vector<double>& levels, std::size_t nights) {
  const std::vector<double> so_far(levels.begin(), levels.begin() + static_cast<std::ptrdiff_t>(nights));
  return detect_changes({series_of(so_far)});
}

TEST(UnconfirmedChanges, AStepIsFlaggedOnItsFirstNight) {
  std::vector<double> levels = history(20, 100e3, 0.005, 1);
  levels.push_back(130e3);  // night 21: 30% slower
  EXPECT_TRUE(night(levels, 20).empty());
  const auto changes = night(levels, 21);
  ASSERT_EQ(changes.size(), 1u);
  const ChangePoint& c = changes[0];
  EXPECT_TRUE(c.unconfirmed);
  EXPECT_EQ(c.runs_after, 1u);
  EXPECT_EQ(c.index, 20u);
  EXPECT_EQ(c.commit, "c21");
  EXPECT_EQ(c.previous_commit, "c20");
  EXPECT_EQ(c.kind, ChangeKind::regression);
  EXPECT_NEAR(c.change_pct, 30, 1.5);
  EXPECT_GT(c.confidence, 0.999);
  // A speed-up is flagged as early, as an improvement.
  levels.back() = 70e3;
  const auto faster = night(levels, 21);
  ASSERT_EQ(faster.size(), 1u);
  EXPECT_TRUE(faster[0].unconfirmed);
  EXPECT_EQ(faster[0].kind, ChangeKind::improvement);
}

TEST(UnconfirmedChanges, WithdrawnWhenTheNextRunsReturnToTheOldLevel) {
  std::vector<double> levels = history(20, 100e3, 0.005, 2);
  levels.push_back(130e3);
  ASSERT_EQ(night(levels, 21).size(), 1u);
  for (double v : history(3, 100e3, 0.005, 3)) levels.push_back(v);  // back at the old level
  for (std::size_t n = 22; n <= 24; ++n) EXPECT_TRUE(night(levels, n).empty()) << "night " << n;
}

TEST(UnconfirmedChanges, ConfirmedOnceEnoughRunsFollow) {
  std::vector<double> levels = history(20, 100e3, 0.005, 4);
  for (double v : history(8, 130e3, 0.005, 5)) levels.push_back(v);
  // Every night from the step on: one change, at the step, never withdrawn; unconfirmed while fewer than
  // min_segment (4) runs follow it, a normal change point once 8 do.
  for (std::size_t n = 21; n <= 28; ++n) {
    const auto changes = night(levels, n);
    ASSERT_EQ(changes.size(), 1u) << "night " << n;
    EXPECT_EQ(changes[0].index, 20u) << "night " << n;
    EXPECT_EQ(changes[0].runs_after, n - 20);
    if (n - 20 < 4) {
      EXPECT_TRUE(changes[0].unconfirmed) << "night " << n;
    }
    if (n == 28) {
      EXPECT_FALSE(changes[0].unconfirmed);
    }
  }
}

TEST(UnconfirmedChanges, NoFlagOnABimodalSeriesWithoutChange) {
  // H200, transpose/padded: 34.1 or 35.4 us from run to run (3.8% apart). Every night of 40, with the
  // upper mode on a third of the runs: nothing is a change.
  std::mt19937_64 rng(6);
  std::bernoulli_distribution upper(1.0 / 3);
  std::normal_distribution<double> jitter(0, 0.002);
  std::vector<double> levels;
  for (int i = 0; i < 40; ++i) levels.push_back((upper(rng) ? 35.4e3 : 34.1e3) * (1 + jitter(rng)));
  for (std::size_t n = 4; n <= levels.size(); ++n) EXPECT_TRUE(night(levels, n).empty()) << "night " << n;
}

TEST(UnconfirmedChanges, ASmallStepIsJudgedByTheSeriesNoise) {
  // 5% on a series whose runs move by 0.5% is 10 sigma: flagged the night it lands (no fixed 10% floor).
  std::vector<double> levels = history(20, 100e3, 0.005, 7);
  levels.push_back(105e3);
  levels.push_back(105.2e3);
  const auto first = night(levels, 21);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(first[0].unconfirmed);
  EXPECT_EQ(first[0].index, 20u);
  const auto second = night(levels, 22);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].index, 20u);
  EXPECT_EQ(second[0].runs_after, 2u);
  // The same 5% on a series whose runs move by 2% (2.5 sigma) is what such a series does now and then.
  std::vector<double> noisy = history(20, 100e3, 0.02, 17);
  noisy.push_back(105e3);
  EXPECT_TRUE(night(noisy, 21).empty());
}

TEST(UnconfirmedChanges, TwoModesChosenAtRandomEachNightAreNotAStep) {
  // Modes 2% to 5% apart, the mode drawn each night, 20 such kernels: no night's newest run is a change
  // (night one's false alarm), and the whole history of 60 nights holds no change. (A few nights into a
  // series, five nights in a row in one mode can pass for a step: what no detector can tell yet.)
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> gap(0.02, 0.05);
    std::bernoulli_distribution upper(0.5);
    std::normal_distribution<double> jitter(0, 0.003);
    const double g = gap(rng);
    std::vector<double> levels;
    for (int i = 0; i < 60; ++i) levels.push_back(100e3 * (upper(rng) ? 1 + g : 1.0) * (1 + jitter(rng)));
    for (std::size_t n = 8; n <= levels.size(); ++n) {
      for (const ChangePoint& c : night(levels, n)) {
        if (c.index + 1 != n && n != levels.size()) continue;
        ADD_FAILURE() << "seed " << seed << " (modes " << g * 100 << "% apart), night " << n << ": a change at run "
                      << c.index << " of " << c.change_pct << "%";
      }
    }
  }
}

TEST(UnconfirmedChanges, NeedRawSamplesAndAHistory) {
  std::vector<double> levels = history(20, 100e3, 0.005, 8);
  levels.push_back(130e3);
  EXPECT_TRUE(detect_changes({series_of(levels, 99, /*with_samples=*/false)}).empty());  // summaries only
  // Three runs of history are enough for a large step (a nightly job's fourth night), two are not; with
  // fewer than eight, every run of a tail is held to night one's rule: five runs 0.2% apart make 5% new, five
  // runs 2% apart do not.
  EXPECT_EQ(detect_changes({series_of({100e3, 100.3e3, 99.8e3, 130e3})}).size(), 1u);
  EXPECT_TRUE(detect_changes({series_of({100e3, 100.3e3, 130e3})}).empty());
  EXPECT_EQ(detect_changes({series_of({100e3, 100.3e3, 99.8e3, 100.1e3, 99.9e3, 105e3, 105.2e3})}).size(), 1u);
  EXPECT_TRUE(detect_changes({series_of({100e3, 103e3, 98e3, 101e3, 97.5e3, 105e3, 105.2e3})}).empty());
  DetectOptions off;
  off.unconfirmed = false;  // --confirmed-only
  EXPECT_TRUE(detect_changes({series_of(levels)}, off).empty());
}

TEST(UnconfirmedChanges, NoisyRunLevelsNeedALargerStep) {
  // 5% run-to-run noise: a 12% run is 2.4 sigma out, well within what 20 such runs produce by chance.
  std::vector<double> levels = history(20, 100e3, 0.05, 9);
  levels.push_back(112e3);
  EXPECT_TRUE(night(levels, 21).empty());
  levels.back() = 180e3;  // 16 sigma
  EXPECT_EQ(night(levels, 21).size(), 1u);
}

}  // namespace
}  // namespace gpuperf::analysis
