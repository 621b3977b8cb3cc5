// A result's source lines in the store (schema 3) and the interchange format: stored and read back whole,
// bounded per result, validated, absent from older files and databases without harm, kept by merge.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <sstream>

#include "core/errors.hpp"
#include "db/import_export.hpp"
#include "db/interchange.hpp"
#include "db/merge.hpp"
#include "db/source_lines.hpp"
#include "db/sqlite/engine.hpp"
#include "db/store.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::db {
namespace {

using testing::TempDir;

const std::string kFixture = DB_FIXTURES "/../../reports/fixture_source_lines.json";

gpuperf::Run run_with_lines(const std::string& uuid, std::size_t lines) {
  gpuperf::Run r = testing::make_run(uuid, "2026-11-20T02:00:00Z");
  r.results[0].source = testing::numbered_source_lines(lines);
  r.results[1].source.status = Status::unsupported;
  r.results[1].source.message = "SASS metrics need driver 525 or newer";
  return r;
}

std::string what(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SourceLineBound, KeepsTheTopLinesByInstructionsAndByExcessSectorsInTheirOrder) {
  const SourceLines all = testing::numbered_source_lines(60);
  const SourceLines kept = bound_source_lines(all, 5);
  EXPECT_EQ(kept.lines_total, 60);
  // By instructions: lines 55..59. By excess sectors (every third line, 3*i above ideal): 57, 54, 51, 48, 45.
  std::vector<std::int64_t> numbers;
  for (const auto& l : kept.lines) numbers.push_back(l.line - 10);
  EXPECT_EQ(numbers, (std::vector<std::int64_t>{45, 48, 51, 54, 55, 56, 57, 58, 59}));
  EXPECT_EQ(kept.status, Status::ok);
  EXPECT_EQ(kept.launches, 3);
  // Within the bound nothing is dropped; lines_total never falls below the lines given.
  SourceLines few = testing::numbered_source_lines(4);
  few.lines_total = 0;
  EXPECT_EQ(bound_source_lines(few, 5).lines.size(), 4u);
  EXPECT_EQ(bound_source_lines(few, 5).lines_total, 4);
  // A line without excess is not kept for the excess key: of 30 lines, 10..29 by instructions; 3, 6 and 9
  // by excess; line 0 loads exactly its ideal.
  SourceLines plain = testing::numbered_source_lines(30);
  EXPECT_EQ(bound_source_lines(plain, 20).lines.size(), 23u);
  EXPECT_EQ(bound_source_lines(plain, 20).lines.front().line, 13);
  EXPECT_DOUBLE_EQ(excess_sectors(plain.lines[9]), 27.0);
}

TEST(SourceLineStore, RoundTripsOnSqliteBoundedAndWithTheUnsupportedReason) {
  TempDir dir;
  Store s(dir.file("g.db"));
  gpuperf::Run r = run_with_lines("40404040-0000-4000-8000-000000000001", 12);
  const auto id = s.insert_run(r).run_id;
  testing::expect_same_run(s.load_run(id), r);  // 12 lines: within the bound, kept whole
  // 100 lines: at most 2 x kTopLines kept, lines_total says how many there were.
  gpuperf::Run big = run_with_lines("40404040-0000-4000-8000-000000000002", 100);
  const gpuperf::Run back = s.load_run(s.insert_run(big).run_id);
  const SourceLines& src = back.results[0].source;
  EXPECT_EQ(src.lines_total, 100);
  EXPECT_EQ(src.lines.size(), bound_source_lines(big.results[0].source).lines.size());
  EXPECT_LE(src.lines.size(), 2 * kTopLines);
  EXPECT_GT(src.lines.size(), kTopLines);
  testing::expect_same_source(src, bound_source_lines(big.results[0].source));
  EXPECT_EQ(back.results[1].source.status, Status::unsupported);
  EXPECT_EQ(back.results[1].source.message, "SASS metrics need driver 525 or newer");
  EXPECT_TRUE(s.check().ok);
}

TEST(SourceLineStore, BadLinesAreRefusedNamingTheLineAndNothingIsStored) {
  TempDir dir;
  Store s(dir.file("g.db"));
  gpuperf::Run r = run_with_lines("40404040-0000-4000-8000-000000000003", 5);
  r.results[0].source.lines[2].global_ld_sectors = -1;
  const std::string e = what([&] { s.insert_run(r); });
  EXPECT_NE(e.find("matmul/naive"), std::string::npos) << e;
  EXPECT_NE(e.find("source line 2 (kernels/memory_access.cu:12)"), std::string::npos) << e;
  EXPECT_NE(e.find("global_ld_sectors"), std::string::npos) << e;
  EXPECT_TRUE(s.runs().empty());
}

TEST(SourceLineStore, AVersionTwoDatabaseIsReadAsItIsAndMigratedToTakeLines) {
  TempDir dir;
  const std::string path = dir.file("v2.db");
  const gpuperf::Run old = testing::make_run("40404040-0000-4000-8000-000000000004", "2026-11-01T02:00:00Z");
  {
    Store s(path);
    s.insert_run(old);
  }
  {  // what schema 2 had: no source tables (and no rank fields, schema 4, nor the tables of schemas 5 and 7)
    Connection c(path, SQLITE_OPEN_READWRITE);
    c.exec(
        "DROP TABLE annotation; DROP TABLE acknowledgement_undo; DROP TABLE acknowledgement; "
        "DROP TABLE outcome_code; DROP TABLE run_environment; "
        "DROP TABLE source_line; DROP TABLE outcome_source; ALTER TABLE run DROP COLUMN world_size; "
        "ALTER TABLE run DROP COLUMN local_rank; ALTER TABLE run DROP COLUMN rank; PRAGMA user_version = 2;");
  }
  const std::string before = testing::read_bytes(path);
  {
    Store ro(path, Access::read_only);
    EXPECT_EQ(ro.schema_version(), 2);
    const gpuperf::Run back = ro.load_run(ro.runs().front().id);
    testing::expect_same_run(back, old);
    EXPECT_EQ(back.results[0].source.status, Status::skipped);
  }
  EXPECT_EQ(testing::read_bytes(path), before);
  Store rw(path);
  EXPECT_EQ(rw.opened_version(), 2);
  EXPECT_EQ(rw.schema_version(), Store::kSchemaVersion);
  gpuperf::Run r = run_with_lines("40404040-0000-4000-8000-000000000005", 8);
  testing::expect_same_run(rw.load_run(rw.insert_run(r).run_id), r);
}

TEST(SourceLineStore, AVersionFourDatabaseReadsItsLinesWithoutCallSites) {
  TempDir dir;
  const std::string path = dir.file("v4.db");
  gpuperf::Run r = run_with_lines("40404040-0000-4000-8000-000000000006", 6);
  {
    Store s(path);
    s.insert_run(r);
  }
  {  // what schema 4 had: no identity tables (migration 5), no inlined call sites (6), no answers (7)
    Connection c(path, SQLITE_OPEN_READWRITE);
    c.exec(
        "DROP TABLE annotation; DROP TABLE acknowledgement_undo; DROP TABLE acknowledgement; "
        "DROP TABLE outcome_code; DROP TABLE run_environment; "
        "ALTER TABLE source_line DROP COLUMN inlined_at_file; ALTER TABLE source_line DROP COLUMN inlined_at_line; "
        "PRAGMA user_version = 4;");
  }
  for (SourceLine& l : r.results[0].source.lines) l.inlined_at_file.clear(), l.inlined_at_line = 0;
  {
    Store ro(path, Access::read_only);
    EXPECT_EQ(ro.schema_version(), 4);
    testing::expect_same_source(ro.load_run(ro.runs().front().id).results[0].source, r.results[0].source);
  }
  Store rw(path);
  EXPECT_EQ(rw.schema_version(), Store::kSchemaVersion);
  testing::expect_same_source(rw.load_run(rw.runs().front().id).results[0].source, r.results[0].source);
  EXPECT_TRUE(rw.check().ok);
}

TEST(SourceLineInterchange, RoundTripsThroughAFileAndADatabase) {
  const auto runs = read_interchange_file(kFixture);
  ASSERT_EQ(runs.size(), 8u);
  const SourceLines& strided = runs[0].results[3].source;
  ASSERT_EQ(strided.lines.size(), 5u);
  EXPECT_EQ(strided.lines[3].text, "out[i] = in[src];");
  EXPECT_EQ(strided.lines[3].global_ld_sectors, 8 * strided.lines[3].global_ld_sectors_ideal);  // 8x its ideal
  EXPECT_EQ(strided.lines[3].thread_inst_executed, 32 * strided.lines[3].inst_executed);
  EXPECT_EQ(runs[7].results[2].source.status, Status::unsupported);
  // The file as written, read again; a database's export of it, the same text.
  const std::string text = to_interchange(runs);
  const auto again = parse_interchange(text, "again.json");
  for (std::size_t i = 0; i < runs.size(); ++i) testing::expect_same_run(again[i], runs[i]);
  Store s(":memory:");
  s.insert_runs(runs);
  std::vector<std::int64_t> ids;  // in the file's order
  for (const auto& r : runs) ids.push_back(s.find_run(r.uuid)->id);
  std::ostringstream out;
  export_runs(s, ids, out);
  EXPECT_EQ(out.str(), text);
}

TEST(SourceLineInterchange, FilesWithoutLinesStayValidAndMalformedLinesAreRefusedWhole) {
  // A run without "source": every result's lines are "not collected".
  const auto plain = read_interchange_file(DB_FIXTURES "/benchmark_run_v1.json");
  ASSERT_FALSE(plain.empty());
  for (const auto& r : plain.front().results) {
    EXPECT_EQ(r.source.status, Status::skipped);
    EXPECT_TRUE(r.source.lines.empty());
  }
  EXPECT_EQ(to_interchange(plain).find("\"source\""), std::string::npos);

  const std::string good = testing::read_bytes(kFixture);
  auto refuse = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    return what([&] { parse_interchange(text, "lines.json"); });
  };
  EXPECT_EQ(refuse("\"global_ld_sectors\": 16777216", "\"global_ld_sectors\": -4"),
            "lines.json: runs[0].results[3].source.lines[3].global_ld_sectors: expected a finite number of at least "
            "0 (a count per launch), got -4");
  EXPECT_EQ(refuse("\"line\": 22", "\"line\": \"22\""),
            "lines.json: runs[0].results[0].source.lines[0].line: expected an integer of at least 0, got \"22\"");
  EXPECT_EQ(refuse("\"source\": {\n      \"status\": \"ok\"", "\"source\": {\n      \"status\": \"fine\""),
            "lines.json: runs[0].results[0].source.status: unknown status 'fine' (expected ok, incorrect, failed, "
            "unsupported or skipped)");
  EXPECT_NE(refuse("\"lines_total\": 5", "\"lines_total\": 2")
                .find("runs[0].results[0].source.lines_total: 2 is "
                      "fewer than the 5 lines given"),
            std::string::npos);
  EXPECT_NE(refuse("\"lines\": [", "\"lines\": 7, \"x\": [").find("source.lines: expected an array, got 7"),
            std::string::npos);
}

TEST(SourceLineInterchange, MergeKeepsTheLines) {
  TempDir dir;
  const std::string a = dir.file("a.db"), into = dir.file("into.db");
  {
    Store s(a);
    import_files(s, {kFixture});
  }
  Store target(into);
  merge_databases(target, {a});
  const auto runs = read_interchange_file(kFixture);
  const auto stored = target.runs();
  ASSERT_EQ(stored.size(), runs.size());
  for (const auto& info : stored) {
    const auto it = std::find_if(runs.begin(), runs.end(), [&](const gpuperf::Run& r) { return r.uuid == info.uuid; });
    ASSERT_NE(it, runs.end());
    testing::expect_same_run(target.load_run(info.id), *it);
  }
}

}  // namespace
}  // namespace gpuperf::db
