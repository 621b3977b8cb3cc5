// A run's environment and its results' code identities (schema 5) on a real PostgreSQL server: the same runs
// and identities as on an SQLite file, a schema-4 database read as it is, and detect's environment step.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "db/store.hpp"
#include "tests/analysis/environment_history.hpp"
#include "tests/cli/cli_runner.hpp"
#include "tests/db/identity_runs.hpp"
#include "tests/postgres/pg_database_test.hpp"

namespace gpuperf::testing {
namespace {

using db::Access;
using db::Store;

class PgIdentity : public PgDatabaseTest {};

TEST_F(PgIdentity, BothEnginesStoreAndReadTheSameIdentities) {
  const std::vector<gpuperf::Run> runs = {
      make_identity_run("54545454-0000-4000-8000-000000000011", "2026-11-01T02:00:00Z"),
      make_identity_run("54545454-0000-4000-8000-000000000012", "2026-11-02T02:00:00Z", "590.12"),
      make_run("54545454-0000-4000-8000-000000000013", "2026-11-03T02:00:00Z")};
  Store pg(uri(), Access::read_write);
  Store lite(":memory:", Access::read_write);
  const auto a = pg.insert_runs(runs);
  const auto b = lite.insert_runs(runs);
  ASSERT_EQ(a.size(), 3u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    expect_same_run(pg.load_run(a[i].run_id), runs[i]);
    expect_same_run(pg.load_run(a[i].run_id), lite.load_run(b[i].run_id));
  }
  EXPECT_EQ(pg.identity(a[1].run_id).environment.at("driver"), "590.12");
  EXPECT_EQ(pg.identity(a[0].run_id).code.size(), 1u);
  EXPECT_EQ(export_all(pg), export_all(lite));
  EXPECT_TRUE(pg.check().ok);
}

TEST_F(PgIdentity, ASchemaFourDatabaseIsReadWithoutIdentities) {
  const gpuperf::Run want = make_identity_run("54545454-0000-4000-8000-000000000014", "2026-11-01T02:00:00Z");
  {
    Store pg(uri(), Access::read_write);
    pg.insert_run(want);
  }
  cluster_->exec(  // schema 4: without the tables of migrations 5 and 7 and the columns of migration 6
      "DROP TABLE annotation, acknowledgement_undo, acknowledgement, outcome_code, run_environment; "
      "ALTER TABLE source_line DROP COLUMN inlined_at_file, DROP COLUMN inlined_at_line; "
      "UPDATE schema_version SET version = 4",
      "gpuperf");
  {
    Store ro(uri(), Access::read_only);
    EXPECT_EQ(ro.schema_version(), 4);
    const gpuperf::Run back = ro.load_run(ro.runs().front().id);
    EXPECT_TRUE(back.environment.empty());
    EXPECT_TRUE(back.results[0].code.empty());
  }
  Store rw(uri(), Access::read_write);
  EXPECT_EQ(rw.schema_version(), Store::kSchemaVersion);
  const gpuperf::Run next = make_identity_run("54545454-0000-4000-8000-000000000015", "2026-11-02T02:00:00Z");
  expect_same_run(rw.load_run(rw.insert_run(next).run_id), next);
}

// The imported history of tests/analysis/environment_history.hpp on the server: the same environment step and
// code-changed finding as on an SQLite file (tests/analysis/test_cli_identity.cpp).
TEST_F(PgIdentity, ADriverNightIsOneEnvironmentStepOnTheServerToo) {
  TempDir dir;
  testing::write_bytes(dir.file("history.json"), db::to_interchange(environment_history()));
  const CliResult imported =
      run_gpuperf({"--db", uri(), "--quiet", "import", dir.file("history.json")}, dir.path().string());
  ASSERT_EQ(imported.code, 0) << imported.err;
  const CliResult r = run_gpuperf({"--db", uri(), "detect", "--format", "json"}, dir.path().string());
  ASSERT_EQ(r.code, 0) << r.err;
  expect_environment_findings(nlohmann::json::parse(r.out));
}

}  // namespace
}  // namespace gpuperf::testing
