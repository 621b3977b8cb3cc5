// The store under faults: new files appear whole or not at all (kills, signals, a tiny disk), readers never
// see a database half made, writers wait for each other's locks and name the holder when they give up.
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "db/import_export.hpp"
#include "db/new_file.hpp"
#include "db/sqlite/engine.hpp"
#include "db/store.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::db {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::vector<std::string> names_in(const TempDir& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir.path())) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string uuid(int i) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08d-0000-4000-8000-000000000000", i);
  return buf;
}

// `n` runs of `samples` duration samples each: about 20 bytes a sample on disk.
ParsedFiles runs(int first, int n, std::size_t samples = 8) {
  ParsedFiles p;
  p.files = 1;
  for (int i = first; i < first + n; ++i) {
    gpuperf::Run r = testing::make_run(uuid(i), "2026-11-01T02:00:00Z");
    r.results[0].metrics[0].samples.assign(samples, 100.0 + i);
    p.runs.push_back(r);
  }
  return p;
}

int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST(NewFile, IsRemovedUnlessPublishedAndNeverReplacesAFile) {
  TempDir dir;
  const std::string dest = dir.file("copy.db");
  {
    NewFile f(dest);
    EXPECT_EQ(fs::path(f.temp_path()).filename().string().rfind(temp_prefix(dest), 0), 0u);
    testing::write_bytes(f.temp_path(), "half");
    testing::write_bytes(f.temp_path() + "-journal", "j");
  }
  EXPECT_TRUE(names_in(dir).empty());
  {
    NewFile f(dest);
    testing::write_bytes(f.temp_path(), "whole");
    EXPECT_TRUE(f.publish());
  }
  EXPECT_EQ(testing::read_bytes(dest), "whole");
  {
    NewFile f(dest);
    testing::write_bytes(f.temp_path(), "second");
    EXPECT_FALSE(f.publish());  // copy.db appeared meanwhile: kept as it is
  }
  EXPECT_EQ(testing::read_bytes(dest), "whole");
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"copy.db"});
}

// A SIGKILL leaves the temporary behind; the next NewFile of that destination removes it, but never the
// temporary of a writer that is alive.
TEST(NewFile, StaleTemporariesAreRemovedLiveOnesKept) {
  TempDir dir;
  const std::string dest = dir.file("copy.db");
  int ready[2], go[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(go), 0);
  auto child = [&](bool wait_for_go) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    close(go[1]);  // a parent that dies ends the wait below
    NewFile f(dest);
    testing::write_bytes(f.temp_path(), "partial");
    testing::write_bytes(f.temp_path() + "-wal", "w");
    char c = 1;
    if (write(ready[1], &c, 1) != 1) _exit(1);
    if (wait_for_go && read(go[0], &c, 1) < 0) _exit(1);
    _exit(0);  // no destructor: as if killed
  };
  char c = 0;
  const pid_t dead = child(false);
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  wait_for(dead);
  ASSERT_EQ(names_in(dir).size(), 2u);  // its temporary and a -wal
  const pid_t live = child(true);       // its NewFile removes the dead one's
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  const auto live_names = names_in(dir);
  ASSERT_EQ(live_names.size(), 2u);
  for (const auto& n : live_names) EXPECT_NE(n.find("tmp-" + std::to_string(live) + "-"), std::string::npos) << n;
  {
    NewFile f(dest);
    EXPECT_EQ(names_in(dir).size(), 3u);  // the live child's two are kept
  }
  EXPECT_EQ(names_in(dir), live_names);
  ASSERT_EQ(write(go[1], &c, 1), 1);
  wait_for(live);
  { NewFile f(dest); }
  EXPECT_TRUE(names_in(dir).empty());
}

TEST(NewFile, SigtermRemovesTheTemporary) {
  TempDir dir;
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t pid = fork();
  if (pid == 0) {
    NewFile f(dir.file("copy.db"));
    testing::write_bytes(f.temp_path(), "partial");
    char c = 1;
    if (write(ready[1], &c, 1) != 1) _exit(1);
    for (;;) pause();
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  kill(pid, SIGTERM);
  const int status = wait_for(pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);  // still ends as SIGTERM says
  EXPECT_TRUE(names_in(dir).empty());
}

// A disk too small for the file (`ulimit -f`): the import into a new database and the backup fail with
// exit 3, and leave no file and no temporary.
TEST(Faults, TinyDiskLeavesNoFile) {
  TempDir dir;
  const std::string src = dir.file("src.db");
  import_into(src, runs(1, 20, 4000));  // about 2 MB
  const auto before = names_in(dir);
  for (bool ignore_signal : {true, false}) {
    SCOPED_TRACE(ignore_signal ? "SIGXFSZ ignored: writes fail" : "SIGXFSZ kills");
    for (int what = 0; what < 2; ++what) {
      pid_t pid = fork();
      if (pid == 0) {
        if (ignore_signal) signal(SIGXFSZ, SIG_IGN);
        rlimit limit{256 * 1024, 256 * 1024};
        setrlimit(RLIMIT_FSIZE, &limit);
        try {
          if (what == 0) {
            import_into(dir.file("new.db"), runs(1, 20, 4000));
          } else {
            Store(src, Access::read_only).backup_to(dir.file("copy.db"));
          }
        } catch (const Error& e) {
          std::fprintf(stderr, "%s\n", e.what());
          _exit(10 + e.exit_code());
        }
        _exit(0);
      }
      const int status = wait_for(pid);
      if (ignore_signal) {
        ASSERT_TRUE(WIFEXITED(status));
        EXPECT_EQ(WEXITSTATUS(status), 10 + kExitEnvironment);
      } else {
        ASSERT_TRUE(WIFSIGNALED(status));
        EXPECT_EQ(WTERMSIG(status), SIGXFSZ);
      }
      // A killed reader of src.db may leave its -wal and -shm (SQLite's own, harmless); nothing else.
      auto names = names_in(dir);
      names.erase(std::remove_if(names.begin(), names.end(),
                                 [](const std::string& n) { return n == "src.db-wal" || n == "src.db-shm"; }),
                  names.end());
      EXPECT_EQ(names, before);
    }
  }
  EXPECT_EQ(Store(src, Access::read_only).runs().size(), 20u);
}

// Databases created again and again while another process polls each one's path: it sees no file or a
// whole database, never an empty, foreign or truncated one.
TEST(Faults, ReadersNeverSeeADatabaseHalfMade) {
  TempDir dir;
  auto path = [&](int i) { return dir.file("r" + std::to_string(i) + ".db"); };
  int next[2], report[2];
  ASSERT_EQ(pipe(next), 0);
  ASSERT_EQ(pipe(report), 0);
  pid_t reader = fork();
  if (reader == 0) {
    close(next[1]);
    fcntl(next[0], F_SETFL, O_NONBLOCK);
    int bad = 0, whole = 0, round = -1;
    for (;;) {
      int got = 0;
      const ssize_t n = read(next[0], &got, sizeof got);  // the round the writer is in; EOF: done
      if (n == 0) break;
      if (n == static_cast<ssize_t>(sizeof got)) round = got;
      if (round < 0) continue;
      try {
        Store s(path(round), Access::read_only);
        s.runs();
        ++whole;
      } catch (const Error& e) {
        if (std::string(e.what()).rfind("no database at", 0) != 0) {
          std::fprintf(stderr, "reader: %s\n", e.what());
          ++bad;
        }
      }
    }
    int counts[2] = {bad, whole};
    if (write(report[1], counts, sizeof counts) != sizeof counts) _exit(1);
    _exit(0);
  }
  close(next[0]);
  for (int i = 0; i < 40; ++i) {
    ASSERT_EQ(write(next[1], &i, sizeof i), static_cast<ssize_t>(sizeof i));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the reader is polling before it exists
    if (i % 2 == 0) {
      import_into(path(i), runs(1, 3, 2000));  // the whole import under the temporary name
    } else {
      Store(path(i)).insert_runs(runs(1, 3, 2000).runs);  // an empty database first, then the runs
    }
  }
  close(next[1]);
  int counts[2] = {-1, -1};
  ASSERT_EQ(read(report[0], counts, sizeof counts), static_cast<ssize_t>(sizeof counts));
  wait_for(reader);
  EXPECT_EQ(counts[0], 0) << "reads that reported a sound database as broken";
  EXPECT_GT(counts[1], 0) << "the reader never read a database";
}

// A database of one run at `path`, and a child that holds its write lock for `hold`; returns the child's
// pid once the lock is held.
pid_t hold_write_lock(const std::string& path, std::chrono::milliseconds hold) {
  import_into(path, runs(1, 1));
  int ready[2];
  if (pipe(ready) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    Store s(path);
    if (sqlite3_exec(sqlite_handle(s), "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) _exit(1);
    char ch = 1;
    if (write(ready[1], &ch, 1) != 1) _exit(1);
    std::this_thread::sleep_for(hold);
    sqlite3_exec(sqlite_handle(s), "COMMIT", nullptr, nullptr, nullptr);
    _exit(0);
  }
  close(ready[1]);
  char ch = 0;
  const bool held = read(ready[0], &ch, 1) == 1;
  close(ready[0]);
  return held ? pid : -1;
}

TEST(Faults, AWriterGivesUpAfterItsTimeoutNamingTheHolder) {
  TempDir dir;
  const std::string path = dir.file("c.db");
  const pid_t holder = hold_write_lock(path, std::chrono::milliseconds(3000));
  ASSERT_GT(holder, 0);
  OpenOptions options;
  options.busy_timeout = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  try {
    import_into(path, runs(2, 1), options);
    ADD_FAILURE() << "the import did not wait for the lock";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.exit_code(), kExitEnvironment) << what;
    EXPECT_NE(what.find("database '" + path + "' is locked by pid " + std::to_string(holder)), std::string::npos)
        << what;
    EXPECT_NE(what.find("gave up after waiting 0.3 s"), std::string::npos) << what;
    EXPECT_NE(what.find("GPUPERF_DB_BUSY_TIMEOUT"), std::string::npos) << what;
  }
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
  kill(holder, SIGKILL);
  wait_for(holder);
}

TEST(Faults, WritersWaitTheirTurnAndSayForWhom) {
  TempDir dir;
  const std::string path = dir.file("c.db");
  const pid_t holder = hold_write_lock(path, std::chrono::milliseconds(2500));
  ASSERT_GT(holder, 0);
  std::vector<LockWait> reports;
  OpenOptions options;
  options.busy_timeout = std::chrono::seconds(60);
  options.on_wait = [&](const LockWait& w) { reports.push_back(w); };
  const ImportReport r = import_into(path, runs(2, 1), options);
  EXPECT_EQ(r.inserted, 1u);
  ASSERT_GE(reports.size(), 1u);
  EXPECT_EQ(reports.front().path, path);
  EXPECT_GE(reports.front().waited, std::chrono::seconds(1));
  EXPECT_EQ(reports.front().timeout, std::chrono::seconds(60));
  EXPECT_NE(reports.front().holders.find("pid " + std::to_string(holder)), std::string::npos)
      << reports.front().holders;
  EXPECT_TRUE(WIFEXITED(wait_for(holder)));
  EXPECT_EQ(Store(path, Access::read_only).runs().size(), 2u);
}

TEST(Faults, BusyTimeoutFromTheEnvironment) {
  EXPECT_EQ(parse_busy_timeout("600", "x"), std::chrono::seconds(600));
  EXPECT_EQ(parse_busy_timeout("0.25", "x"), std::chrono::milliseconds(250));
  for (const char* bad : {"", "ten", "-1", "5s", "nan"}) {
    EXPECT_THROW(parse_busy_timeout(bad, "GPUPERF_DB_BUSY_TIMEOUT"), InputError) << bad;
  }
  unsetenv("GPUPERF_DB_BUSY_TIMEOUT");
  EXPECT_EQ(default_busy_timeout(), std::chrono::minutes(10));
  setenv("GPUPERF_DB_BUSY_TIMEOUT", "42", 1);
  EXPECT_EQ(default_busy_timeout(), std::chrono::seconds(42));
  setenv("GPUPERF_DB_BUSY_TIMEOUT", "soon", 1);
  try {
    default_busy_timeout();
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("GPUPERF_DB_BUSY_TIMEOUT: 'soon' is not a busy timeout"), std::string::npos);
  }
  unsetenv("GPUPERF_DB_BUSY_TIMEOUT");
}

// Runs `f` as another user (nobody) when this is root, else as this user, in a child; its exit code.
template <typename F>
int as_another_user(F f) {
  pid_t pid = fork();
  if (pid == 0) {
    if (geteuid() == 0 && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(99);
    try {
      _exit(f());
    } catch (const Error& e) {
      std::fprintf(stderr, "%s\n", e.what());
      _exit(10 + e.exit_code());
    }
  }
  const int status = wait_for(pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A database in a folder this user cannot write (file 444, folder 555, owned by another user): SQLite
// cannot make its -wal and -shm files there, and readers still read.
TEST(Faults, ReadOnlyDatabaseInAReadOnlyFolderReadsAsAnotherUser) {
  TempDir dir;
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  fs::create_directory(dir.file("shared"));
  const std::string path = dir.file("shared") + "/history.db";
  import_into(path, runs(1, 3));
  chmod(path.c_str(), 0444);
  chmod(dir.file("shared").c_str(), 0555);
  const int read_code = as_another_user([&] {
    Store s(path, Access::read_only);
    return s.runs().size() == 3 && s.load_run(1).results.size() == 2 && s.check().ok ? 0 : 1;
  });
  EXPECT_EQ(read_code, 0);
  EXPECT_EQ(as_another_user([&] {
              Store s(path);
              return 0;
            }),
            10 + kExitEnvironment);
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"shared"});
  std::vector<std::string> shared;
  for (const auto& e : fs::directory_iterator(dir.file("shared"))) shared.push_back(e.path().filename().string());
  EXPECT_EQ(shared, std::vector<std::string>{"history.db"});  // no -wal, no -shm, no temporary

  // Committed pages still in the -wal (a writer killed mid-life) cannot be read without the -shm: said so.
  chmod(dir.file("shared").c_str(), 0755);
  chmod(path.c_str(), 0644);
  pid_t writer = fork();
  if (writer == 0) {
    Store s(path);
    sqlite3_exec(sqlite_handle(s), "PRAGMA wal_autocheckpoint = 0", nullptr, nullptr, nullptr);
    s.insert_runs(runs(10, 2).runs);
    _exit(0);  // no close: the WAL keeps the runs
  }
  wait_for(writer);
  fs::remove(path + "-shm");
  ASSERT_GT(fs::file_size(path + "-wal"), 32u);
  chmod(dir.file("shared").c_str(), 0555);
  EXPECT_EQ(as_another_user([&] {
              Store s(path, Access::read_only);
              return 0;
            }),
            10 + kExitEnvironment);
  chmod(dir.file("shared").c_str(), 0755);
  EXPECT_EQ(Store(path, Access::read_only).runs().size(), 5u);  // its owner reads all five
}

}  // namespace
}  // namespace gpuperf::db
