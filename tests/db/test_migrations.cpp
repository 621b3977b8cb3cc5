// Schema versions: creating, migrating a version-0 file, refusing newer versions and foreign databases.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "db/schema.hpp"
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
  Statement st(s.handle(), "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
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

TEST(Migrations, LatestIsTheStoreVersion) { EXPECT_EQ(schema::latest_version(), Store::kSchemaVersion); }

TEST(Migrations, EmptyFileBecomesTheLatestSchema) {
  TempDir dir;
  testing::write_bytes(dir.file("empty.db"), "");
  Store s(dir.file("empty.db"));
  EXPECT_EQ(s.schema_version(), Store::kSchemaVersion);
  EXPECT_EQ(tables(s), (std::vector<std::string>{"benchmark", "machine", "metric", "outcome", "result", "run",
                                                 "sample"}));
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
