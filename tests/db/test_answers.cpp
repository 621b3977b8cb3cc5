// A team's answers on the SQLite engine (tests/db/answers_checks.hpp), and on a file older than them.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "db/sqlite/connection.hpp"
#include "tests/db/answers_checks.hpp"

namespace gpuperf::testing {
namespace {

TEST(Answers, AcknowledgeUndoAndAnnotate) {
  TempDir dir;
  db::Store s(dir.file("answers.db"));
  check_answers(s);
}

TEST(Answers, AFileFromBeforeThemReadsNoneAndIsMigrated) {
  TempDir dir;
  const std::string path = dir.file("v6.db");
  {
    db::Store s(path);
    s.insert_run(make_run("22222222-0000-4000-8000-000000000001", "2026-11-01T02:00:00Z"));
  }
  {
    db::Connection c(path, SQLITE_OPEN_READWRITE);
    c.exec(
        "DROP TABLE annotation; DROP TABLE acknowledgement_undo; DROP TABLE acknowledgement; PRAGMA user_version = 6;");
  }
  {
    const db::Store ro(path, db::Access::read_only);
    EXPECT_TRUE(ro.acknowledgements().empty());
    EXPECT_TRUE(ro.annotations().empty());
  }
  db::Store rw(path);
  EXPECT_EQ(rw.opened_version(), 6);
  db::Annotation n;
  n.run_id = 1;
  n.text = "after the migration";
  EXPECT_TRUE(rw.add_annotation(n));
  EXPECT_EQ(rw.annotations().size(), 1u);
}

}  // namespace
}  // namespace gpuperf::testing
