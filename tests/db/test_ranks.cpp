// A recorded process's place in a distributed job (Run::rank, local_rank, world_size; schema 4): stored in a
// real SQLite file and read back through every way of reading runs, migrated into a version-3 file, carried by
// the interchange format and by merge, and refused out of range with the field that is wrong.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "db/interchange.hpp"
#include "db/merge.hpp"
#include "db/sqlite/connection.hpp"
#include "db/sqlite/engine.hpp"
#include "db/store.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::db {
namespace {

using testing::make_ranked_run;
using testing::make_recorded_run;
using testing::make_run;
using testing::TempDir;

const std::string kBench = "bbbbbbb1-0000-4000-8000-000000000001";
const std::string kAlone = "bbbbbbb2-0000-4000-8000-000000000002";
const std::string kRank0 = "bbbbbbb3-0000-4000-8000-000000000003";
const std::string kRank1 = "bbbbbbb4-0000-4000-8000-000000000004";

// A benchmark run, a recorded program outside any distributed job, and the two ranks of a torchrun job on two
// GPUs of one host (rank 1 without LOCAL_RANK: a launcher that sets only RANK and WORLD_SIZE).
std::vector<gpuperf::Run> job_runs() {
  return {make_run(kBench, "2026-11-01T02:00:00Z"), make_recorded_run(kAlone, "2026-11-02T02:00:00Z"),
          make_ranked_run(kRank0, "2026-11-03T02:00:00Z", 0, 2, 0),
          make_ranked_run(kRank1, "2026-11-03T02:00:00Z", 1, 2, std::nullopt)};
}

void expect_ranks(const RunInfo& r, std::optional<int> rank, std::optional<int> local, std::optional<int> world) {
  SCOPED_TRACE(r.uuid);
  EXPECT_EQ(r.rank, rank);
  EXPECT_EQ(r.local_rank, local);
  EXPECT_EQ(r.world_size, world);
}

void raw_exec(const std::string& path, const std::string& sql) {
  Connection c(path, SQLITE_OPEN_READWRITE);
  c.exec(sql);
}

// A database as gpuperf wrote it at schema 3: migration 4 adds three columns, migration 5 two tables and
// migration 6 two columns, so dropping them and the version gives back what a version-3 gpuperf left.
std::string version_three_database(const TempDir& dir, const std::vector<gpuperf::Run>& runs) {
  const std::string path = dir.file("v3.db");
  {
    Store s(path);
    s.insert_runs(runs);
  }
  raw_exec(path,
           "DROP TABLE annotation; DROP TABLE acknowledgement_undo; DROP TABLE acknowledgement; "
           "DROP TABLE outcome_code; DROP TABLE run_environment; "
           "ALTER TABLE source_line DROP COLUMN inlined_at_file; ALTER TABLE source_line DROP COLUMN inlined_at_line; "
           "ALTER TABLE run DROP COLUMN world_size; ALTER TABLE run DROP COLUMN local_rank; "
           "ALTER TABLE run DROP COLUMN rank; PRAGMA user_version = 3; PRAGMA wal_checkpoint(TRUNCATE);");
  return path;
}

TEST(Ranks, RoundTripThroughAFileAndEveryRead) {
  TempDir dir;
  const auto want = job_runs();
  {
    Store store(dir.file("g.db"));
    store.insert_runs(want);
  }
  Store store(dir.file("g.db"), Access::read_only);
  const auto listed = store.runs();
  ASSERT_EQ(listed.size(), 4u);
  for (std::size_t i = 0; i < want.size(); ++i) testing::expect_same_run(store.load_run(listed[i].id), want[i]);
  expect_ranks(listed[0], std::nullopt, std::nullopt, std::nullopt);
  expect_ranks(listed[1], std::nullopt, std::nullopt, std::nullopt);
  expect_ranks(listed[2], 0, 0, 2);
  expect_ranks(listed[3], 1, std::nullopt, 2);
  const auto found = store.find_run(kRank1.substr(0, 8));
  ASSERT_TRUE(found.has_value());
  expect_ranks(*found, 1, std::nullopt, 2);
  // NULL, not 0, for the runs without: rank 0 is a real rank.
  Statement s(sqlite_handle(store), "SELECT count(*) FROM run WHERE rank IS NULL AND world_size IS NULL");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.int64(0), 2);
}

TEST(Ranks, AVersionThreeFileIsReadAsItIsAndMigratedOnWrite) {
  TempDir dir;
  const std::vector<gpuperf::Run> old{make_run(kBench, "2026-11-01T02:00:00Z"),
                                      make_recorded_run(kAlone, "2026-11-02T02:00:00Z")};
  const std::string path = version_three_database(dir, old);
  const std::string before = testing::read_bytes(path);
  {
    Store s(path, Access::read_only);
    EXPECT_EQ(s.schema_version(), 3);
    const auto runs = s.runs();
    ASSERT_EQ(runs.size(), 2u);
    for (std::size_t i = 0; i < old.size(); ++i) {
      testing::expect_same_run(s.load_run(runs[i].id), old[i]);
      expect_ranks(runs[i], std::nullopt, std::nullopt, std::nullopt);
    }
    ASSERT_TRUE(s.latest_run("main").has_value());
  }
  EXPECT_EQ(testing::read_bytes(path), before);  // a reader changes nothing

  Store s(path);
  EXPECT_EQ(s.opened_version(), 3);
  EXPECT_EQ(s.schema_version(), Store::kSchemaVersion);
  EXPECT_TRUE(s.check().ok);
  const auto runs = s.runs();
  ASSERT_EQ(runs.size(), 2u);
  for (std::size_t i = 0; i < old.size(); ++i) testing::expect_same_run(s.load_run(runs[i].id), old[i]);
  const gpuperf::Run ranked = make_ranked_run(kRank1, "2026-11-03T02:00:00Z", 1, 2, 1);
  testing::expect_same_run(s.load_run(s.insert_run(ranked).run_id), ranked);
}

TEST(Ranks, AnOutOfRangeRankIsRefusedAndNothingStored) {
  TempDir dir;
  Store store(dir.file("g.db"));
  struct Case {
    std::optional<int> rank, local, world;
    std::string says;
  };
  const Case cases[] = {
      {2, 0, 2, "rank: rank 2 is not below world_size 2 (ranks count from 0 to world_size - 1)"},
      {-1, std::nullopt, std::nullopt, "rank: expected 0 or more (ranks count from 0), got -1"},
      {0, -3, 2, "local_rank: expected 0 or more (local ranks count from 0), got -3"},
      {0, 0, 0, "world_size: expected 1 or more processes, got 0"},
      {1, 4, 2, "local_rank: local_rank 4 is not below world_size 2"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.says);
    gpuperf::Run bad = make_ranked_run(kRank0, "2026-11-03T02:00:00Z", 0, 2, 0);
    bad.rank = c.rank;
    bad.local_rank = c.local;
    bad.world_size = c.world;
    try {
      // A good run beside it: the batch is all or nothing.
      store.insert_runs({make_ranked_run(kRank1, "2026-11-03T02:00:00Z", 1, 2, 1), bad});
      FAIL() << "stored a run with an impossible rank";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("run " + kRank0 + ": " + c.says), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(store.runs().empty());
  // A rank without a world size, or a world size alone, is a fact of its own.
  gpuperf::Run only_rank = make_ranked_run(kRank0, "2026-11-03T02:00:00Z", 5, 2, std::nullopt);
  only_rank.world_size.reset();
  EXPECT_TRUE(store.insert_run(only_rank).inserted);
}

TEST(Ranks, TheInterchangeFormatCarriesThemOnlyWhereSet) {
  const auto runs = job_runs();
  const std::string text = to_interchange(runs);
  const auto back = parse_interchange(text, "job.json");
  ASSERT_EQ(back.size(), runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) testing::expect_same_run(back[i], runs[i]);
  // One run a line: the benchmark run and the lone program carry no rank keys at all.
  std::vector<std::string> lines;
  for (std::size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) {
    lines.push_back(text.substr(at, nl - at));
  }
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[1].find("\"rank\""), std::string::npos);
  EXPECT_EQ(lines[2].find("\"rank\""), std::string::npos);
  EXPECT_NE(lines[3].find(R"("exit_status":0,"rank":0,"local_rank":0,"world_size":2,"machine")"), std::string::npos)
      << lines[3];
  EXPECT_NE(lines[4].find(R"("exit_status":0,"rank":1,"world_size":2,"machine")"), std::string::npos) << lines[4];
}

// The first run of a minimal document, with `fields` spliced into the run object.
std::string error_with(const std::string& fields) {
  const std::string doc = R"({"format": "gpuperf-results", "version": 1, "runs": [{"uuid": ")" + kRank0 +
                          R"(", "started_at": "2026-11-03T02:00:00Z", )" + fields +
                          R"("machine": {"hostname": "n", "gpu_name": "g"}, "results": []}]})";
  try {
    parse_interchange(doc, "runs.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Ranks, AnImportedFileWithAnImpossibleRankIsRefusedNamingTheField) {
  EXPECT_EQ(error_with(R"("rank": 1, "world_size": 2,)"), "accepted");
  EXPECT_EQ(error_with(R"("rank": 7,)"), "accepted");  // no world size to check against
  EXPECT_EQ(error_with(R"("rank": 2, "world_size": 2,)"),
            "runs.json: runs[0].rank: rank 2 is not below world_size 2 (ranks count from 0 to world_size - 1)");
  EXPECT_EQ(error_with(R"("rank": -1,)"), "runs.json: runs[0].rank: expected 0 or more (ranks count from 0), got -1");
  EXPECT_EQ(error_with(R"("world_size": 0,)"), "runs.json: runs[0].world_size: expected 1 or more processes, got 0");
  EXPECT_EQ(error_with(R"("rank": 0, "local_rank": 2, "world_size": 2,)"),
            "runs.json: runs[0].local_rank: local_rank 2 is not below world_size 2 (a host runs at most world_size "
            "processes of the job)");
  EXPECT_EQ(error_with(R"("rank": "1",)"),
            "runs.json: runs[0].rank: expected an integer (the process's RANK), got \"1\"");
  EXPECT_EQ(error_with(R"("local_rank": 1.5,)"),
            "runs.json: runs[0].local_rank: expected an integer (the process's LOCAL_RANK), got 1.5");
  EXPECT_EQ(error_with(R"("world_size": null,)"),
            "runs.json: runs[0].world_size: expected an integer (the job's WORLD_SIZE), got null");
  EXPECT_EQ(error_with(R"("rank": 2147483648,)"),
            "runs.json: runs[0].rank: expected an integer (the process's RANK), got 2147483648");
}

TEST(Ranks, MergeKeepsThemFromCurrentAndVersionThreeSources) {
  TempDir dir;
  const auto runs = job_runs();
  {
    Store a(dir.file("a.db"));
    a.insert_runs({runs[2], runs[3]});
  }
  const std::string old = version_three_database(dir, {runs[0], runs[1]});
  Store into(dir.file("all.db"));
  const ImportReport rep = merge_databases(into, {dir.file("a.db"), old});
  EXPECT_EQ(rep.inserted, 4u);
  const auto listed = into.runs();
  ASSERT_EQ(listed.size(), 4u);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto found = into.find_run(runs[i].uuid);
    ASSERT_TRUE(found.has_value());
    testing::expect_same_run(into.load_run(found->id), runs[i]);
  }
}

}  // namespace
}  // namespace gpuperf::db
