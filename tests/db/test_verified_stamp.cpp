// The stamp beside an SQLite file (db/sqlite/verified_stamp.hpp): a writer that finds the file as gpuperf
// left it skips the full page check, anything else costs the full check, and damage since the stamp is
// refused. The evidence is the stamp's own content (when the pages were last checked in full) and what a
// writer accepts, never a time measured.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "db/sqlite/verified_stamp.hpp"
#include "db/store.hpp"
#include "tests/db/fixtures.hpp"
#include "tests/support/damage_pages.hpp"

namespace gpuperf::db {
namespace {

using testing::TempDir;
constexpr std::int64_t kDay = 86400;

void insert(Store& s, int first, int n) {
  std::vector<gpuperf::Run> runs;
  for (int i = first; i < first + n; ++i) {
    char uuid[40];
    std::snprintf(uuid, sizeof uuid, "%08d-0000-4000-8000-000000000000", i);
    runs.push_back(testing::make_run(uuid, "2026-11-01T02:00:00Z"));
  }
  s.insert_runs(runs);
}

// A history of 120 runs (about 100 pages), written by two writers: the second found no stamp, checked in full and
// stamped.
std::string stamped_database(const TempDir& dir) {
  const std::string path = dir.file("g.db");
  {
    Store s(path);
    insert(s, 0, 60);
  }
  {
    Store s(path);
    insert(s, 60, 60);
  }
  return path;
}

// The stamp as it is, with its last full check moved to `full_check_at`.
void set_full_check_at(const std::string& path, std::int64_t full_check_at) {
  std::optional<VerifiedStamp> s = read_stamp(path);
  ASSERT_TRUE(s.has_value());
  s->full_check_at = full_check_at;
  ASSERT_TRUE(write_stamp(path, *s));
}

// Overwrites 20 pages between the second and the last with random bytes, in place (a new mtime and ctime).
void damage_file(const std::string& path) {
  std::string bytes = testing::read_bytes(path);
  ASSERT_GT(bytes.size() / 4096, 40u) << "the history is too small to damage its interior";
  testing::damage_pages(bytes);
  testing::write_bytes(path, bytes);
}

bool refused_as_damaged(const std::string& path) {
  try {
    Store s(path);
  } catch (const InputError& e) {
    return std::string(e.what()).find("is damaged") != std::string::npos;
  }
  return false;
}

TEST(VerifiedStamp, AWriterStampsTheFileAsItLeavesIt) {
  TempDir dir;
  const std::int64_t t0 = unix_now();
  const std::string path = stamped_database(dir);
  const std::optional<VerifiedStamp> s = read_stamp(path);
  ASSERT_TRUE(s.has_value()) << "no " << stamp_path(path);
  EXPECT_EQ(s->file, *stamp_of(path));
  EXPECT_GE(s->full_check_at, t0);
  EXPECT_LE(s->full_check_at, unix_now());
  EXPECT_EQ(full_check_reason(path, unix_now()), std::nullopt);
}

TEST(VerifiedStamp, AMatchingStampSkipsTheFullCheck) {
  TempDir dir;
  const std::string path = stamped_database(dir);
  const std::int64_t yesterday = unix_now() - kDay;
  set_full_check_at(path, yesterday);
  {
    Store s(path);
    insert(s, 120, 1);
  }
  // Restamped as the write left the file, still with yesterday's full check: none ran today.
  const std::optional<VerifiedStamp> s = read_stamp(path);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->full_check_at, yesterday);
  EXPECT_EQ(s->file, *stamp_of(path));
}

TEST(VerifiedStamp, AStaleStampTriggersTheFullCheck) {
  TempDir dir;
  const std::string path = stamped_database(dir);
  set_full_check_at(path, unix_now() - (kFullCheckDays + 1) * kDay);
  EXPECT_EQ(full_check_reason(path, unix_now()), "last checked in full 8 days ago");
  const std::int64_t t0 = unix_now();
  { Store s(path); }
  EXPECT_GE(read_stamp(path)->full_check_at, t0);
}

TEST(VerifiedStamp, DamageAfterTheStampIsRefused) {
  TempDir dir;
  const std::string path = stamped_database(dir);
  damage_file(path);  // a new mtime and ctime: the stamp no longer matches
  EXPECT_EQ(full_check_reason(path, unix_now()), "changed since gpuperf last stamped it");
  const std::string damaged = testing::read_bytes(path);
  EXPECT_TRUE(refused_as_damaged(path));
  EXPECT_EQ(testing::read_bytes(path), damaged);
}

// What the stamp cannot see: damage that leaves the file's times and ends as stamped (bit rot in place).
// Made here by stamping the damaged file; a writer then trusts it, and the periodic full check, or
// GPUPERF_DB_FULL_CHECK_DAYS=0, or `db check` finds it.
TEST(VerifiedStamp, DamageUnderAMatchingStampIsFoundByTheFullCheck) {
  TempDir dir;
  const std::string path = stamped_database(dir);
  damage_file(path);
  ASSERT_TRUE(stamp_now(path, unix_now()));
  const std::string damaged = testing::read_bytes(path);
  EXPECT_FALSE(refused_as_damaged(path)) << "the cheap check read the damaged pages";

  ASSERT_TRUE(stamp_now(path, unix_now()));
  setenv("GPUPERF_DB_FULL_CHECK_DAYS", "0", 1);
  EXPECT_TRUE(refused_as_damaged(path));
  unsetenv("GPUPERF_DB_FULL_CHECK_DAYS");
  set_full_check_at(path, unix_now() - 30 * kDay);
  EXPECT_TRUE(refused_as_damaged(path));
  EXPECT_FALSE(Store(path, Access::read_only).check().ok);
  EXPECT_EQ(testing::read_bytes(path), damaged);
}

TEST(VerifiedStamp, AnotherFilesStampOrNoneMeansTheFullCheck) {
  TempDir dir;
  const std::string path = stamped_database(dir);
  std::filesystem::copy_file(path, dir.file("copy.db"));
  std::filesystem::copy_file(stamp_path(path), stamp_path(dir.file("copy.db")));
  EXPECT_EQ(full_check_reason(dir.file("copy.db"), unix_now()), "changed since gpuperf last stamped it");
  std::filesystem::remove(stamp_path(path));
  EXPECT_EQ(full_check_reason(path, unix_now()), "no stamp of a verified state");
  testing::write_bytes(stamp_path(path), "gpuperf-verified 1\nsize 12\n");
  EXPECT_EQ(full_check_reason(path, unix_now()), "no stamp of a verified state");
  setenv("GPUPERF_DB_FULL_CHECK_DAYS", "a week", 1);
  EXPECT_THROW(full_check_days(), InputError);
  unsetenv("GPUPERF_DB_FULL_CHECK_DAYS");
}

// A writer that fails leaves no stamp: whatever went wrong, the next writer checks every page.
TEST(VerifiedStamp, AFailedWriterRemovesTheStamp) {
  TempDir dir;
  const std::string path = stamped_database(dir);
  try {
    Store s(path);
    throw std::runtime_error("the write failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(std::filesystem::exists(stamp_path(path)));
  EXPECT_EQ(full_check_reason(path, unix_now()), "no stamp of a verified state");
}

// `db check` is the forced full check: a sound file is stamped as checked now.
TEST(VerifiedStamp, ACleanDbCheckRenewsTheStamp) {
  TempDir dir;
  const std::string path = stamped_database(dir);
  set_full_check_at(path, unix_now() - 30 * kDay);
  const std::int64_t t0 = unix_now();
  EXPECT_TRUE(Store(path, Access::read_only).check().ok);
  EXPECT_GE(read_stamp(path)->full_check_at, t0);
  EXPECT_EQ(full_check_reason(path, unix_now()), std::nullopt);
}

}  // namespace
}  // namespace gpuperf::db
