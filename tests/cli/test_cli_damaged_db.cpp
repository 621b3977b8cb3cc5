// A damaged database is refused by every command that writes, before it writes: 20 interior pages of a
// history that gpuperf had stamped as verified overwritten with random bytes (pages that tonight's insert
// would never touch), then each writer in turn must exit 2 naming the damage and leave the file byte for
// byte as it was.
#include <sqlite3.h>

#include <filesystem>

#include "tests/cli/cli_fixture.hpp"
#include "tests/support/damage_pages.hpp"

namespace gpuperf::testing {
namespace {

// `runs` runs of `benches` benchmarks with `samples` duration samples each: a file of a few hundred pages.
std::string history_file(int runs, int benches, int samples) {
  std::string out = R"({"format": "gpuperf-results", "version": 1, "runs": [)";
  for (int r = 1; r <= runs; ++r) {
    char head[200];
    std::snprintf(head, sizeof head,
                  R"(%s{"uuid": "%s", "started_at": "2026-10-%02dT02:00:00Z", "branch": "main", )"
                  R"("machine": {"hostname": "h", "gpu_name": "NVIDIA H100"}, "results": [)",
                  r > 1 ? ", " : "", run_uuid(r).c_str(), r);
    out += head;
    for (int b = 0; b < benches; ++b) {
      out += (b > 0 ? ", " : "") + std::string(R"({"benchmark": "fam/k)") + std::to_string(b) +
             R"(", "status": "ok", "metrics": {"duration": {"unit": "ns", "samples": [)";
      for (int s = 0; s < samples; ++s) out += (s > 0 ? ", " : "") + std::to_string(50000 + (s * 37 + b) % 900);
      out += "]}}}";
    }
    out += "]}";
  }
  return out + "]}";
}

std::string quick_check(const std::string& path) {
  sqlite3* c = nullptr;
  sqlite3_open_v2(path.c_str(), &c, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* s = nullptr;
  std::string verdict = "cannot check";
  if (sqlite3_prepare_v2(c, "PRAGMA quick_check(1)", -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
    verdict = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  }
  sqlite3_finalize(s);
  sqlite3_close(c);
  return verdict;
}

class DamagedDatabase : public CliTest {
 protected:
  void SetUp() override {
    write("history.json", history_file(28, 6, 150));
    ASSERT_EQ(gp({"import", "history.json"}).code, 0);
    // A second writer checks the file in full and stamps it as verified (db/sqlite/verified_stamp.hpp), as
    // a nightly's store is: the damage below must be found despite the stamp.
    ASSERT_EQ(gp({"import", "history.json"}).code, 0);
    ASSERT_TRUE(std::filesystem::exists(path("gpuperf.db-verified")));
    write("more.json", runs_file(29, 1));  // a sound file to import into the damaged one
    write("src.json", runs_file(1, 2, "feature"));
    ASSERT_EQ(gp({"--db", "src.db", "import", "src.json"}).code, 0);
    ASSERT_EQ(quick_check(path("gpuperf.db")), "ok");
    std::string file = bytes("gpuperf.db");
    ASSERT_GT(file.size() / 4096, 100u) << "the history is too small to damage its interior";
    damage_pages(file);  // 20 interior pages of random bytes, the header page sound
    write("gpuperf.db", file);
    damaged_ = file;
    ASSERT_NE(quick_check(path("gpuperf.db")), "ok");
  }

  // `args` on the damaged ./gpuperf.db: exit 2, the damage named, the file as it was.
  void expect_refused(const std::vector<std::string>& args) {
    SCOPED_TRACE(args.front() + (args.size() > 1 ? " " + args[1] : ""));
    EXPECT_CLI(gp(args), 2, "database 'gpuperf.db' is damaged");
    EXPECT_EQ(bytes("gpuperf.db"), damaged_) << "the damaged file changed";
  }

  std::string damaged_;
};

TEST_F(DamagedDatabase, ImportIsRefused) { expect_refused({"import", "more.json"}); }

TEST_F(DamagedDatabase, ImportOfARunStoredAlreadyIsRefused) { expect_refused({"import", "history.json"}); }

TEST_F(DamagedDatabase, MergeIntoItIsRefused) { expect_refused({"merge", "src.db", "--into", "gpuperf.db"}); }

TEST_F(DamagedDatabase, RunsExcludeAndIncludeAreRefused) {
  expect_refused({"runs", "exclude", "1", "--reason", "busy"});
  expect_refused({"runs", "include", "1"});
}

// The team's answers are writes too (cli/cmd_answers.cpp): an acknowledgement, its undoing and a note.
TEST_F(DamagedDatabase, AckAndAnnotateAreRefused) {
  expect_refused({"ack", "--run", "1", "--benchmark", "fam/k0", "--reason", "tracked in #1"});
  expect_refused({"ack", "--undo", "--run", "1", "--benchmark", "fam/k0"});
  expect_refused({"annotate", "--run", "1", "driver 590"});
}

TEST_F(DamagedDatabase, DbMigrateAndPruneAreRefused) {
  expect_refused({"db", "migrate"});
  expect_refused({"db", "prune", "--samples-older-than", "30d"});
}

// The commands that measure first refuse the file before they measure: record and check (whose baseline read
// may meet the damage first) with no GPU at all. run asks for its GPU before anything else, so without one it
// stops there (exit 3); on a GPU machine the store check refuses the file before measuring. Either way the
// file stays as it was.
TEST_F(DamagedDatabase, RunCheckAndRecordAreRefusedBeforeMeasuring) {
  expect_refused({"record", "--", "/bin/true"});
  const CliResult check = gp({"check", "--baseline", "1", "--filter", "vector_add"});
  EXPECT_CLI(check, 2, "is damaged");
  const CliResult run = gp({"run", "--filter", "vector_add"});
  EXPECT_TRUE(run.code == 2 || run.code == 3) << run.err;
  if (run.code == 2) {
    EXPECT_NE(run.err.find("is damaged"), std::string::npos) << run.err;
  }
  EXPECT_EQ(bytes("gpuperf.db"), damaged_) << "the damaged file changed";
}

// Reading is still allowed: db check lists the problems (exit 2: a problem found), and the reader's
// commands that touch only sound pages still answer.
TEST_F(DamagedDatabase, DbCheckNamesTheDamage) {
  const CliResult r = gp({"db", "check"});
  EXPECT_NE(r.code, 0) << r.out << r.err;
  EXPECT_EQ(bytes("gpuperf.db"), damaged_);
}

}  // namespace
}  // namespace gpuperf::testing
