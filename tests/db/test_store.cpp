// The store against ":memory:" and real files: writing, reading back, run references, upkeep.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <thread>

#include "db/sqlite/connection.hpp"
#include "db/sqlite/engine.hpp"
#include "db/store.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::db {
namespace {

using testing::make_run;
using testing::TempDir;

std::int64_t count(const Store& s, const char* table) {
  Statement st(sqlite_handle(s), std::string("SELECT count(*) FROM ") + table);
  st.step();
  return st.int64(0);
}

TEST(Store, MemoryRoundTripOfOneRun) {
  Store store(":memory:");
  EXPECT_EQ(store.schema_version(), Store::kSchemaVersion);
  gpuperf::Run run = make_run("11111111-aaaa-4aaa-8aaa-000000000001", "2026-11-01T02:00:00Z");
  run.results[1].status = Status::ok;
  InsertOutcome o = store.insert_run(run);
  EXPECT_TRUE(o.inserted);
  EXPECT_GT(o.run_id, 0);
  testing::expect_same_run(store.load_run(o.run_id), run);
}

TEST(Store, FileUsesWalForeignKeysAndBusyTimeout) {
  TempDir dir;
  Store store(dir.file("g.db"));
  EXPECT_EQ(query_text(Connection(dir.file("g.db"), SQLITE_OPEN_READONLY), "PRAGMA journal_mode"), "wal");
  Statement fk(sqlite_handle(store), "PRAGMA foreign_keys");
  ASSERT_TRUE(fk.step());
  EXPECT_EQ(fk.int64(0), 1);
  EXPECT_EQ(store.info().journal_mode, "wal");
}

TEST(Store, WriterWaitsForAnotherWritersTransaction) {
  TempDir dir;
  Store store(dir.file("g.db"));
  Connection other(dir.file("g.db"), SQLITE_OPEN_READWRITE);
  other.exec("BEGIN IMMEDIATE");  // holds the write lock
  std::thread release([&other] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    other.exec("COMMIT");
  });
  auto t0 = std::chrono::steady_clock::now();
  // Without the busy timeout this would fail at once with SQLITE_BUSY.
  EXPECT_NO_THROW(store.insert_run(make_run("11111111-aaaa-4aaa-8aaa-000000000001", "2026-11-01T02:00:00Z")));
  release.join();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(250));
  EXPECT_EQ(store.runs().size(), 1u);
}

TEST(Store, InsertIsIdempotentOnUuid) {
  Store store(":memory:");
  gpuperf::Run run = make_run("11111111-aaaa-4aaa-8aaa-000000000001", "2026-11-01T02:00:00Z");
  InsertOutcome first = store.insert_run(run);
  run.branch = "other";  // a second copy changes nothing
  InsertOutcome again = store.insert_run(run);
  EXPECT_FALSE(again.inserted);
  EXPECT_EQ(again.run_id, first.run_id);
  EXPECT_EQ(count(store, "run"), 1);
  EXPECT_EQ(store.load_run(first.run_id).branch, "main");
}

TEST(Store, SummaryIsRecomputedFromSamples) {
  Store store(":memory:");
  gpuperf::Run run = make_run("11111111-aaaa-4aaa-8aaa-000000000001", "2026-11-01T02:00:00Z");
  run.results[0].metrics[0].samples = {4, 1, 3, 2};
  run.results[0].metrics[0].summary = Summary{};  // deliberately wrong
  gpuperf::Run back = store.load_run(store.insert_run(run).run_id);
  const Summary& s = back.results[0].metrics[0].summary;
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.q1, 1.75);
  EXPECT_DOUBLE_EQ(s.q3, 3.25);
  EXPECT_NEAR(s.stdev, 1.2909944487, 1e-9);
}

TEST(Store, InstanceWithoutMetricsKeepsItsDisposition) {
  Store store(":memory:");
  gpuperf::Run run = make_run("11111111-aaaa-4aaa-8aaa-000000000001", "2026-11-01T02:00:00Z");
  run.results[1].status = Status::incorrect;
  run.results[1].message = "max abs error 3.5 at index 17";
  run.results[1].metrics.clear();
  run.status = Status::incorrect;
  Measurement failed;
  failed.metric = MetricInfo{"dram_bytes_read", "bytes", false, true};
  failed.status = Status::failed;
  failed.message = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
  run.results[0].metrics.push_back(failed);
  gpuperf::Run back = store.load_run(store.insert_run(run).run_id);
  testing::expect_same_run(back, run);
  EXPECT_EQ(back.results[0].metrics[2].summary.n, 0u);
}

TEST(Store, BatchIsAllOrNothing) {
  Store store(":memory:");
  gpuperf::Run good = make_run("11111111-aaaa-4aaa-8aaa-000000000001", "2026-11-01T02:00:00Z");
  gpuperf::Run bad = make_run("22222222-aaaa-4aaa-8aaa-000000000002", "2026-11-02T02:00:00Z");
  bad.results[1].metrics[0].samples[1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(store.insert_runs({good, bad}), InputError);
  EXPECT_EQ(count(store, "run"), 0);
  EXPECT_EQ(count(store, "machine"), 0);
  EXPECT_EQ(count(store, "sample"), 0);
}

TEST(Store, RejectsAMetricWhoseUnitOrDirectionChanged) {
  Store store(":memory:");
  store.insert_run(make_run("11111111-aaaa-4aaa-8aaa-000000000001", "2026-11-01T02:00:00Z"));
  gpuperf::Run ms = make_run("22222222-aaaa-4aaa-8aaa-000000000002", "2026-11-02T02:00:00Z");
  ms.results[0].metrics[0].metric.unit = "ms";
  try {
    store.insert_run(ms);
    FAIL() << "a unit change must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("metric 'duration' has unit 'ms'"), std::string::npos) << e.what();
  }
  gpuperf::Run dir = make_run("33333333-aaaa-4aaa-8aaa-000000000003", "2026-11-02T02:00:00Z");
  dir.results[0].metrics[1].metric.higher_is_better = false;
  EXPECT_THROW(store.insert_run(dir), InputError);
  EXPECT_EQ(count(store, "run"), 1);
}

TEST(Store, RejectsAnInstanceTwiceInARun) {
  Store store(":memory:");
  gpuperf::Run run = make_run("11111111-aaaa-4aaa-8aaa-000000000001", "2026-11-01T02:00:00Z");
  run.results.push_back(run.results[0]);
  EXPECT_THROW(store.insert_run(run), InputError);
  EXPECT_EQ(count(store, "run"), 0);
}

TEST(Store, RunsListsFiltersAndKeepsTheNewest) {
  Store store(":memory:");
  store.insert_run(make_run("11111111-0000-4000-8000-000000000001", "2026-11-01T02:00:00Z"));
  store.insert_run(make_run("22222222-0000-4000-8000-000000000002", "2026-11-03T02:00:00Z"));
  store.insert_run(make_run("33333333-0000-4000-8000-000000000003", "2026-11-02T02:00:00Z", "feature"));
  store.insert_run(make_run("44444444-0000-4000-8000-000000000004", "2026-11-04T02:00:00Z", "main", 1.0,
                            testing::h200("gpu-node-2", "GPU-2222")));
  auto all = store.runs();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].started_at, "2026-11-01T02:00:00Z");  // oldest first
  EXPECT_EQ(all[3].hostname, "gpu-node-2");
  EXPECT_EQ(all[0].instance_count, 2);

  RunFilter main_only;
  main_only.branch = "main";
  EXPECT_EQ(store.runs(main_only).size(), 3u);
  RunFilter last2;
  last2.last = 2;
  auto newest = store.runs(last2);
  ASSERT_EQ(newest.size(), 2u);
  EXPECT_EQ(newest[0].uuid.substr(0, 8), "22222222");
  EXPECT_EQ(newest[1].uuid.substr(0, 8), "44444444");
  auto node2 = store.find_machine("gpu-node-2");
  ASSERT_TRUE(node2.has_value());
  RunFilter on_node2;
  on_node2.machine_id = node2->id;
  EXPECT_EQ(store.runs(on_node2).size(), 1u);
  EXPECT_EQ(store.machines().size(), 2u);
}

TEST(Store, FindRunByIdUuidPrefixAndCommit) {
  Store store(":memory:");
  auto a = store.insert_run(make_run("abcd1111-0000-4000-8000-000000000001", "2026-11-01T02:00:00Z"));
  auto b = store.insert_run(make_run("abcd1111-9999-4000-8000-000000000002", "2026-11-02T02:00:00Z"));
  EXPECT_EQ(store.find_run(std::to_string(a.run_id))->id, a.run_id);
  EXPECT_EQ(store.find_run("abcd1111-9999-4000-8000-000000000002")->id, b.run_id);
  EXPECT_EQ(store.find_run("abcd1111-99")->id, b.run_id);
  EXPECT_THROW(store.find_run("abcd1111-"), InputError);  // both uuids start so
  EXPECT_FALSE(store.find_run("ffffffff-0000").has_value());
  // Both runs have commit "abcdef0123456789abcd": the commit's newest run.
  EXPECT_EQ(store.find_run("abcdef0123")->id, b.run_id);
  EXPECT_FALSE(store.find_run("").has_value());
}

TEST(Store, LatestRunSkipsExcludedRuns) {
  Store store(":memory:");
  auto a = store.insert_run(make_run("11111111-0000-4000-8000-000000000001", "2026-11-01T02:00:00Z"));
  auto b = store.insert_run(make_run("22222222-0000-4000-8000-000000000002", "2026-11-02T02:00:00Z"));
  EXPECT_EQ(store.latest_run("main")->id, b.run_id);
  store.set_excluded(b.run_id, true, "thermal throttling");
  EXPECT_EQ(store.latest_run("main")->id, a.run_id);
  auto info = store.find_run(std::to_string(b.run_id));
  EXPECT_TRUE(info->excluded);
  EXPECT_EQ(info->exclude_reason, "thermal throttling");
  store.set_excluded(b.run_id, false, "ignored when including");
  EXPECT_EQ(store.latest_run("main")->id, b.run_id);
  EXPECT_EQ(store.find_run(std::to_string(b.run_id))->exclude_reason, "");
  EXPECT_FALSE(store.latest_run("nope").has_value());
  EXPECT_THROW(store.set_excluded(999, true, "x"), InputError);
  EXPECT_THROW(store.load_run(999), InputError);
}

TEST(Store, InfoCheckAndBackup) {
  TempDir dir;
  Store store(dir.file("g.db"));
  store.insert_run(make_run("11111111-0000-4000-8000-000000000001", "2026-11-01T02:00:00Z"));
  DbInfo info = store.info();
  EXPECT_EQ(info.schema_version, Store::kSchemaVersion);
  EXPECT_EQ(info.runs, 1);
  EXPECT_EQ(info.machines, 1);
  EXPECT_EQ(info.benchmarks, 2);
  EXPECT_EQ(info.metrics, 2);
  EXPECT_EQ(info.results, 3);
  EXPECT_EQ(info.samples, 4 + 1 + 3);
  EXPECT_GT(info.file_bytes, 0);
  EXPECT_TRUE(store.check().ok);

  store.backup_to(dir.file("copy.db"));
  Store copy(dir.file("copy.db"), Access::read_only);
  EXPECT_EQ(copy.runs().size(), 1u);
  EXPECT_THROW(store.backup_to(dir.file("copy.db")), InputError);  // never overwrites
}

TEST(Store, ReadOnlyOpenNeverCreatesAFile) {
  TempDir dir;
  try {
    Store store(dir.file("missing.db"), Access::read_only);
    FAIL() << "opened a missing database";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no database at"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("missing.db")));
}

TEST(Store, MovedStoreStillWorks) {
  Store a(":memory:");
  Store b = std::move(a);
  b.insert_run(make_run("11111111-0000-4000-8000-000000000001", "2026-11-01T02:00:00Z"));
  EXPECT_EQ(b.runs().size(), 1u);
}

}  // namespace
}  // namespace gpuperf::db
