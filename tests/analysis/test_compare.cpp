// Every verdict of compare, direction handling, deterministic counters and clock confirmation, on fake
// samples with known statistics.
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "reports/analysis/compare.hpp"

namespace gpuperf::analysis {
namespace {

// `n` samples around `level` with relative noise `cv`, optionally each with an SM clock.
Measurement samples(const std::string& metric, double level, double cv, std::size_t n, std::uint64_t seed,
                    double clock_mhz = 0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, cv);
  Measurement m;
  m.metric = metric_info_for(metric);
  for (std::size_t i = 0; i < n; ++i) {
    m.samples.push_back(level * (1 + noise(rng)));
    if (clock_mhz > 0) m.sm_clock_mhz.push_back(clock_mhz);
  }
  m.summary = summarize(m.samples);
  return m;
}

Measurement value(const std::string& metric, double v) { return single_value(metric, v); }

CompareRow cmp(const Measurement& b, const Measurement& c, const CompareOptions& o = {}) {
  return compare_measurement(&b, Status::ok, &c, Status::ok, o);
}

TEST(Compare, SameOnARerun) {
  const CompareRow r = cmp(samples("duration", 277e3, 0.01, 60, 1), samples("duration", 277e3, 0.01, 60, 2));
  EXPECT_EQ(r.verdict, Verdict::same);
  EXPECT_FALSE(is_regression(r));
  EXPECT_NEAR(r.change_pct, 0, 0.6);
  EXPECT_LT(r.ci_low_pct, 0.6);
  EXPECT_GT(r.ci_high_pct, -0.6);
}

TEST(Compare, SlowerAndFasterDuration) {
  CompareRow r = cmp(samples("duration", 1e5, 0.01, 50, 3), samples("duration", 1.1e5, 0.01, 50, 4));
  EXPECT_EQ(r.verdict, Verdict::slower);
  EXPECT_TRUE(is_regression(r));
  EXPECT_NEAR(r.change_pct, 10, 1);
  EXPECT_LT(r.p_value, 1e-10);
  EXPECT_LT(r.welch_p_value, 1e-10);
  EXPECT_GT(r.ci_low_pct, 8);
  EXPECT_LT(r.ci_high_pct, 12);
  r = cmp(samples("duration", 1e5, 0.01, 50, 5), samples("duration", 0.9e5, 0.01, 50, 6));
  EXPECT_EQ(r.verdict, Verdict::faster);
  EXPECT_FALSE(is_regression(r));
}

TEST(Compare, DirectionFromHigherIsBetter) {
  // GB/s up is better: "faster"; down is worse: "slower".
  EXPECT_EQ(cmp(samples("gbps", 3000, 0.01, 30, 7), samples("gbps", 3300, 0.01, 30, 8)).verdict, Verdict::faster);
  EXPECT_EQ(cmp(samples("gbps", 3000, 0.01, 30, 9), samples("gbps", 2700, 0.01, 30, 10)).verdict, Verdict::slower);
}

TEST(Compare, TwoModesOfOneKernelAreNotAChange) {
  // transpose/padded[n=4096] on an H200, one binary run twice (ns): the first run sits mostly in a 35.4 us
  // mode, the second in a 34.1 us mode. Mann-Whitney sees -3.3% with p ~ 1e-6, but the first run itself
  // produced the second's level.
  Measurement b = value("duration", 0), c = value("duration", 0);
  b.samples = {33920, 35232, 35295, 35263, 35264, 35520, 35457, 35488, 35360, 35456, 35424,
               35552, 35456, 35296, 35327, 35296, 35392, 35615, 33983, 34400, 34272, 33984,
               34112, 34112, 34176, 35392, 35489, 35392, 35680, 35456, 35583, 35360, 33952};
  c.samples = {35295, 34240, 33984, 34176, 34272, 34272, 34048, 34239, 34399, 34112, 34176, 34176, 34208,
               34240, 34208, 34143, 34111, 34048, 34016, 34079, 34336, 34144, 34272, 34207, 34239};
  b.summary = summarize(b.samples);
  c.summary = summarize(c.samples);
  const CompareRow r = cmp(b, c);
  EXPECT_LT(r.p_value, 1e-4);
  EXPECT_LT(r.change_pct, -3);
  EXPECT_EQ(r.verdict, Verdict::ambiguous);
  EXPECT_NE(r.note.find("10-90% range"), std::string::npos) << r.note;
  // A noisy kernel (2% spread) that really moves 5%: still "slower".
  EXPECT_EQ(cmp(samples("duration", 1e5, 0.02, 40, 40), samples("duration", 1.05e5, 0.02, 40, 41)).verdict,
            Verdict::slower);
}

TEST(Compare, RealButBelowTheFloorIsSame) {
  // 1% slower, measured precisely: significant, but under the 2% duration floor.
  const CompareRow r = cmp(samples("duration", 1e5, 0.001, 100, 11), samples("duration", 1.01e5, 0.001, 100, 12));
  EXPECT_LT(r.p_value, 1e-6);
  EXPECT_EQ(r.verdict, Verdict::same);
  EXPECT_EQ(r.min_effect_pct, 2.0);
}

TEST(Compare, AmbiguousWithoutEvidence) {
  // Three noisy samples a side: a 6% difference that no test can back (3 vs 3 cannot reach p < 0.01).
  Measurement b = value("duration", 0), c = value("duration", 0);
  b.samples = {100, 108, 95};
  c.samples = {106, 112, 101};
  b.summary = summarize(b.samples);
  c.summary = summarize(c.samples);
  const CompareRow r = cmp(b, c);
  EXPECT_EQ(r.verdict, Verdict::ambiguous);
  EXPECT_FALSE(is_regression(r));
  EXPECT_NE(r.note.find("not significant"), std::string::npos);
}

TEST(Compare, ThresholdOverride) {
  CompareOptions o;
  o.thresholds.apply("duration=15%");
  const CompareRow r = cmp(samples("duration", 1e5, 0.01, 50, 13), samples("duration", 1.1e5, 0.01, 50, 14), o);
  EXPECT_EQ(r.verdict, Verdict::same);  // the whole interval (about +9..+11%) lies inside +-15%
  EXPECT_EQ(r.min_effect_pct, 15.0);
  EXPECT_THROW(o.thresholds.apply("duration"), InputError);
  EXPECT_THROW(o.thresholds.apply("duration=fast"), InputError);
  EXPECT_THROW(o.thresholds.apply("=3"), InputError);
  o.thresholds.apply("*=4");
  EXPECT_EQ(o.thresholds.min_effect_for(metric_info_for("achieved_occupancy")), 5.0);  // named default stays
  EXPECT_EQ(o.thresholds.min_effect_for(metric_info_for("my_custom.avg")), 4.0);
}

TEST(Compare, NewMissingFailed) {
  const Measurement m = samples("duration", 1e5, 0.01, 20, 15);
  EXPECT_EQ(compare_measurement(nullptr, Status::ok, &m, Status::ok, {}).verdict, Verdict::new_);
  EXPECT_EQ(compare_measurement(&m, Status::ok, nullptr, Status::ok, {}).verdict, Verdict::missing);

  Measurement bad = m;
  bad.message = "max abs error 3.2e-1 at element 17";
  CompareRow r = compare_measurement(&m, Status::ok, &bad, Status::incorrect, {});
  EXPECT_EQ(r.verdict, Verdict::failed);
  EXPECT_TRUE(is_regression(r));  // it used to give the right answer
  EXPECT_NE(r.note.find("candidate incorrect: max abs error"), std::string::npos);
  // Failed on both sides (e.g. a profiler error): "failed", not a regression, one note.
  r = compare_measurement(&bad, Status::incorrect, &bad, Status::incorrect, {});
  EXPECT_EQ(r.verdict, Verdict::failed);
  EXPECT_FALSE(is_regression(r));
  EXPECT_EQ(r.note, "both incorrect: max abs error 3.2e-1 at element 17");
  // A new instance that fails: "failed", and not a regression of compare (check exits 4 on it).
  EXPECT_FALSE(is_regression(compare_measurement(nullptr, Status::ok, &bad, Status::incorrect, {})));
  // A base that failed and a candidate that works: "failed", but not a regression.
  r = compare_measurement(&bad, Status::failed, &m, Status::ok, {});
  EXPECT_EQ(r.verdict, Verdict::failed);
  EXPECT_FALSE(is_regression(r));
  // A metric that failed on its own (the instance was fine).
  Measurement metric_failed = m;
  metric_failed.status = Status::unsupported;
  r = compare_measurement(&m, Status::ok, &metric_failed, Status::ok, {});
  EXPECT_EQ(r.verdict, Verdict::failed);
  EXPECT_EQ(r.candidate_status, Status::unsupported);
}

TEST(Compare, DeterministicCounters) {
  CompareRow r = cmp(value("gld_efficiency", 100), value("gld_efficiency", 50));
  EXPECT_EQ(r.verdict, Verdict::slower);  // efficiency down is worse
  EXPECT_EQ(r.change_pct, -50);
  EXPECT_EQ(r.p_value, 1);
  EXPECT_EQ(cmp(value("registers", 32), value("registers", 40)).verdict, Verdict::slower);
  EXPECT_EQ(cmp(value("registers", 40), value("registers", 32)).verdict, Verdict::faster);
  EXPECT_EQ(cmp(value("shared_load_transactions", 50.4e6), value("shared_load_transactions", 50.4e6 + 1)).verdict,
            Verdict::same);  // 2e-8 relative: rounding
  EXPECT_EQ(cmp(value("gld_efficiency", 100), value("gld_efficiency", 99.9)).verdict,
            Verdict::slower);  // 0.1%: small, but a deterministic counter does not move by itself
  // Nearly deterministic on real hardware: shared wavefronts jitter by tenths of a percent, bank conflicts
  // by a few percent of a small count; a real change is 2x.
  EXPECT_EQ(cmp(value("shared_load_transactions", 50.4e6), value("shared_load_transactions", 50.5e6)).verdict,
            Verdict::same);
  EXPECT_EQ(cmp(value("shared_store_transactions", 4.5e6), value("shared_store_transactions", 9e6)).verdict,
            Verdict::slower);
  EXPECT_EQ(cmp(value("shared_bank_conflicts", 832), value("shared_bank_conflicts", 960)).verdict, Verdict::same);
  EXPECT_EQ(cmp(value("shared_bank_conflicts", 80e3), value("shared_bank_conflicts", 16.5e6)).verdict, Verdict::slower);
  EXPECT_EQ(cmp(value("gld_efficiency", 100), value("gld_efficiency", 100.0000001)).verdict, Verdict::same);
  EXPECT_EQ(cmp(value("local_bytes", 0), value("local_bytes", 0)).verdict, Verdict::same);
  EXPECT_EQ(cmp(value("local_bytes", 0), value("local_bytes", 16)).verdict, Verdict::slower);
}

TEST(Compare, SingleValuesOfNoisyMetrics) {
  EXPECT_EQ(cmp(value("achieved_occupancy", 80), value("achieved_occupancy", 77)).verdict, Verdict::same);
  // DRAM bytes: a few kB of incidental write-back is not +188%; 1 MB and 5% are the floors.
  EXPECT_EQ(cmp(value("dram_bytes_written", 21.76e3), value("dram_bytes_written", 62.72e3)).verdict, Verdict::same);
  EXPECT_EQ(cmp(value("dram_bytes_written", 57.6e6), value("dram_bytes_written", 58.5e6)).verdict, Verdict::same);
  EXPECT_EQ(cmp(value("dram_bytes_read", 67e6), value("dram_bytes_read", 134e6)).verdict, Verdict::ambiguous);
  const CompareRow r = cmp(value("achieved_occupancy", 80), value("achieved_occupancy", 60));
  EXPECT_EQ(r.verdict, Verdict::ambiguous);
  EXPECT_NE(r.note.find("no test"), std::string::npos);
}

// A run whose samples `gpuperf db prune` removed keeps its summary: its median is compared like a single
// value (no rank test), and the row says why.
TEST(Compare, PrunedSamplesCompareMediansOnly) {
  const auto pruned = [](Measurement m) {
    m.samples.clear();
    m.sm_clock_mhz.clear();
    return m;
  };
  const Measurement base = samples("duration", 1000, 0.01, 300, 1);
  const Measurement slower = samples("duration", 1300, 0.01, 300, 2);
  const CompareRow both = cmp(pruned(base), pruned(slower));
  EXPECT_TRUE(both.samples_pruned);
  EXPECT_EQ(both.verdict, Verdict::ambiguous) << "no samples to rank: no test, only the size of the difference";
  EXPECT_EQ(both.note, "samples pruned: medians only, no test");
  EXPECT_NEAR(both.change_pct, 30, 1);
  const CompareRow one_side = cmp(pruned(base), slower);
  EXPECT_TRUE(one_side.samples_pruned);
  EXPECT_EQ(one_side.verdict, Verdict::ambiguous);
  const CompareRow rerun = cmp(pruned(base), pruned(samples("duration", 1000, 0.01, 300, 3)));
  EXPECT_EQ(rerun.verdict, Verdict::same);
  EXPECT_EQ(rerun.note, "samples pruned: medians only");
  // With samples on both sides nothing changes: the rank test decides.
  const CompareRow tested = cmp(base, slower);
  EXPECT_FALSE(tested.samples_pruned);
  EXPECT_EQ(tested.verdict, Verdict::slower);
}

TEST(Compare, ClockChangeThatExplainsTheSlowdown) {
  // Same cycles, lower clock: 1980 -> 1755 MHz makes every sample 12.8% longer.
  const Measurement b = samples("duration", 1e5, 0.005, 50, 16, 1980);
  const Measurement c = samples("duration", 1e5 * 1980 / 1755, 0.005, 50, 17, 1755);
  const CompareRow r = cmp(b, c);
  EXPECT_EQ(r.verdict, Verdict::ambiguous);
  EXPECT_FALSE(r.confirmed_in_cycles);
  EXPECT_FALSE(is_regression(r));
  EXPECT_NEAR(r.change_pct, 12.8, 1);
  EXPECT_EQ(r.base_clock_mhz, 1980);
  EXPECT_EQ(r.candidate_clock_mhz, 1755);
  EXPECT_NE(r.note.find("clock 1980 -> 1755 MHz"), std::string::npos);
  EXPECT_NE(r.note.find("not confirmed"), std::string::npos);
}

TEST(Compare, ClockChangeThatDoesNotExplainIt) {
  // 25% longer on a 11% lower clock: still 11% more cycles.
  const CompareRow r =
      cmp(samples("duration", 1e5, 0.005, 50, 18, 1980), samples("duration", 1.25e5, 0.005, 50, 19, 1755));
  EXPECT_EQ(r.verdict, Verdict::slower);
  EXPECT_TRUE(r.confirmed_in_cycles);
  EXPECT_NE(r.note.find("confirmed"), std::string::npos);
  // Same clock: no cycle check, no clock note.
  const CompareRow s =
      cmp(samples("duration", 1e5, 0.005, 50, 20, 1980), samples("duration", 1.25e5, 0.005, 50, 21, 1980));
  EXPECT_EQ(s.verdict, Verdict::slower);
  EXPECT_EQ(s.note.find("clock"), std::string::npos);
}

Run make_run(const std::string& commit) {
  Run run;
  run.uuid = "uuid-" + commit;
  run.commit = commit;
  run.branch = "main";
  run.started_at = "2026-11-01T02:00:00Z";
  run.machine.hostname = "node1";
  run.machine.gpu_name = "NVIDIA H200";
  run.machine.gpu_uuid = "GPU-1234";
  return run;
}

Result result(const std::string& name, std::int64_t n, std::vector<Measurement> metrics, Status st = Status::ok) {
  Result r;
  r.instance = {name, Params{{"n", n}}};
  r.metrics = std::move(metrics);
  r.status = st;
  return r;
}

TEST(Compare, RunsRowsOrderAndHints) {
  gpuperf::Run base = make_run("aaaa");
  gpuperf::Run cand = make_run("bbbb");
  base.results.push_back(
      result("matmul/tiled", 1024,
             {value("registers", 32), samples("duration", 2.77e5, 0.01, 40, 22), value("gld_efficiency", 100)}));
  cand.results.push_back(
      result("matmul/tiled", 1024,
             {samples("duration", 3.3e5, 0.01, 40, 23), value("gld_efficiency", 50), value("registers", 40)}));
  base.results.push_back(result("copy/gone", 1, {samples("duration", 1e4, 0.01, 20, 24)}));
  cand.results.push_back(result("copy/new", 1, {samples("duration", 1e4, 0.01, 20, 25)}));
  base.results.push_back(result("stencil1d/shared", 4096, {samples("duration", 5e4, 0.01, 20, 26)}));
  Result broken = result("stencil1d/shared", 4096, {}, Status::failed);
  broken.message = "cudaErrorIllegalAddress";
  cand.results.push_back(broken);

  const CompareReport rep = compare_runs(base, cand, {}, 7, 9);
  ASSERT_EQ(rep.rows.size(), 6u);
  // Instances by name; metrics in the traits table's order (duration, gld_efficiency, ..., registers).
  EXPECT_EQ(rep.rows[0].instance.name, "copy/gone");
  EXPECT_EQ(rep.rows[0].verdict, Verdict::missing);
  EXPECT_EQ(rep.rows[1].instance.name, "copy/new");
  EXPECT_EQ(rep.rows[1].verdict, Verdict::new_);
  EXPECT_EQ(rep.rows[2].metric.name, "duration");
  EXPECT_EQ(rep.rows[2].verdict, Verdict::slower);
  EXPECT_NE(rep.rows[2].note.find("with gld_efficiency 100% -> 50%, registers 32 -> 40"), std::string::npos);
  EXPECT_EQ(rep.rows[3].metric.name, "gld_efficiency");
  EXPECT_EQ(rep.rows[4].metric.name, "registers");
  EXPECT_EQ(rep.rows[5].instance.name, "stencil1d/shared");
  EXPECT_EQ(rep.rows[5].verdict, Verdict::failed);
  EXPECT_NE(rep.rows[5].note.find("cudaErrorIllegalAddress"), std::string::npos);
  EXPECT_EQ(rep.rows[2].machine, "GPU-1234");
  EXPECT_TRUE(rep.regression());
  EXPECT_EQ(rep.base.run_id, 7);
  EXPECT_EQ(rep.candidate.commit, "bbbb");
}

TEST(Compare, DerivedSingleValuesFollowTheDuration) {
  gpuperf::Run base = make_run("aaaa");
  gpuperf::Run cand = make_run("bbbb");
  base.results.push_back(result("copy/coalesced", 1, {samples("duration", 1e5, 0.01, 40, 30), value("gbps", 1342)}));
  cand.results.push_back(result("copy/coalesced", 1, {samples("duration", 1.2e5, 0.01, 40, 31), value("gbps", 1118)}));
  base.results.push_back(result("copy/coalesced", 2, {samples("duration", 1e5, 0.01, 40, 32), value("gbps", 1342)}));
  cand.results.push_back(result("copy/coalesced", 2, {samples("duration", 1e5, 0.01, 40, 33), value("gbps", 1340)}));
  const CompareReport rep = compare_runs(base, cand, {});
  ASSERT_EQ(rep.rows.size(), 4u);
  EXPECT_EQ(rep.rows[0].verdict, Verdict::slower);
  EXPECT_EQ(rep.rows[1].metric.name, "gbps");
  EXPECT_EQ(rep.rows[1].verdict, Verdict::slower);  // GB/s down: worse, backed by the duration's test
  EXPECT_EQ(rep.rows[1].p_value, rep.rows[0].p_value);
  EXPECT_LT(rep.rows[1].ci_high_pct, -10);
  EXPECT_EQ(rep.rows[3].verdict, Verdict::same);
}

db::Series history_of(const std::string& name, std::int64_t n, const std::vector<double>& medians,
                      const std::string& metric = "duration") {
  db::Series s;
  s.key.instance = {name, Params{{"n", n}}};
  s.key.metric = metric_info_for(metric);
  for (std::size_t i = 0; i < medians.size(); ++i) {
    db::SeriesPoint p;
    p.run_id = static_cast<std::int64_t>(i + 1);
    p.started_at = "2026-10-0" + std::to_string(1 + i % 9) + "T02:00:00Z";
    p.summary = summarize({medians[i]});
    s.points.push_back(p);
  }
  return s;
}

TEST(Compare, ALevelTheMachineProducedBeforeIsNotAChange) {
  // transpose/padded on an H200 sits at 34.1 or 35.4 us for a whole run. With history that shows both, a
  // rerun at 35.4 after one at 34.1 is ambiguous; a new level outside the range is still a change.
  gpuperf::Run base = make_run("aaaa");
  gpuperf::Run cand = make_run("aaaa");
  cand.uuid = "uuid-rerun";
  cand.started_at = "2026-10-10T02:00:00Z";
  base.results.push_back(result("transpose/padded", 4096, {samples("duration", 34.1e3, 0.003, 33, 50)}));
  cand.results.push_back(result("transpose/padded", 4096, {samples("duration", 35.4e3, 0.003, 33, 51)}));
  const std::vector<db::Series> history{
      history_of("transpose/padded", 4096, {34.1e3, 35.4e3, 34.2e3, 34.1e3, 35.3e3, 34.1e3})};
  CompareReport rep = compare_runs(base, cand, {}, 0, 0, &history);
  ASSERT_EQ(rep.rows.size(), 1u);
  EXPECT_EQ(rep.rows[0].verdict, Verdict::ambiguous);
  EXPECT_NE(rep.rows[0].note.find("within the last 6 runs' range (34.1 us to 35.4 us)"), std::string::npos)
      << rep.rows[0].note;
  EXPECT_FALSE(rep.regression());
  // Without history, or off: a change.
  EXPECT_EQ(compare_runs(base, cand, {}).rows[0].verdict, Verdict::slower);
  CompareOptions off;
  off.history_runs = 0;
  EXPECT_EQ(compare_runs(base, cand, off, 0, 0, &history).rows[0].verdict, Verdict::slower);
  // A level never seen: still slower.
  cand.results[0] = result("transpose/padded", 4096, {samples("duration", 37.5e3, 0.003, 33, 52)});
  EXPECT_EQ(compare_runs(base, cand, {}, 0, 0, &history).rows[0].verdict, Verdict::slower);
  // Runs after the candidate do not count.
  cand.results[0] = result("transpose/padded", 4096, {samples("duration", 35.4e3, 0.003, 33, 51)});
  cand.started_at = "2026-10-02T00:00:00Z";  // only the first point (34.1) is older
  EXPECT_EQ(compare_runs(base, cand, {}, 0, 0, &history).rows[0].verdict, Verdict::slower);
}

// Achieved occupancy and DRAM bytes are measured once per run: no test between two runs, so the base
// branch's earlier runs on the machine judge the candidate's value.
TEST(Compare, OneValueMetricsJudgedAgainstTheHistory) {
  const std::vector<double> occupancy{80, 89, 84, 86, 82, 88, 85, 83, 87, 81};  // median 84.5, sd 3.03
  std::vector<double> dram;
  for (double o : occupancy) dram.push_back(134e6 * o / 84.5);
  const std::vector<db::Series> history{history_of("stencil1d/shared", 1 << 24, occupancy, "achieved_occupancy"),
                                        history_of("stencil1d/shared", 1 << 24, dram, "dram_bytes_read")};
  gpuperf::Run base = make_run("aaaa");
  gpuperf::Run cand = make_run("bbbb");
  cand.started_at = "2026-11-02T02:00:00Z";
  base.results.push_back(result("stencil1d/shared", 1 << 24,
                                {value("achieved_occupancy", 81), value("dram_bytes_read", 134e6 * 81 / 84.5)}));
  const auto with = [&](double occ, double bytes, std::size_t runs = 10) {
    cand.results = {
        result("stencil1d/shared", 1 << 24, {value("achieved_occupancy", occ), value("dram_bytes_read", bytes)})};
    CompareOptions o;
    o.history_runs = runs;
    return compare_runs(base, cand, o, 0, 0, &history);
  };
  // Halved occupancy, doubled DRAM bytes: slower, both.
  CompareReport rep = with(41.9, 268e6);
  ASSERT_EQ(rep.rows.size(), 2u);
  EXPECT_EQ(rep.rows[0].metric.name, "achieved_occupancy");
  EXPECT_EQ(rep.rows[0].verdict, Verdict::slower) << rep.rows[0].note;
  EXPECT_NE(rep.rows[0].note.find("one value: outside the last 10 runs' range (80% to 89%) and the 99% prediction "
                                  "bound 84.5% +- 10.3"),
            std::string::npos)
      << rep.rows[0].note;
  EXPECT_EQ(rep.rows[1].verdict, Verdict::slower) << rep.rows[1].note;
  // Sampled counters are listed, not gated (gate.hpp): no regression unless the user gates on them.
  EXPECT_FALSE(rep.rows[0].gated);
  EXPECT_FALSE(rep.regression());
  {
    CompareOptions gated;
    gated.gate.add("achieved_occupancy");
    const CompareReport g = compare_runs(base, cand, gated, 0, 0, &history);
    EXPECT_TRUE(g.rows[0].gated);
    EXPECT_FALSE(g.rows[1].gated);
    EXPECT_TRUE(g.regression());
  }
  // Higher occupancy, fewer bytes: faster.
  rep = with(120, 60e6);
  EXPECT_EQ(rep.rows[0].verdict, Verdict::faster);
  EXPECT_EQ(rep.rows[1].verdict, Verdict::faster);
  // +8.6% on the base but inside the range the machine produced: same (a rerun of the same binary).
  rep = with(88, 134e6 * 88 / 84.5);
  EXPECT_EQ(rep.rows[0].verdict, Verdict::same) << rep.rows[0].note;
  EXPECT_NE(rep.rows[0].note.find("within 5% of the last 10 runs' range"), std::string::npos) << rep.rows[0].note;
  EXPECT_EQ(rep.rows[1].verdict, Verdict::same) << rep.rows[1].note;
  EXPECT_FALSE(rep.regression());
  // Beyond the range and its 5% (93.45%) but inside the prediction bound (94.8%): the spread is too wide.
  rep = with(94, 134e6);
  EXPECT_EQ(rep.rows[0].verdict, Verdict::ambiguous);
  EXPECT_NE(rep.rows[0].note.find("but within the 99% prediction bound"), std::string::npos) << rep.rows[0].note;
  // Two earlier runs are too few: not enough data, it says why and what would settle it (one more run of the
  // base branch). Without history: no test, the same verdict.
  rep = with(41.9, 268e6, 2);
  EXPECT_EQ(rep.rows[0].verdict, Verdict::not_enough_data);
  EXPECT_NE(rep.rows[0].note.find("2 earlier runs of the base branch on this machine; 3 judge one value"),
            std::string::npos)
      << rep.rows[0].note;
  EXPECT_NE(rep.rows[0].next_step.find("--repeat 1, then compare again"), std::string::npos) << rep.rows[0].next_step;
  EXPECT_NE(rep.rows[0].next_step.find("gpuperf run --filter '^"), std::string::npos) << rep.rows[0].next_step;
  EXPECT_FALSE(rep.regression());
  EXPECT_EQ(compare_runs(base, cand, {}).rows[0].verdict, Verdict::not_enough_data);
  EXPECT_EQ(compare_runs(base, cand, {}).rows[0].note, "one value per side: no test");
  EXPECT_NE(compare_runs(base, cand, {}).rows[0].next_step.find("--repeat 3, then compare again with --history"),
            std::string::npos);
  // DRAM's absolute floor holds against the history too: 0.5 MB beyond a tiny, steady range is nothing
  // (here the base, 3 MB, is an odd run outside the history).
  const std::vector<db::Series> tiny{
      history_of("stencil1d/shared", 1 << 24, {1e5, 1e5, 1e5, 1e5}, "dram_bytes_written")};
  base.results = {result("stencil1d/shared", 1 << 24, {value("dram_bytes_written", 3e6)})};
  cand.results = {result("stencil1d/shared", 1 << 24, {value("dram_bytes_written", 6e5)})};
  EXPECT_EQ(compare_runs(base, cand, {}, 0, 0, &tiny).rows[0].verdict, Verdict::same);
}

TEST(Compare, RunAgainstItselfIsAllSame) {
  gpuperf::Run base = make_run("aaaa");
  base.results.push_back(
      result("matmul/tiled", 1024, {samples("duration", 2.77e5, 0.02, 40, 27), value("registers", 32)}));
  const CompareReport rep = compare_runs(base, base, {});
  for (const auto& r : rep.rows) EXPECT_EQ(r.verdict, Verdict::same) << r.metric.name;
  EXPECT_FALSE(rep.regression());
}

}  // namespace
}  // namespace gpuperf::analysis
