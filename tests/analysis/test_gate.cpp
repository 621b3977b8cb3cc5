// The gate set (gate.hpp) and how a one-value sampled counter is judged (compare_history.hpp): which rows fail
// a job, checked names, the practical floors of stall ratios and the suite's noise as a prior.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "reports/analysis/compare.hpp"
#include "reports/analysis/gate.hpp"

namespace gpuperf::analysis {
namespace {

gpuperf::Run run_of(const std::string& commit, const std::string& started_at) {
  gpuperf::Run run;
  run.uuid = "uuid-" + commit;
  run.commit = commit;
  run.branch = "main";
  run.started_at = started_at;
  run.machine.gpu_uuid = "GPU-1";
  return run;
}

Result result_of(const std::string& name, std::vector<Measurement> metrics) {
  Result r;
  r.instance = {name, Params{{"n", std::int64_t{1024}}}};
  r.metrics = std::move(metrics);
  return r;
}

Measurement duration(double level, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.003);
  Measurement m;
  m.metric = metric_info_for("duration");
  for (int i = 0; i < 60; ++i) m.samples.push_back(level * (1 + noise(rng)));
  m.summary = summarize(m.samples);
  return m;
}

// The series of one instance and metric: one level per earlier nightly run (October 1st, 2nd, ...).
db::Series series_of(const std::string& name, const std::string& metric, const std::vector<double>& levels) {
  db::Series s;
  s.key.instance = {name, Params{{"n", std::int64_t{1024}}}};
  s.key.metric = metric_info_for(metric);
  for (std::size_t i = 0; i < levels.size(); ++i) {
    db::SeriesPoint p;
    p.run_id = static_cast<std::int64_t>(i + 1);
    p.started_at = "2026-10-0" + std::to_string(1 + i) + "T02:00:00Z";
    p.summary = summarize({levels[i]});
    s.points.push_back(p);
  }
  return s;
}

TEST(Gate, DefaultGatesDurationAndTheDeterministicCountersOnly) {
  const GateSet gate;
  for (const char* name : {"duration", "instructions", "gld_efficiency", "gst_efficiency", "shared_load_transactions",
                           "shared_bank_conflicts", "registers", "local_bytes", "static_shared_bytes",
                           "theoretical_occupancy", "launches"}) {
    EXPECT_TRUE(gate.gates(metric_info_for(name))) << name;
  }
  for (const char* name : {"stall_not_selected", "stall_long_scoreboard", "issue_active", "achieved_occupancy",
                           "dram_bytes_read", "sm_throughput", "dram_throughput", "gbps", "gpu_time_total"}) {
    EXPECT_FALSE(gate.gates(metric_info_for(name))) << name;
  }
  GateSet more;
  more.add("stall_barrier, achieved_occupancy");
  EXPECT_TRUE(more.gates(metric_info_for("stall_barrier")));
  EXPECT_TRUE(more.gates(metric_info_for("achieved_occupancy")));
  EXPECT_FALSE(more.gates(metric_info_for("issue_active")));
  EXPECT_EQ(more.describe(),
            "duration, failed or incorrect kernels, deterministic counters + achieved_occupancy, stall_barrier");
  GateSet all;
  all.add("all");
  EXPECT_TRUE(all.gates(metric_info_for("issue_active")));
  EXPECT_EQ(all.added(), std::vector<std::string>{"all"});
}

TEST(Gate, UnknownNamesAreRefusedWithTheCloseOnes) {
  GateSet gate;
  try {
    gate.add("stall_barier");
    FAIL() << "accepted an unknown metric";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("--gate: expected a metric name, got 'stall_barier'; did you mean stall_barrier"),
        std::string::npos)
        << e.what();
  }
  EXPECT_THROW(gate.add("duration,,registers"), InputError);
  EXPECT_NO_THROW(gate.add("dram__bytes_read.sum"));  // a raw Perfworks name
  Thresholds t;
  EXPECT_THROW(t.apply("duraton=3"), InputError);  // a typo must not leave the floor at 2%
  EXPECT_NO_THROW(t.apply("duration=3"));
  EXPECT_EQ(unknown_metric("registers"), "");
  EXPECT_NE(unknown_metric("duraton").find("did you mean duration"), std::string::npos);
}

// Issue 39's A/A on an H100: three nightly runs of main, then a check of the same build. A stall ratio moved
// by 2.5% against a band of 0.2853 to 0.2857 (nothing else moved) and failed the job.
TEST(Gate, ASampledCounterMovingAloneIsListedNotFailed) {
  const std::vector<db::Series> history{series_of("memory/strided", "stall_not_selected", {0.2853, 0.2857, 0.2855}),
                                        series_of("memory/strided", "duration", {1e5, 1e5, 1e5})};
  gpuperf::Run base = run_of("aaaa", "2026-10-03T02:00:00Z");
  gpuperf::Run cand = run_of("bbbb", "2026-10-04T02:00:00Z");
  base.results = {result_of("memory/strided", {duration(1e5, 1), single_value("stall_not_selected", 0.2855)})};
  const auto judged = [&](double stall, double dur, const CompareOptions& o = {}) {
    cand.results = {result_of("memory/strided", {duration(dur, 2), single_value("stall_not_selected", stall)})};
    return compare_runs(base, cand, o, 3, 4, &history);
  };
  // +2.5%: within a stall ratio's practical floor (10%): same.
  CompareReport rep = judged(0.2924, 1e5);
  ASSERT_EQ(rep.rows.size(), 2u);
  EXPECT_EQ(rep.rows[1].metric.name, "stall_not_selected");
  EXPECT_EQ(rep.rows[1].verdict, Verdict::same) << rep.rows[1].note;
  EXPECT_FALSE(rep.regression());
  // +40%: slower, listed, but it does not gate: the job passes.
  rep = judged(0.40, 1e5);
  EXPECT_EQ(rep.rows[1].verdict, Verdict::slower) << rep.rows[1].note;
  EXPECT_FALSE(rep.rows[1].gated);
  EXPECT_TRUE(is_ungated_slowdown(rep.rows[1]));
  EXPECT_FALSE(rep.regression());
  CompareOptions gated;
  gated.gate.add("stall_not_selected");
  EXPECT_TRUE(judged(0.40, 1e5, gated).regression());
  // The duration moving fails the job, and names the stall among its hints.
  rep = judged(0.40, 1.2e5);
  EXPECT_EQ(rep.rows[0].verdict, Verdict::slower);
  EXPECT_TRUE(rep.rows[0].gated);
  EXPECT_TRUE(rep.regression());
  EXPECT_NE(rep.rows[0].note.find("stall_not_selected"), std::string::npos) << rep.rows[0].note;
}

TEST(Gate, ADeterministicCounterMovingAloneFailsTheJob) {
  gpuperf::Run base = run_of("aaaa", "2026-10-03T02:00:00Z");
  gpuperf::Run cand = run_of("bbbb", "2026-10-04T02:00:00Z");
  base.results = {result_of("matmul/tiled", {duration(1e5, 3), single_value("instructions", 37.7e6)})};
  cand.results = {result_of("matmul/tiled", {duration(1e5, 4), single_value("instructions", 39.1e6)})};
  const CompareReport rep = compare_runs(base, cand, {});
  ASSERT_EQ(rep.rows.size(), 2u);
  EXPECT_EQ(rep.rows[0].verdict, Verdict::same);
  EXPECT_EQ(rep.rows[1].verdict, Verdict::slower);
  EXPECT_TRUE(rep.rows[1].gated);
  EXPECT_TRUE(rep.regression());
}

// Three runs that happen to agree to 0.1% do not make a +12.5% run new when the metric's runs wobble by 4% on
// every other kernel of the suite: the suite's spread is the prior of a short series.
TEST(Gate, TheSuitesNoiseJudgesAShortSeries) {
  std::vector<db::Series> history{series_of("stencil1d/shared", "stall_long_scoreboard", {2.000, 2.002, 1.998})};
  gpuperf::Run base = run_of("aaaa", "2026-10-03T02:00:00Z");
  gpuperf::Run cand = run_of("bbbb", "2026-10-04T02:00:00Z");
  base.results = {result_of("stencil1d/shared", {single_value("stall_long_scoreboard", 2.0)})};
  cand.results = {result_of("stencil1d/shared", {single_value("stall_long_scoreboard", 2.25)})};
  // Alone: its own three runs are all the evidence, and +12.5% is far outside them.
  EXPECT_EQ(compare_runs(base, cand, {}, 3, 4, &history).rows[0].verdict, Verdict::slower);
  // With the suite: three other kernels whose runs move by about 4%.
  history.push_back(series_of("memory/strided", "stall_long_scoreboard", {5.0, 5.2, 4.8}));
  history.push_back(series_of("matmul/naive", "stall_long_scoreboard", {1.0, 0.96, 1.04}));
  history.push_back(series_of("transpose/naive", "stall_long_scoreboard", {3.0, 3.12, 2.88}));
  const CompareRow row = compare_runs(base, cand, {}, 3, 4, &history).rows[0];
  EXPECT_EQ(row.verdict, Verdict::ambiguous) << row.note;
  EXPECT_NE(row.note.find("within the 99% prediction bound"), std::string::npos) << row.note;
  // A real change still stands out: twice the stalls.
  cand.results = {result_of("stencil1d/shared", {single_value("stall_long_scoreboard", 4.0)})};
  EXPECT_EQ(compare_runs(base, cand, {}, 3, 4, &history).rows[0].verdict, Verdict::slower);
}

}  // namespace
}  // namespace gpuperf::analysis
