// A run's environment and its results' code identities (schema 5) on an SQLite file: stored and read back whole,
// through the interchange format with and without them, and absent from a version-4 file read as it is.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "db/interchange.hpp"
#include "db/sqlite/connection.hpp"
#include "db/sqlite/engine.hpp"
#include "db/store.hpp"
#include "tests/db/identity_runs.hpp"

namespace gpuperf::testing {
namespace {

using db::Access;
using db::Store;

TEST(Identity, EnvironmentAndCodeRoundTripThroughAFile) {
  TempDir dir;
  const gpuperf::Run want = make_identity_run("54545454-0000-4000-8000-000000000001", "2026-11-01T02:00:00Z");
  std::int64_t id = 0;
  {
    Store s(dir.file("g.db"));
    id = s.insert_run(want).run_id;
  }
  Store s(dir.file("g.db"), Access::read_only);
  const gpuperf::Run back = s.load_run(id);
  expect_same_run(back, want);
  EXPECT_EQ(back.results[1].code.fingerprint, "");
  const db::RunIdentity ident = s.identity(id);
  EXPECT_EQ(ident.environment, want.environment);
  ASSERT_EQ(ident.code.size(), 1u);  // only the result that had one
  EXPECT_EQ(ident.code.begin()->second.fingerprint, "sass:0123456789abcdef");
  EXPECT_TRUE(s.identity(id + 100).environment.empty());
}

TEST(Identity, InterchangeCarriesThemAndFilesWithoutThemStayValid) {
  const gpuperf::Run with = make_identity_run("54545454-0000-4000-8000-000000000002", "2026-11-01T02:00:00Z");
  const std::string text = db::to_interchange({with});
  EXPECT_NE(text.find("\"environment\":{"), std::string::npos);
  EXPECT_NE(text.find("\"code\":{\"fingerprint\":\"sass:0123456789abcdef\""), std::string::npos);
  const auto back = db::parse_interchange(text, "t.json");
  ASSERT_EQ(back.size(), 1u);
  expect_same_run(back[0], with);

  const gpuperf::Run without = make_run("54545454-0000-4000-8000-000000000003", "2026-11-01T02:00:00Z");
  const std::string plain = db::to_interchange({without});
  EXPECT_EQ(plain.find("environment"), std::string::npos);
  EXPECT_EQ(plain.find("\"code\""), std::string::npos);
  const auto again = db::parse_interchange(plain, "t.json");
  expect_same_run(again[0], without);
  EXPECT_TRUE(again[0].environment.empty());
}

TEST(Identity, BadFieldsAreRejectedWithTheirPath) {
  const gpuperf::Run with = make_identity_run("54545454-0000-4000-8000-000000000004", "2026-11-01T02:00:00Z");
  std::string text = db::to_interchange({with});
  const std::string bad_env =
      std::string(text).replace(text.find("\"power_limit_w\":\"700\""), 21, "\"power_limit_w\":700");
  try {
    db::parse_interchange(bad_env, "t.json");
    FAIL() << "a number as an environment value was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("runs[0].environment.power_limit_w: expected a string"), std::string::npos)
        << e.what();
  }
  const std::string bad_code = std::string(text).replace(text.find("\"code\":{"), 8, "\"code\":[{");
  EXPECT_THROW(db::parse_interchange(bad_code, "t.json"), InputError);
}

TEST(Identity, AVersionFourFileIsReadAsItIsWithoutIdentities) {
  TempDir dir;
  const std::string path = dir.file("v4.db");
  const gpuperf::Run want = make_identity_run("54545454-0000-4000-8000-000000000005", "2026-11-01T02:00:00Z");
  {
    Store s(path);
    s.insert_run(want);
  }
  {
    db::Connection c(path, SQLITE_OPEN_READWRITE);
    c.exec(  // schema 4: without the tables of migrations 5 and 7 and the columns of migration 6
        "DROP TABLE annotation; DROP TABLE acknowledgement_undo; DROP TABLE acknowledgement; "
        "DROP TABLE outcome_code; DROP TABLE run_environment; "
        "ALTER TABLE source_line DROP COLUMN inlined_at_file; ALTER TABLE source_line DROP COLUMN inlined_at_line; "
        "PRAGMA user_version = 4;");
  }
  {
    Store ro(path, Access::read_only);
    EXPECT_EQ(ro.schema_version(), 4);
    const gpuperf::Run back = ro.load_run(ro.runs().front().id);
    EXPECT_TRUE(back.environment.empty());
    EXPECT_TRUE(back.results[0].code.empty());
  }
  Store rw(path);
  EXPECT_EQ(rw.opened_version(), 4);
  EXPECT_EQ(rw.schema_version(), Store::kSchemaVersion);
  const gpuperf::Run next = make_identity_run("54545454-0000-4000-8000-000000000006", "2026-11-02T02:00:00Z");
  expect_same_run(rw.load_run(rw.insert_run(next).run_id), next);
}

}  // namespace
}  // namespace gpuperf::testing
