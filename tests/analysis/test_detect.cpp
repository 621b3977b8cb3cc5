// detect_changes() and root-cause hints on hand-built series (no store).
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/metrics.hpp"
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
  // Hints belong to duration changes only.
  for (const auto& c : changes) {
    if (c.metric.name != "duration") {
      EXPECT_TRUE(c.hints.empty());
    }
  }
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
  EXPECT_EQ(format_value(277536, "ns"), "277.5 us");
  EXPECT_EQ(format_value(1.5e6, "ns"), "1.5 ms");
  EXPECT_EQ(format_value(56.25, "%"), "56.25%");
  EXPECT_EQ(format_value(32, "count"), "32");
  EXPECT_EQ(format_value(50.4e6, "count"), "50.4M");
  EXPECT_EQ(format_value(67108864, "bytes"), "67.11 MB");
  EXPECT_EQ(format_value(812.5, "GB/s"), "812.5 GB/s");
}

}  // namespace
}  // namespace gpuperf::analysis
