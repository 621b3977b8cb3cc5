// Source lines on a real PostgreSQL server (a throwaway cluster of the test's own): the same runs, lines,
// bound and findings as on an SQLite file, and a schema-2 database read as it is.
#include <gtest/gtest.h>

#include <sstream>

#include "db/import_export.hpp"
#include "db/interchange.hpp"
#include "db/source_lines.hpp"
#include "db/store.hpp"
#include "reports/analysis/line_findings.hpp"
#include "tests/analysis/line_history_cases.hpp"
#include "tests/db/fixtures.hpp"
#include "tests/postgres/pg_database_test.hpp"
#include "tests/support/pg_cluster.hpp"

namespace gpuperf::testing {
namespace {

using db::Access;
using db::Store;

class PgSourceLines : public PgDatabaseTest {};

std::vector<gpuperf::Run> fixture_runs() {
  return db::read_interchange_file(std::string(GPUPERF_SOURCE_DIR) + "/tests/reports/fixture_source_lines.json");
}

TEST_F(PgSourceLines, BothEnginesStoreAndReadTheSameLinesAndNameTheSameLine) {
  std::vector<gpuperf::Run> runs = fixture_runs();
  // One result over the bound, so that both engines must drop the same lines.
  runs[1].results[0].source = numbered_source_lines(90);
  Store pg(uri(), Access::read_write);
  Store lite(":memory:", Access::read_write);
  const auto a = pg.insert_runs(runs);
  const auto b = lite.insert_runs(runs);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) expect_same_run(pg.load_run(a[i].run_id), lite.load_run(b[i].run_id));
  const gpuperf::Run bounded = pg.load_run(a[1].run_id);
  EXPECT_EQ(bounded.results[0].source.lines_total, 90);
  expect_same_source(bounded.results[0].source, db::bound_source_lines(runs[1].results[0].source));
  EXPECT_EQ(export_all(pg), export_all(lite));
  EXPECT_TRUE(pg.check().ok);

  // The finding of night 4 (lose coalescing) names the same line on both.
  for (const Store* s : {&pg, &lite}) {
    const gpuperf::Run before = s->load_run(a[3].run_id), after = s->load_run(a[4].run_id);
    const auto lines = analysis::result_line_changes(&before.results[2], &after.results[2]);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines[0].line.line, 29);
    EXPECT_EQ(lines[0].line.text, "if (i < n) out[j] = in[j];");
    EXPECT_EQ(*lines[0].was_line, 23);
  }
}

TEST_F(PgSourceLines, LinesWithoutTextTakeTheTextOfTheSameLineFromTheHistory) {
  Store pg(uri(), Access::read_write);
  expect_text_from_history(pg);
}

TEST_F(PgSourceLines, ASchemaFourDatabaseReadsItsLinesWithoutCallSitesAndMigratesToTakeThem) {
  gpuperf::Run r = make_run("40404040-0000-4000-8000-0000000000ab", "2026-11-01T02:00:00Z");
  r.results[0].source = numbered_source_lines(9);  // lines 1 and 5 inlined at a call site
  {
    Store pg(uri(), Access::read_write);
    pg.insert_run(r);
  }
  // Schema 4: no identity tables (migration 5), no call-site columns (migration 6), no answers (migration 7).
  cluster_->exec(
      "DROP TABLE annotation, acknowledgement_undo, acknowledgement, outcome_code, run_environment; "
      "ALTER TABLE source_line DROP COLUMN inlined_at_file, DROP COLUMN inlined_at_line; "
      "UPDATE schema_version SET version = 4",
      "gpuperf");
  gpuperf::Run without = r;
  for (SourceLine& l : without.results[0].source.lines) l.inlined_at_file.clear(), l.inlined_at_line = 0;
  {
    Store ro(uri(), Access::read_only);
    EXPECT_EQ(ro.schema_version(), 4);
    expect_same_source(ro.load_run(ro.runs().front().id).results[0].source, without.results[0].source);
  }
  Store rw(uri(), Access::read_write);
  EXPECT_EQ(rw.schema_version(), Store::kSchemaVersion);
  gpuperf::Run again = r;  // a run stored after the migration keeps its call sites
  again.uuid = "40404040-0000-4000-8000-0000000000ac";
  expect_same_source(rw.load_run(rw.insert_run(again).run_id).results[0].source, r.results[0].source);
}

TEST_F(PgSourceLines, ASchemaTwoDatabaseIsReadWithoutLinesAndMigratedToTakeThem) {
  const std::vector<gpuperf::Run> runs = fixture_runs();
  gpuperf::Run plain = make_run("40404040-0000-4000-8000-0000000000aa", "2026-11-01T02:00:00Z");
  {
    Store pg(uri(), Access::read_write);
    pg.insert_run(plain);
  }
  // Schema 2: no source-line tables, and none of schema 4's rank columns (nor the tables of migrations 5 and 7).
  cluster_->exec(
      "DROP TABLE annotation, acknowledgement_undo, acknowledgement; "
      "DROP TABLE outcome_code; DROP TABLE run_environment; DROP TABLE source_line; DROP TABLE outcome_source; "
      "ALTER TABLE run DROP COLUMN rank, DROP COLUMN local_rank, DROP COLUMN world_size; "
      "UPDATE schema_version SET version = 2",
      "gpuperf");
  {
    Store ro(uri(), Access::read_only);
    EXPECT_EQ(ro.schema_version(), 2);
    const gpuperf::Run back = ro.load_run(ro.runs().front().id);
    expect_same_run(back, plain);
    EXPECT_FALSE(ro.runs().front().rank.has_value());
  }
  Store rw(uri(), Access::read_write);
  EXPECT_EQ(rw.opened_version(), 2);
  EXPECT_EQ(rw.schema_version(), Store::kSchemaVersion);
  expect_same_run(rw.load_run(rw.insert_run(runs[0]).run_id), runs[0]);
  // The migrated database keeps its old run as it was and takes a rank of a distributed job.
  expect_same_run(rw.load_run(rw.runs().front().id), plain);
  const gpuperf::Run ranked = make_ranked_run("40404040-0000-4000-8000-0000000000ab", "2026-11-02T02:00:00Z", 1, 2, 1);
  expect_same_run(rw.load_run(rw.insert_run(ranked).run_id), ranked);
  EXPECT_EQ(rw.find_run(ranked.uuid)->world_size, 2);
}

}  // namespace
}  // namespace gpuperf::testing
