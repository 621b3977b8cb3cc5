// Files that are not sound gpuperf databases, and locations that cannot be written: each is refused with
// a clear message and the right exit code, and the file is left exactly as it was.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/sqlite/connection.hpp"
#include "db/store.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::db {
namespace {

using testing::TempDir;

// A database of `n` runs, closed cleanly: everything is in the main file, which stays in WAL mode.
std::string real_database(const TempDir& dir, int n = 30) {
  std::string path = dir.file("g.db");
  Store s(path);
  std::vector<gpuperf::Run> runs;
  for (int i = 0; i < n; ++i) {
    char uuid[40];
    std::snprintf(uuid, sizeof uuid, "%08d-0000-4000-8000-000000000000", i);
    runs.push_back(testing::make_run(uuid, "2026-11-01T02:00:00Z"));
  }
  s.insert_runs(runs);
  return path;
}

// Runs `f`, expecting a gpuperf::Error with `exit_code` whose message contains `needle`.
template <typename F>
void expect_error(F f, int exit_code, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), exit_code) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(BadFiles, NotAnSqliteFile) {
  TempDir dir;
  std::string path = dir.file("notes.db");
  testing::write_bytes(path, "these are my notes, not a database\n");
  for (Access a : {Access::read_write, Access::read_only}) {
    expect_error([&] { Store s(path, a); }, kExitUsage, "is not an SQLite database");
  }
  EXPECT_EQ(testing::read_bytes(path), "these are my notes, not a database\n");
}

TEST(BadFiles, GarbageAfterTheMagicIsNotADatabase) {
  TempDir dir;
  std::string path = dir.file("g.db");
  std::string bytes = std::string("SQLite format 3") + '\0' + std::string(4080, '\x7f');
  testing::write_bytes(path, bytes);
  expect_error([&] { Store s(path); }, kExitUsage, "damaged SQLite header");
  EXPECT_EQ(testing::read_bytes(path), bytes);
  // A plausible header over garbage pages: SQLite itself finds the file is not a database.
  bytes[16] = '\x10';
  bytes[17] = '\0';
  for (int i = 18; i < 100; ++i) bytes[static_cast<std::size_t>(i)] = '\0';
  testing::write_bytes(path, bytes);
  expect_error([&] { Store s(path); }, kExitUsage, "not a usable gpuperf database");
  EXPECT_EQ(testing::read_bytes(path), bytes);
}

TEST(BadFiles, TruncatedDatabase) {
  TempDir dir;
  std::string path = real_database(dir);
  std::string whole = testing::read_bytes(path);
  ASSERT_GT(whole.size(), 8192u);
  std::string half = whole.substr(0, whole.size() / 2);
  testing::write_bytes(path, half);
  for (Access a : {Access::read_write, Access::read_only}) {
    expect_error([&] { Store s(path, a); }, kExitUsage, "is truncated");
  }
  testing::write_bytes(path, whole.substr(0, 60));
  expect_error([&] { Store s(path); }, kExitUsage, "shorter than the 100-byte SQLite header");
  EXPECT_EQ(testing::read_bytes(path), whole.substr(0, 60));
}

TEST(BadFiles, CorruptedPageIsReportedAndNothingIsWritten) {
  TempDir dir;
  std::string path = real_database(dir);
  std::int64_t root = 0, page_size = 0;
  {
    Connection c(path, SQLITE_OPEN_READONLY);
    root = query_int(c, "SELECT rootpage FROM sqlite_master WHERE name = 'run'");
    page_size = query_int(c, "PRAGMA page_size");
  }
  std::string bytes = testing::read_bytes(path);
  // Flip every byte of the run table's root page.
  for (std::int64_t i = (root - 1) * page_size; i < root * page_size; ++i) {
    bytes[static_cast<std::size_t>(i)] = static_cast<char>(~bytes[static_cast<std::size_t>(i)]);
  }
  testing::write_bytes(path, bytes);

  // A writer refuses it at once: every read-write open checks the pages (quick_check), not only those it writes.
  expect_error([&] { Store writer(path); }, kExitUsage, "database '" + path + "' is damaged");
  Store s(path, Access::read_only);  // the header page is sound, so a reader opens it
  CheckReport report = s.check();
  EXPECT_FALSE(report.ok);
  ASSERT_FALSE(report.problems.empty());
  expect_error([&] { s.runs(); }, kExitUsage, "SQLITE_CORRUPT");
  // The file and the cause in words; no SQL (cut or whole) for a damaged file.
  expect_error([&] { s.runs(); }, kExitUsage, "database '" + path + "': a page of the file is corrupt");
  try {
    s.runs();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("SELECT"), std::string::npos) << e.what();
  }
  s = Store(":memory:");  // close the file
  EXPECT_EQ(testing::read_bytes(path), bytes);
}

TEST(BadFiles, DirectoryIsNotADatabase) {
  TempDir dir;
  expect_error([&] { Store s(dir.path().string()); }, kExitUsage, "is a directory");
}

// Tests run as root here, and root writes through file permissions, so a chmod'ed file proves nothing.
// Paths that no one can create are used instead: a file "inside" a regular file (ENOTDIR) and a new file
// directly under /proc (procfs refuses creation, even to root). Both are what a user sees with a wrong
// --db path or a read-only mount. As an ordinary user the chmod'ed directory is checked as well.
TEST(BadFiles, UnwritableLocationIsAnEnvironmentError) {
  TempDir dir;
  testing::write_bytes(dir.file("plain"), "x");
  expect_error([&] { Store s(dir.file("plain") + "/g.db"); }, kExitEnvironment,
               "cannot create '" + dir.file("plain") + "/g.db': '" + dir.file("plain") + "' is a file, not a folder");
  expect_error([&] { Store s(dir.file("missing") + "/g.db"); }, kExitEnvironment,
               "the folder '" + dir.file("missing") + "' does not exist");
  expect_error([&] { Store s("/proc/gpuperf-test-cannot-exist.db"); }, kExitEnvironment,
               "cannot create '/proc/gpuperf-test-cannot-exist.db'");
  // Read-only, a missing folder is named too (exit 2: there is no database to read).
  expect_error([&] { Store s(dir.file("missing") + "/g.db", Access::read_only); }, kExitUsage,
               "(the folder '" + dir.file("missing") + "' does not exist)");
  if (geteuid() != 0) {
    std::filesystem::create_directory(dir.file("ro"));
    chmod(dir.file("ro").c_str(), 0555);
    expect_error([&] { Store s(dir.file("ro") + "/g.db"); }, kExitEnvironment,
                 "permission denied: you cannot create files in the folder");
  }
  // Nothing was left anywhere: no database, no temporary.
  EXPECT_FALSE(std::filesystem::exists(dir.file("missing")));
  std::size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) entries += e.path().filename() != "plain";
  EXPECT_EQ(entries, geteuid() != 0 ? 1u : 0u);  // "ro" as an ordinary user
}

// A read-only file: as an ordinary user, chmod 0444 makes SQLite open it read-only and the store refuses
// to write. As root, the same refusal is reached through a read-only connection (SQLITE_OPEN_READONLY),
// which is also what every read-only command uses: a write through it fails with SQLITE_READONLY, exit 3.
TEST(BadFiles, ReadOnlyFileRefusesWrites) {
  TempDir dir;
  std::string path = real_database(dir, 2);
  const std::string before = testing::read_bytes(path);
  if (geteuid() != 0) {
    chmod(path.c_str(), 0444);
    expect_error([&] { Store s(path); }, kExitEnvironment, "is read-only here");
  }
  Store ro(path, Access::read_only);
  EXPECT_EQ(ro.runs().size(), 2u);
  expect_error(
      [&] { ro.insert_run(testing::make_run("99999999-0000-4000-8000-000000000000", "2026-12-01T00:00:00Z")); },
      kExitEnvironment, "SQLITE_READONLY");
  expect_error([&] { ro.set_excluded(1, true, "x"); }, kExitEnvironment, "SQLITE_READONLY");
  EXPECT_EQ(ro.runs().size(), 2u);
  EXPECT_EQ(testing::read_bytes(path), before);
}

}  // namespace
}  // namespace gpuperf::db
