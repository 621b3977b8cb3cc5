// bisect's decision rule on fake measurements of each kind: a deterministic counter, a noisy duration, an
// ambiguous commit, a commit whose kernel failed; and the counters that moved with the culprit.
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/metrics.hpp"
#include "reports/analysis/bisect_rule.hpp"

namespace gpuperf::analysis {
namespace {

Measurement noisy(const std::string& metric, double level, double cv, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, cv);
  Measurement m;
  m.metric = metric_info_for(metric);
  for (std::size_t i = 0; i < n; ++i) m.samples.push_back(level * (1 + noise(rng)));
  m.summary = summarize(m.samples);
  return m;
}

// One run of memory/coalesced[n=1024]: its duration around `duration_ns` and its gld_efficiency.
gpuperf::Run run_of(double duration_ns, double gld, std::uint64_t seed, Status status = Status::ok) {
  Result r;
  r.instance = BenchmarkInstance{"memory/coalesced", Params{{"n", std::int64_t{1024}}}};
  r.status = status;
  if (status == Status::ok) {
    r.metrics.push_back(noisy("duration", duration_ns, 0.005, 60, seed));
    r.metrics.push_back(single_value("gld_efficiency", gld));
    r.metrics.push_back(single_value("registers", 16));
  } else {
    r.message = "max abs error 3.5 at [17]";
  }
  gpuperf::Run run;
  run.uuid = "run-" + std::to_string(seed);
  run.results.push_back(r);
  return run;
}

struct Ends {
  gpuperf::Run good = run_of(100e3, 100, 1);
  gpuperf::Run bad = run_of(180e3, 50, 2);
  CompareOptions options;
  std::vector<TrackedChange> tracked(const std::string& metric) const {
    return reproduced_changes(good, bad, metric, options);
  }
};

TEST(BisectRule, ReproducedChangesNameTheInstanceAndTheEndsRow) {
  Ends e;
  const auto t = e.tracked("duration");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].instance.display_name(), "memory/coalesced[n=1024]");
  EXPECT_EQ(t[0].ends.verdict, Verdict::slower);
  EXPECT_NEAR(t[0].ends.change_pct, 80, 2);
  EXPECT_EQ(e.tracked("gld_efficiency").size(), 1u);
  EXPECT_TRUE(e.tracked("registers").empty());  // equal at both ends: nothing to bisect
}

TEST(BisectRule, ChangeThatDoesNotReproduceTracksNothing) {
  const gpuperf::Run good = run_of(100e3, 100, 3), rerun = run_of(100e3, 100, 4);
  EXPECT_TRUE(reproduced_changes(good, rerun, "duration", {}).empty());
  const auto rows = end_rows(good, rerun, "duration", {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].verdict, Verdict::same);
}

TEST(BisectRule, CounterDecidesByEquality) {
  Ends e;
  const auto t = e.tracked("gld_efficiency");
  // The duration says nothing here: only the counter is bisected.
  EXPECT_EQ(decide_commit(e.good, e.bad, run_of(140e3, 100, 5), t, e.options).verdict, BisectVerdict::good);
  EXPECT_EQ(decide_commit(e.good, e.bad, run_of(140e3, 50, 6), t, e.options).verdict, BisectVerdict::bad);
  // Equal to neither end (a second change in the range): the nearer side.
  EXPECT_EQ(decide_commit(e.good, e.bad, run_of(140e3, 55, 7), t, e.options).verdict, BisectVerdict::bad);
  EXPECT_EQ(decide_commit(e.good, e.bad, run_of(140e3, 90, 8), t, e.options).verdict, BisectVerdict::good);
  // Rounding is equality.
  EXPECT_EQ(decide_commit(e.good, e.bad, run_of(140e3, 100.000001, 9), t, e.options).verdict, BisectVerdict::good);
}

TEST(BisectRule, NoisyDurationDecidesWithComparesTest) {
  const gpuperf::Run good = run_of(100e3, 100, 10), bad = run_of(105e3, 100, 11);  // +5%, no counter moves
  const CompareOptions o;
  const auto t = reproduced_changes(good, bad, "duration", o);
  ASSERT_EQ(t.size(), 1u);
  const CommitDecision g = decide_commit(good, bad, run_of(100e3, 100, 12), t, o);
  EXPECT_EQ(g.verdict, BisectVerdict::good) << g.why;
  EXPECT_NE(g.why.find("same vs good"), std::string::npos) << g.why;
  const CommitDecision b = decide_commit(good, bad, run_of(105e3, 100, 13), t, o);
  EXPECT_EQ(b.verdict, BisectVerdict::bad) << b.why;
  EXPECT_NE(b.why.find("same vs bad"), std::string::npos) << b.why;
  // Beyond the bad end (slower still) is bad; a level nearer good than bad is good.
  EXPECT_EQ(decide_commit(good, bad, run_of(112e3, 100, 14), t, o).verdict, BisectVerdict::bad);
  EXPECT_EQ(decide_commit(good, bad, run_of(96e3, 100, 15), t, o).verdict, BisectVerdict::good);
}

TEST(BisectRule, AmbiguousCommitAsksForAnotherMeasurement) {
  const gpuperf::Run good = run_of(100e3, 100, 16), bad = run_of(105e3, 100, 17);
  const CompareOptions o;
  const auto t = reproduced_changes(good, bad, "duration", o);
  // Half-way (+2.5%) changed from both: placed by the nearer median, and says so.
  const CommitDecision h = decide_commit(good, bad, run_of(102.5e3, 100, 18), t, o);
  EXPECT_NE(h.verdict, BisectVerdict::skip);
  EXPECT_NE(h.why.find("nearer"), std::string::npos) << h.why;
  // A candidate whose samples are far noisier than the ends' cannot be told from either.
  gpuperf::Run wild = run_of(102.5e3, 100, 19);
  wild.results[0].metrics[0] = noisy("duration", 102.5e3, 0.2, 60, 19);
  const CommitDecision w = decide_commit(good, bad, wild, t, o);
  EXPECT_EQ(w.verdict, BisectVerdict::ambiguous) << w.why;
  EXPECT_NE(w.why.find("vs good"), std::string::npos);
}

TEST(BisectRule, FailedOrMissingKernelIsSkipped) {
  Ends e;
  const auto t = e.tracked("duration");
  const CommitDecision d = decide_commit(e.good, e.bad, run_of(0, 0, 20, Status::incorrect), t, e.options);
  EXPECT_EQ(d.verdict, BisectVerdict::skip);
  EXPECT_NE(d.why.find("failed"), std::string::npos) << d.why;
  gpuperf::Run empty;
  EXPECT_EQ(decide_commit(e.good, e.bad, empty, t, e.options).verdict, BisectVerdict::skip);
  EXPECT_EQ(decide_commit(e.good, e.bad, run_of(100e3, 100, 21), {}, e.options).verdict, BisectVerdict::skip);
}

TEST(BisectRule, CountersThatMovedWithTheCulprit) {
  Ends e;
  const auto t = e.tracked("duration");
  const auto moved = moved_with(e.good, e.bad, t, e.options);
  ASSERT_EQ(moved.size(), 1u);  // gld_efficiency; not the duration itself, not the unchanged registers
  EXPECT_EQ(moved[0].metric.name, "gld_efficiency");
  EXPECT_EQ(moved[0].verdict, Verdict::slower);
  EXPECT_TRUE(moved_with(e.good, run_of(100e3, 100, 22), t, e.options).empty());
}

}  // namespace
}  // namespace gpuperf::analysis
