// Two processes writing runs into one database at once: both succeed and nothing is lost.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "db/sqlite/verified_stamp.hpp"
#include "db/store.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::db {
namespace {

constexpr int kRunsPerWriter = 25;

std::string writer_uuid(int writer, int i) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08d-%04d-4000-8000-000000000000", i, writer);
  return buf;
}

// The child: waits for the start signal, then opens (perhaps creating) the database and writes its runs,
// each in its own transaction, and one batch at the end. Exit status 0 on success.
[[noreturn]] void writer(const std::string& path, int writer_id, int start_fd) {
  char go = 0;
  if (read(start_fd, &go, 1) != 1) _exit(3);
  try {
    Store s(path);
    for (int i = 0; i < kRunsPerWriter; ++i) {
      s.insert_run(
          testing::make_run(writer_uuid(writer_id, i), "2026-11-01T02:00:00Z", "w" + std::to_string(writer_id)));
    }
    std::vector<gpuperf::Run> batch;
    for (int i = kRunsPerWriter; i < 2 * kRunsPerWriter; ++i) {
      batch.push_back(
          testing::make_run(writer_uuid(writer_id, i), "2026-11-02T02:00:00Z", "w" + std::to_string(writer_id)));
    }
    s.insert_runs(batch);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "writer %d: %s\n", writer_id, e.what());
    _exit(1);
  }
  _exit(0);
}

TEST(Concurrency, TwoProcessesWriteOneNewDatabase) {
  testing::TempDir dir;
  const std::string path = dir.file("shared.db");  // does not exist yet: both race to create it
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::vector<pid_t> kids;
  for (int w = 1; w <= 2; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[1]);
      writer(path, w, fds[0]);
    }
    kids.push_back(pid);
  }
  close(fds[0]);
  ASSERT_EQ(write(fds[1], "gg", 2), 2);  // release both at once
  close(fds[1]);
  for (pid_t pid : kids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "writer " << pid << " failed";
  }
  Store s(path, Access::read_only);
  auto runs = s.runs();
  ASSERT_EQ(runs.size(), 4u * kRunsPerWriter);
  for (int w = 1; w <= 2; ++w) {
    RunFilter f;
    f.branch = "w" + std::to_string(w);
    EXPECT_EQ(s.runs(f).size(), 2u * kRunsPerWriter);
    for (int i = 0; i < 2 * kRunsPerWriter; ++i) {
      auto r = s.find_run(writer_uuid(w, i));
      ASSERT_TRUE(r.has_value()) << writer_uuid(w, i);
      EXPECT_EQ(s.load_run(r->id).results.size(), 2u);
    }
  }
  EXPECT_TRUE(s.check().ok);
}

// Whether a process other than this one sees this process's SHARED lock on the database at `path` (SQLite's
// unix locking: a read lock on the 510 bytes after PENDING_BYTE + 2). A child asks, with F_GETLK on its own
// descriptor: a descriptor opened and closed here would itself drop the lock.
bool shared_lock_held_here(const std::string& path) {
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(path.c_str(), O_RDWR);
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = 0x40000000 + 2;
    fl.l_len = 510;
    if (fd < 0 || fcntl(fd, F_GETLK, &fl) != 0) _exit(2);
    _exit(fl.l_type == F_RDLCK && fl.l_pid == parent ? 0 : 1);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return false;
  return WEXITSTATUS(status) == 0;
}

// A connection in WAL mode keeps a SHARED lock on its file while it is open; without it, another process's
// closing connection takes itself for the last, checkpoints and deletes the -wal file, and this process's
// next commit goes into the deleted file (the nightly team test lost a run that way). What gpuperf itself
// reads of the file beside an open connection (its stamp, the header, a second connection's open and close)
// must leave that lock in place.
TEST(Concurrency, AWritersOwnReadsOfTheFileKeepItsLock) {
  testing::TempDir dir;
  const std::string path = dir.file("kept.db");
  for (int i = 0; i < 2; ++i) {  // the second writer finds the first one's stamp and stamps in turn
    Store s(path);
    s.insert_run(testing::make_run(writer_uuid(9, i), "2026-11-01T02:00:00Z"));
  }
  ASSERT_TRUE(read_stamp(path).has_value());
  Store writer(path);  // its open compares the file with the stamp
  ASSERT_EQ(writer.runs().size(), 2u);
  EXPECT_TRUE(shared_lock_held_here(path)) << "the writer's open dropped its lock on the file";
  EXPECT_TRUE(stamp_of(path).has_value());
  (void)full_check_reason(path, unix_now());
  {
    Store reader(path, Access::read_only);  // looks at the header first
    EXPECT_EQ(reader.runs().size(), 2u);
  }
  EXPECT_TRUE(shared_lock_held_here(path)) << "a read of the file beside the open writer dropped its lock";
  writer.insert_run(testing::make_run(writer_uuid(9, 2), "2026-11-02T02:00:00Z"));
  EXPECT_EQ(writer.runs().size(), 3u);
}

}  // namespace
}  // namespace gpuperf::db
