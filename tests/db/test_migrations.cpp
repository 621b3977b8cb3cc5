// Schema versions: creating, migrating a version-0 file, refusing newer versions and foreign databases.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "db/sqlite/engine.hpp"
#include "db/sqlite/schema.hpp"
#include "db/store.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::db {
namespace {

using testing::TempDir;

void raw_exec(const std::string& path, const std::string& sql) {
  Connection c(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  c.exec(sql);
}

std::vector<std::string> tables(const Store& s) {
  Statement st(sqlite_handle(s), "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.text(0));
  return out;
}

// A real gpuperf database (WAL, closed cleanly so everything is in the main file) stamped with `version`.
std::string database_with_version(const TempDir& dir, int version) {
  std::string path = dir.file("g.db");
  {
    Store s(path);
    s.insert_run(testing::make_run("11111111-0000-4000-8000-000000000001", "2026-11-01T02:00:00Z"));
  }
  raw_exec(path, "PRAGMA user_version = " + std::to_string(version));
  return path;
}

// A version-1 database as gpuperf wrote it before schema 2, from its SQL dump (tests/db/fixtures).
std::string version_one_database(const TempDir& dir) {
  std::string path = dir.file("v1.db");
  raw_exec(path, testing::read_bytes(DB_FIXTURES "/schema_v1.sql"));
  return path;
}

std::vector<std::string> run_columns(const Store& s) {
  Statement st(sqlite_handle(s), "SELECT name FROM pragma_table_info('run') ORDER BY cid");
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.text(0));
  return out;
}

// The two runs in schema_v1.sql, as the result model had them.
std::vector<gpuperf::Run> version_one_runs() {
  gpuperf::Run b = testing::make_run("22222222-0000-4000-8000-000000000002", "2026-11-02T02:00:00Z", "feature/x", 1.1,
                                     testing::h200("gpu-node-2", "GPU-2222"));
  b.excluded = true;
  b.exclude_reason = "GPU shared with another job";
  return {testing::make_run("11111111-0000-4000-8000-000000000001", "2026-11-01T02:00:00Z"), b};
}

TEST(Migrations, LatestIsTheStoreVersion) { EXPECT_EQ(schema::latest_version(), Store::kSchemaVersion); }

TEST(Migrations, EmptyFileBecomesTheLatestSchema) {
  TempDir dir;
  testing::write_bytes(dir.file("empty.db"), "");
  Store s(dir.file("empty.db"));
  EXPECT_EQ(s.schema_version(), Store::kSchemaVersion);
  EXPECT_EQ(tables(s), (std::vector<std::string>{"acknowledgement", "acknowledgement_undo", "annotation", "benchmark",
                                                 "machine", "metric", "outcome", "outcome_code", "outcome_source",
                                                 "result", "run", "run_environment", "sample", "source_line"}));
}

TEST(Migrations, VersionZeroSqliteFileIsMigrated) {
  TempDir dir;
  std::string path = dir.file("v0.db");
  raw_exec(path, "PRAGMA page_size = 8192; VACUUM;");  // a real SQLite file, no tables, user_version 0
  ASSERT_GT(std::filesystem::file_size(path), 0u);
  Store s(path);
  EXPECT_EQ(s.schema_version(), Store::kSchemaVersion);
  s.insert_run(testing::make_run("11111111-0000-4000-8000-000000000001", "2026-11-01T02:00:00Z"));
  EXPECT_EQ(s.runs().size(), 1u);
}

TEST(Migrations, MigrateIsANoOpAtTheLatestVersion) {
  TempDir dir;
  std::string path = database_with_version(dir, Store::kSchemaVersion);
  Connection c(path, SQLITE_OPEN_READWRITE);
  auto r = schema::migrate(c);
  EXPECT_EQ(r.from, Store::kSchemaVersion);
  EXPECT_EQ(r.to, Store::kSchemaVersion);
}

TEST(Migrations, NewerVersionIsRefusedAndTheFileUntouched) {
  TempDir dir;
  std::string path = database_with_version(dir, Store::kSchemaVersion + 1);
  const std::string before = testing::read_bytes(path);
  for (Access access : {Access::read_write, Access::read_only}) {
    try {
      Store s(path, access);
      FAIL() << "opened a newer schema";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("newer than this gpuperf supports"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(testing::read_bytes(path), before);
  // A read-only connection may leave SQLite's empty -wal/-shm companions, never a frame of data.
  std::error_code ec;
  auto wal = std::filesystem::file_size(path + "-wal", ec);
  EXPECT_TRUE(ec || wal == 0) << wal;
}

TEST(Migrations, OlderVersionNeedsMigrateWhenReadOnly) {
  TempDir dir;
  std::string path = dir.file("v0.db");
  raw_exec(path, "PRAGMA page_size = 4096; VACUUM;");
  try {
    Store s(path, Access::read_only);
    FAIL() << "opened a version-0 file read-only";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a gpuperf database"), std::string::npos) << e.what();
  }
}

TEST(Migrations, VersionOneFileGainsTheRecordedRunColumnsAndKeepsItsRuns) {
  TempDir dir;
  const std::string path = version_one_database(dir);
  {
    Connection c(path, SQLITE_OPEN_READONLY);
    ASSERT_EQ(schema::current_version(c), 1);
  }
  Store s(path);
  EXPECT_EQ(s.opened_version(), 1);
  EXPECT_EQ(s.schema_version(), Store::kSchemaVersion);
  const auto cols = run_columns(s);
  ASSERT_GE(cols.size(), 5u);
  EXPECT_EQ(std::vector<std::string>(cols.end() - 5, cols.end()),
            (std::vector<std::string>{"command", "exit_status", "rank", "local_rank", "world_size"}));
  const auto want = version_one_runs();
  const auto runs = s.runs();
  ASSERT_EQ(runs.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    testing::expect_same_run(s.load_run(runs[i].id), want[i]);  // no command, no exit status
    EXPECT_EQ(runs[i].command, "");
  }
  EXPECT_TRUE(s.check().ok);
  // The migrated file takes recorded runs.
  gpuperf::Run rec = testing::make_recorded_run("55555555-0000-4000-8000-000000000005", "2026-11-03T02:00:00Z", 3);
  testing::expect_same_run(s.load_run(s.insert_run(rec).run_id), rec);
}

TEST(Migrations, VersionOneFileIsReadReadOnlyAsItIs) {
  TempDir dir;
  const std::string path = version_one_database(dir);
  const std::string before = testing::read_bytes(path);
  {
    Store s(path, Access::read_only);
    EXPECT_EQ(s.schema_version(), 1);
    EXPECT_EQ(run_columns(s).back(), "cuda");  // not migrated: no command column to select
    const auto want = version_one_runs();
    const auto runs = s.runs();
    ASSERT_EQ(runs.size(), 2u);
    for (std::size_t i = 0; i < want.size(); ++i) {
      testing::expect_same_run(s.load_run(runs[i].id), want[i]);
      EXPECT_EQ(runs[i].command, "");
      EXPECT_FALSE(runs[i].exit_status.has_value());
    }
    ASSERT_TRUE(s.find_run("22222222").has_value());
    EXPECT_EQ(s.find_run("22222222")->exclude_reason, "GPU shared with another job");
    ASSERT_TRUE(s.latest_run("main").has_value());
    HistoryFilter f;
    f.metrics = {"duration"};
    EXPECT_EQ(s.history(f).size(), 2u);  // main's two instances; the excluded run's are left out
    EXPECT_EQ(s.info().schema_version, 1);
  }
  EXPECT_EQ(testing::read_bytes(path), before);
}

TEST(Migrations, AnotherProgramsDatabaseIsRefusedUntouched) {
  TempDir dir;
  std::string path = dir.file("other.db");
  raw_exec(path, "CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers VALUES(1,'x');");
  const std::string before = testing::read_bytes(path);
  try {
    Store s(path);
    FAIL() << "adopted another program's database";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("another program"), std::string::npos) << e.what();
  }
  EXPECT_EQ(testing::read_bytes(path), before);
}

}  // namespace
}  // namespace gpuperf::db
