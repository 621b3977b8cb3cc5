// detect_changes() and root-cause hints on hand-built series (no store).
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/metrics.hpp"
#include "core/value_text.hpp"
#include "reports/analysis/detect.hpp"

namespace gpuperf::analysis {
namespace {

BenchmarkInstance instance(const std::string& name, std::int64_t n) { return {name, Params{{"n", n}}}; }

// One series of `values` on machine "gpu-0": run ids 1..N, commits c1..cN.
db::Series make_series(const BenchmarkInstance& inst, const std::string& metric, const std::vector<double>& values) {
  db::Series s;
  s.key.machine_id = 1;
  s.key.fingerprint = "gpu-0";
  s.key.instance = inst;
  s.key.metric = metric_info_for(metric);
  for (std::size_t i = 0; i < values.size(); ++i) {
    db::SeriesPoint p;
    p.run_id = static_cast<std::int64_t>(i + 1);
    p.run_uuid = "uuid-" + std::to_string(i + 1);
    p.commit = "c" + std::to_string(i + 1);
    p.branch = "main";
    p.started_at = "2026-11-" + std::to_string(10 + i % 19) + "T02:00:00Z";
    p.summary = summarize({values[i]});
    s.points.push_back(p);
  }
  return s;
}

std::vector<double> noisy(std::size_t n, double level, double cv, std::size_t step_at, double factor,
                          std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, cv);
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(level * (i >= step_at ? factor : 1.0) * (1 + noise(rng)));
  return v;
}

TEST(Detect, ReportsRunCommitLevelsAndKind) {
  const auto s = make_series(instance("matmul/tiled", 1024), "duration", noisy(40, 277e3, 0.01, 20, 1.12, 1));
  const auto changes = detect_changes({s});
  ASSERT_EQ(changes.size(), 1u);
  const ChangePoint& c = changes[0];
  EXPECT_EQ(c.index, 20u);
  EXPECT_EQ(c.run_id, 21);
  EXPECT_EQ(c.run_uuid, "uuid-21");
  EXPECT_EQ(c.commit, "c21");
  EXPECT_EQ(c.previous_commit, "c20");
  EXPECT_EQ(c.previous_run_id, 20);
  EXPECT_EQ(c.machine, "gpu-0");
  EXPECT_EQ(c.kind, ChangeKind::regression);  // duration up: lower is better
  EXPECT_NEAR(c.change_pct, 12, 1.5);
  EXPECT_NEAR(c.before, 277e3, 3e3);
  EXPECT_GT(c.confidence, 0.995);
}

TEST(Detect, DirectionFollowsHigherIsBetter) {
  // gbps up is an improvement; duration down is one too.
  const auto gbps = make_series(instance("copy/coalesced", 1), "gbps", noisy(30, 3000, 0.01, 15, 1.2, 2));
  const auto dur = make_series(instance("copy/coalesced", 2), "duration", noisy(30, 1e5, 0.01, 15, 0.8, 3));
  const auto changes = detect_changes({gbps, dur});
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].kind, ChangeKind::improvement);
  EXPECT_EQ(changes[1].kind, ChangeKind::improvement);
  EXPECT_EQ(changes[0].series_index, 0u);
  EXPECT_EQ(changes[1].series_index, 1u);
}

TEST(Detect, SkipsExcludedAndFailedPoints) {
  auto values = noisy(40, 1e5, 0.01, 20, 1.10, 4);
  auto s = make_series(instance("stencil1d/shared", 1), "duration", values);
  // Known-bad runs at wild values: an excluded run, a failed one, and one right at the change.
  s.points[5].excluded = true;
  s.points[5].summary = summarize({5e5});
  s.points[30].status = Status::incorrect;
  s.points[30].summary = summarize({1e3});
  s.points[20].excluded = true;
  s.points[20].summary = summarize({1e5});
  const auto changes = detect_changes({s});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 21u);  // the first usable point at the new level
  EXPECT_EQ(changes[0].commit, "c22");
  EXPECT_EQ(changes[0].previous_commit, "c20");  // c21 was excluded
}

TEST(Detect, DeterministicCountersChangeAtOnce) {
  std::vector<double> regs(30, 32.0);
  for (std::size_t i = 27; i < 30; ++i) regs[i] = 40;  // only 3 runs at the new value: still a change
  const auto changes = detect_changes({make_series(instance("matmul/naive", 1), "registers", regs)});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 27u);
  EXPECT_EQ(changes[0].before, 32);
  EXPECT_EQ(changes[0].after, 40);
  EXPECT_EQ(changes[0].confidence, 1.0);
  EXPECT_EQ(changes[0].kind, ChangeKind::regression);
}

TEST(Detect, JitteryDeterministicCounterIsTreatedAsNoisy) {
  // Marked deterministic, but it moves at most runs: level-by-level it would raise ~30 changes.
  const auto v = noisy(40, 1e6, 0.002, 40, 1.0, 5);
  const auto changes = detect_changes({make_series(instance("transpose/naive", 1), "shared_bank_conflicts", v)});
  EXPECT_TRUE(changes.empty());
}

TEST(Detect, RootCauseHints) {
  const auto inst = instance("memory_access/strided", 16);
  const auto dur = make_series(inst, "duration", noisy(30, 2e5, 0.01, 18, 1.25, 6));
  std::vector<double> eff(30, 100.0), regs(30, 32.0), smem(30, 0.0);
  for (std::size_t i = 18; i < 30; ++i) {
    eff[i] = 50;
    regs[i] = 40;
  }
  const auto gld = make_series(inst, "gld_efficiency", eff);
  const auto reg = make_series(inst, "registers", regs);
  const auto shm = make_series(inst, "static_shared_bytes", smem);  // unchanged: no hint
  // The same metric of another instance changes too, but is not this instance's cause.
  std::vector<double> other(30, 16.0);
  for (std::size_t i = 18; i < 30; ++i) other[i] = 24;
  const auto elsewhere = make_series(instance("memory_access/strided", 32), "registers", other);
  const auto changes = detect_changes({dur, reg, gld, shm, elsewhere});
  const ChangePoint* d = nullptr;
  for (const auto& c : changes) {
    if (c.metric.name == "duration") d = &c;
  }
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->index, 18u);
  // In the traits table's order, whatever the order of the series.
  EXPECT_EQ(d->hints, (std::vector<std::string>{"gld_efficiency 100% -> 50%", "registers 32 -> 40"}));
  // A counter's change names the duration change of its instance at that run (the one it may explain);
  // the other instance's has none.
  std::size_t counters = 0;
  for (const auto& c : changes) {
    if (c.metric.name == "duration") continue;
    ++counters;
    if (c.instance.params == inst.params) {
      ASSERT_EQ(c.hints.size(), 1u) << c.metric.name;
      EXPECT_EQ(c.hints[0].rfind("duration 2", 0), 0u) << c.hints[0];
      EXPECT_NE(c.hints[0].find(" us -> 2"), std::string::npos) << c.hints[0];
    } else {
      EXPECT_TRUE(c.hints.empty()) << c.metric.name;
    }
  }
  EXPECT_EQ(counters, 3u);
}

// A metric measured once per run (achieved occupancy, DRAM bytes): a step on the newest night is flagged
// that night, unconfirmed, from the run medians alone; a steady history of the same spread is not.
TEST(Detect, OneValueMetricsFlaggedTheNightTheyLand) {
  const auto inst = instance("stencil1d/shared", 1 << 24);
  for (const char* metric : {"achieved_occupancy", "dram_bytes_read"}) {
    SCOPED_TRACE(metric);
    const bool occupancy = std::string(metric) == "achieved_occupancy";
    const double level = occupancy ? 84.8 : 134e6;
    const double factor = occupancy ? 0.5 : 2.0;
    // 12 nights with 2% run-to-run spread, the 13th stepped.
    const auto stepped = make_series(inst, metric, noisy(13, level, 0.02, 12, factor, 21));
    const auto changes = detect_changes({stepped});
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_TRUE(changes[0].unconfirmed);
    EXPECT_EQ(changes[0].runs_after, 1u);
    EXPECT_EQ(changes[0].run_id, 13);
    EXPECT_EQ(changes[0].kind, ChangeKind::regression);
    EXPECT_NEAR(changes[0].change_pct, (factor - 1) * 100, 5);
    // Steady: the same spread, no step, over many seeds: quiet every night.
    for (std::uint64_t seed = 100; seed < 160; ++seed) {
      const auto steady = make_series(inst, metric, noisy(13, level, 0.02, 13, 1.0, seed));
      EXPECT_TRUE(detect_changes({steady}).empty()) << "seed " << seed;
    }
  }
  // The duration of the same run moved too (raw samples, 0.5% spread): each change names the other.
  auto dur = make_series(inst, "duration", noisy(13, 1e5, 0.003, 12, 1.76, 22));
  std::mt19937_64 rng(23);
  std::normal_distribution<double> spread(0, 0.005);
  for (auto& p : dur.points) {
    for (int i = 0; i < 60; ++i) p.samples.push_back(p.summary.median * (1 + spread(rng)));
    p.summary = summarize(p.samples);
  }
  const auto occ = make_series(inst, "achieved_occupancy", noisy(13, 84.8, 0.02, 12, 0.5, 21));
  const auto changes = detect_changes({dur, occ});
  ASSERT_EQ(changes.size(), 2u);
  const ChangePoint& d = changes[0].metric.name == "duration" ? changes[0] : changes[1];
  const ChangePoint& o = changes[0].metric.name == "duration" ? changes[1] : changes[0];
  EXPECT_TRUE(d.unconfirmed);
  EXPECT_TRUE(o.unconfirmed);
  ASSERT_EQ(d.hints.size(), 1u);
  EXPECT_EQ(d.hints[0].rfind("achieved_occupancy 8", 0), 0u) << d.hints[0];
  ASSERT_EQ(o.hints.size(), 1u);
  EXPECT_EQ(o.hints[0].rfind("duration ", 0), 0u) << o.hints[0];
  EXPECT_NE(o.hints[0].find(" us -> 17"), std::string::npos) << o.hints[0];
}

TEST(Detect, RecentKeepsOnlyNewChanges) {
  const auto s = make_series(instance("vector_add/add", 1), "duration", noisy(40, 1e4, 0.01, 20, 1.1, 7));
  DetectOptions o;
  o.recent = 10;
  EXPECT_TRUE(detect_changes({s}, o).empty());
  o.recent = 20;
  EXPECT_EQ(detect_changes({s}, o).size(), 1u);
}

TEST(Detect, TooShortSeriesRaiseNothing) {
  const auto s = make_series(instance("vector_add/add", 1), "duration", {100, 101, 99, 150, 151, 149, 150});
  EXPECT_TRUE(detect_changes({s}).empty());
}

TEST(Detect, ThresholdPerMetric) {
  const auto s = make_series(instance("vector_add/add", 1), "duration", noisy(40, 1e4, 0.002, 20, 1.03, 8));
  EXPECT_EQ(detect_changes({s}).size(), 1u);
  DetectOptions o;
  o.thresholds.apply("duration=5");
  EXPECT_TRUE(detect_changes({s}, o).empty());
}

TEST(Detect, FormatValue) {
  EXPECT_EQ(format_value(277536, "ns", UnitText::terminal), "277.5 us");
  EXPECT_EQ(format_value(1.5e6, "ns", UnitText::terminal), "1.5 ms");
  EXPECT_EQ(format_value(56.25, "%", UnitText::terminal), "56.25%");
  EXPECT_EQ(format_value(32, "count", UnitText::terminal), "32");
  EXPECT_EQ(format_value(50.4e6, "count", UnitText::terminal), "50.4M");
  EXPECT_EQ(format_value(67108864, "bytes", UnitText::terminal), "67.11 MB");
  EXPECT_EQ(format_value(812.5, "GB/s", UnitText::terminal), "812.5 GB/s");
}

}  // namespace
}  // namespace gpuperf::analysis
