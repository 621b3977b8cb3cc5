// Two processes writing runs into one database at once: both succeed and nothing is lost.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

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

}  // namespace
}  // namespace gpuperf::db
