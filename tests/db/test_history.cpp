// Store::history: series order, filters, samples on demand.
#include <gtest/gtest.h>

#include "db/store.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::db {
namespace {

using testing::make_run;

std::string uuid(int i) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08d-0000-4000-8000-000000000000", i);
  return buf;
}

std::string day(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "2026-11-%02dT02:00:00Z", i);
  return buf;
}

// Five main runs (days 1..5, durations x1, x1, x1, x2, x2) inserted out of order, one feature run.
Store five_runs() {
  Store s(":memory:");
  for (int i : {3, 1, 5, 2, 4}) s.insert_run(make_run(uuid(i), day(i), "main", i >= 4 ? 2.0 : 1.0));
  s.insert_run(make_run(uuid(9), day(9), "feature", 3.0));
  return s;
}

const Series* find(const std::vector<Series>& all, const std::string& display, const std::string& metric) {
  for (const auto& s : all) {
    if (s.key.instance.display_name() == display && s.key.metric.name == metric) return &s;
  }
  return nullptr;
}

TEST(History, SeriesInKeyOrderPointsInTimeOrder) {
  Store store = five_runs();
  HistoryFilter f;
  f.branch = "main";
  auto all = store.history(f);
  ASSERT_EQ(all.size(), 3u);  // naive duration, naive gld_efficiency, tiled duration
  EXPECT_EQ(all[0].key.instance.display_name(), "matmul/naive[n=1024]");
  EXPECT_EQ(all[0].key.metric.name, "duration");
  EXPECT_EQ(all[1].key.metric.name, "gld_efficiency");
  EXPECT_TRUE(all[1].key.metric.higher_is_better);
  EXPECT_EQ(all[2].key.instance.display_name(), "matmul/tiled[n=1024,tile=16]");
  EXPECT_EQ(all[2].key.fingerprint, "GPU-1111");
  const auto& pts = all[0].points;
  ASSERT_EQ(pts.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(pts[i].started_at, day(i + 1));
    EXPECT_EQ(pts[i].run_uuid, uuid(i + 1));
    EXPECT_TRUE(pts[i].samples.empty());  // not asked for
  }
  EXPECT_DOUBLE_EQ(pts[0].summary.median, 100.5);
  EXPECT_DOUBLE_EQ(pts[4].summary.median, 201);
}

TEST(History, FiltersByMetricBenchmarkAndLastRuns) {
  Store store = five_runs();
  HistoryFilter f;
  f.metrics = {"duration"};
  f.benchmark_regex = "tiled";
  f.last_runs = 2;
  auto all = store.history(f);
  ASSERT_EQ(all.size(), 1u);
  ASSERT_EQ(all[0].points.size(), 2u);
  EXPECT_EQ(all[0].points[0].started_at, day(5));
  EXPECT_EQ(all[0].points[1].branch, "feature");
  HistoryFilter bad;
  bad.benchmark_regex = "([";
  EXPECT_THROW(store.history(bad), InputError);
}

// up_to_run_id is a point in the order runs were stored (ids), not in started_at: five_runs stored days
// 3, 1, 5, 2, 4 as ids 1..5, so up to id 3 the history holds days 1, 3 and 5, in time order.
TEST(History, UpToARunIsTheHistoryAsItStoodWhenThatRunWasStored) {
  Store store = five_runs();
  HistoryFilter f;
  f.branch = "main";
  f.metrics = {"duration"};
  f.benchmark_regex = "tiled";
  f.up_to_run_id = 3;
  auto all = store.history(f);
  ASSERT_EQ(all.size(), 1u);
  ASSERT_EQ(all[0].points.size(), 3u);
  EXPECT_EQ(all[0].points[0].started_at, day(1));
  EXPECT_EQ(all[0].points[1].started_at, day(3));
  EXPECT_EQ(all[0].points[2].started_at, day(5));
  for (const auto& p : all[0].points) EXPECT_LE(p.run_id, 3);
  // The newest N runs are those of that moment.
  f.last_runs = 2;
  all = store.history(f);
  ASSERT_EQ(all[0].points.size(), 2u);
  EXPECT_EQ(all[0].points[0].started_at, day(3));
  EXPECT_EQ(all[0].points[1].started_at, day(5));
  f.up_to_run_id = 0;
  EXPECT_TRUE(store.history(f).empty());
}

TEST(History, SamplesAndClocksOnDemand) {
  Store store = five_runs();
  HistoryFilter f;
  f.branch = "main";
  f.with_samples = true;
  auto all = store.history(f);
  const Series* tiled = find(all, "matmul/tiled[n=1024,tile=16]", "duration");
  ASSERT_NE(tiled, nullptr);
  EXPECT_EQ(tiled->points[3].samples, (std::vector<double>{100, 102, 98}));
  EXPECT_EQ(tiled->points[3].sm_clock_mhz, (std::vector<double>{1980, 1980, 1755}));
  const Series* naive = find(all, "matmul/naive[n=1024]", "duration");
  EXPECT_TRUE(naive->points[0].sm_clock_mhz.empty());
  EXPECT_EQ(naive->points[0].samples, (std::vector<double>{100, 102, 98, 101}));

  // A few points out of many results take the other path (one look-up per point): same answer.
  HistoryFilter one;
  one.branch = "main";
  one.last_runs = 1;
  one.metrics = {"duration"};
  one.benchmark_regex = "tiled";
  one.with_samples = true;
  auto few = store.history(one);
  ASSERT_EQ(few.size(), 1u);
  ASSERT_EQ(few[0].points.size(), 1u);
  EXPECT_EQ(few[0].points[0].samples, (std::vector<double>{100, 102, 98}));
  EXPECT_EQ(few[0].points[0].sm_clock_mhz, (std::vector<double>{1980, 1980, 1755}));
}

TEST(History, ExcludedAndFailedPointsOnlyWhenAsked) {
  Store store(":memory:");
  for (int i = 1; i <= 3; ++i) {
    gpuperf::Run r = make_run(uuid(i), day(i));
    if (i == 2) r.results[0].status = Status::incorrect;
    store.insert_run(r);
  }
  store.set_excluded(store.find_run(uuid(3))->id, true, "noisy neighbour");
  HistoryFilter f;
  f.metrics = {"duration"};
  f.benchmark_regex = "^matmul/naive";
  auto clean = store.history(f);
  ASSERT_EQ(clean.size(), 1u);
  EXPECT_EQ(clean[0].points.size(), 1u);  // run 2 incorrect, run 3 excluded
  f.include_failed = true;
  f.include_excluded = true;
  auto all = store.history(f);
  ASSERT_EQ(all[0].points.size(), 3u);
  EXPECT_EQ(all[0].points[1].status, Status::incorrect);
  EXPECT_TRUE(all[0].points[2].excluded);
}

TEST(History, MachinesAreSeparateSeries) {
  Store store(":memory:");
  store.insert_run(make_run(uuid(1), day(1)));
  store.insert_run(make_run(uuid(2), day(2), "main", 1.0, testing::h200("gpu-node-2", "GPU-2222")));
  HistoryFilter f;
  f.metrics = {"duration"};
  auto all = store.history(f);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].key.fingerprint, "GPU-1111");
  EXPECT_EQ(all[2].key.fingerprint, "GPU-2222");
  f.machine_id = store.find_machine("GPU-2222")->id;
  EXPECT_EQ(store.history(f).size(), 2u);
}

}  // namespace
}  // namespace gpuperf::db
