// Recorded runs (`gpuperf record -- APP ARGS`) in the store: the program's command line and exit status go
// into a real SQLite file and come back through every way of reading runs; benchmark runs store NULL.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "db/merge.hpp"
#include "db/sqlite/connection.hpp"
#include "db/sqlite/engine.hpp"
#include "db/store.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::db {
namespace {

using testing::make_recorded_run;
using testing::make_run;
using testing::TempDir;

// Apart from the uuids of schema_v1.sql's runs (11111111-..., 22222222-...), which a merge test adds.
const std::string kBench = "aaaaaaa1-0000-4000-8000-000000000001";
const std::string kExited = "aaaaaaa2-0000-4000-8000-000000000002";
const std::string kKilled = "aaaaaaa3-0000-4000-8000-000000000003";
const std::string kNoStatus = "aaaaaaa4-0000-4000-8000-000000000004";

// A benchmark run, a recorded program that exited 0, one killed by SIGKILL, one whose end is unknown.
std::vector<gpuperf::Run> mixed_runs() {
  std::vector<gpuperf::Run> runs{make_run(kBench, "2026-11-01T02:00:00Z"),
                                 make_recorded_run(kExited, "2026-11-02T02:00:00Z", 0),
                                 make_recorded_run(kKilled, "2026-11-03T02:00:00Z", -9),
                                 make_recorded_run(kNoStatus, "2026-11-04T02:00:00Z", std::nullopt)};
  runs[2].command = "./app '$HOME' \"x\"";  // quotes of both kinds are text to the store
  return runs;
}

TEST(RecordedRuns, CommandAndExitStatusRoundTripThroughAFile) {
  TempDir dir;
  const auto want = mixed_runs();
  {
    Store store(dir.file("g.db"));
    store.insert_runs(want);
  }
  Store store(dir.file("g.db"), Access::read_only);
  const auto listed = store.runs();
  ASSERT_EQ(listed.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(want[i].uuid);
    EXPECT_EQ(listed[i].command, want[i].command);
    EXPECT_EQ(listed[i].exit_status, want[i].exit_status);
    testing::expect_same_run(store.load_run(listed[i].id), want[i]);
  }
  EXPECT_EQ(listed[0].command, "");
  EXPECT_FALSE(listed[0].exit_status.has_value());
  EXPECT_EQ(listed[1].exit_status, 0);
  EXPECT_EQ(listed[2].exit_status, -9);
  // find_run and latest_run read the same columns.
  auto found = store.find_run(kKilled.substr(0, 8));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->command, "./app '$HOME' \"x\"");
  EXPECT_EQ(found->exit_status, -9);
  auto latest = store.latest_run("main");
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->uuid, kNoStatus);
  EXPECT_EQ(latest->command, want[3].command);
  EXPECT_FALSE(latest->exit_status.has_value());
}

TEST(RecordedRuns, NoneIsNullNotAnEmptyStringOrZero) {
  Store store(":memory:");
  store.insert_runs(mixed_runs());
  Statement s(sqlite_handle(store),
              "SELECT uuid, command IS NULL, exit_status IS NULL, exit_status FROM run ORDER BY id");
  std::vector<std::tuple<std::string, bool, bool, std::int64_t>> rows;
  while (s.step()) rows.emplace_back(s.text(0), s.int64(1) != 0, s.int64(2) != 0, s.int64(3));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], std::make_tuple(kBench, true, true, std::int64_t{0}));
  EXPECT_EQ(rows[1], std::make_tuple(kExited, false, false, std::int64_t{0}));  // exit 0 is a value
  EXPECT_EQ(rows[2], std::make_tuple(kKilled, false, false, std::int64_t{-9}));
  EXPECT_EQ(rows[3], std::make_tuple(kNoStatus, false, true, std::int64_t{0}));
}

TEST(RecordedRuns, MetricsOfRecordedKernelsKeepTheirTraits) {
  Store store(":memory:");
  store.insert_runs(mixed_runs());
  Statement s(sqlite_handle(store),
              "SELECT name, unit, higher_is_better, deterministic FROM metric WHERE name IN "
              "('launches', 'gpu_time_total', 'gpu_time_share') ORDER BY name");
  std::vector<std::tuple<std::string, std::string, std::int64_t, std::int64_t>> rows;
  while (s.step()) rows.emplace_back(s.text(0), s.text(1), s.int64(2), s.int64(3));
  using Row = std::tuple<std::string, std::string, std::int64_t, std::int64_t>;
  EXPECT_EQ(rows, (std::vector<Row>{Row{"gpu_time_share", "%", 0, 0}, Row{"gpu_time_total", "ns", 0, 0},
                                    Row{"launches", "count", 0, 1}}));
  // A launch count is a series like any other: history finds one point per recorded run.
  HistoryFilter f;
  f.metrics = {"launches"};
  f.benchmark_regex = "^sgemm_128x64";
  auto series = store.history(f);
  ASSERT_EQ(series.size(), 1u);
  ASSERT_EQ(series[0].points.size(), 3u);
  EXPECT_DOUBLE_EQ(series[0].points[0].summary.median, 3);
  EXPECT_TRUE(series[0].key.metric.deterministic);
}

TEST(RecordedRuns, MergeCarriesThemFromEverySourceVersion) {
  TempDir dir;
  {
    Store a(dir.file("a.db"));
    a.insert_runs(mixed_runs());
  }
  // A runner still on schema 1, merged read-only: its runs come without a command.
  {
    Connection c(dir.file("old.db"), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    c.exec(testing::read_bytes(DB_FIXTURES "/schema_v1.sql"));
  }
  const std::string old_before = testing::read_bytes(dir.file("old.db"));
  Store into(dir.file("all.db"));
  ImportReport r = merge_databases(into, {dir.file("a.db"), dir.file("old.db")});
  EXPECT_EQ(r.inserted, 6u);
  EXPECT_EQ(testing::read_bytes(dir.file("old.db")), old_before);  // a source is never migrated
  const auto want = mixed_runs();
  for (const auto& w : want) {
    auto info = into.find_run(w.uuid);
    ASSERT_TRUE(info.has_value()) << w.uuid;
    EXPECT_EQ(info->command, w.command);
    testing::expect_same_run(into.load_run(info->id), w);
  }
  auto old_run = into.find_run("22222222-0000-4000-8000-000000000002");
  ASSERT_TRUE(old_run.has_value());
  EXPECT_EQ(old_run->branch, "feature/x");
  EXPECT_EQ(old_run->command, "");
  EXPECT_FALSE(old_run->exit_status.has_value());
}

}  // namespace
}  // namespace gpuperf::db
