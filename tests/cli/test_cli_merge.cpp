// gpuperf merge: several runners' databases into one history, idempotent on run uuid, machines kept apart.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "db/merge.hpp"
#include "db/store.hpp"
#include "tests/cli/cli_fixture.hpp"

namespace gpuperf::testing {
namespace {

class MergeTest : public CliTest {
 protected:
  // a.db: runs 1-3 on GPU-1111 (node-1); b.db: runs 4-5 on GPU-2222 (node-2), one of them excluded.
  void SetUp() override {
    write("a.json", runs_file(1, 3));
    ASSERT_EQ(gp({"--db", "a.db", "import", "a.json"}).code, 0);
    std::vector<gpuperf::Run> runs = {
        make_run(run_uuid(4), "2026-10-04T02:00:00Z", "main", 1.1, h200("node-2", "GPU-2222")),
        make_run(run_uuid(5), "2026-10-05T02:00:00Z", "main", 1.2, h200("node-2", "GPU-2222"))};
    runs[1].excluded = true;
    runs[1].exclude_reason = "shared GPU";
    write("b.json", db::to_interchange(runs));
    ASSERT_EQ(gp({"--db", "b.db", "import", "b.json"}).code, 0);
  }
};

TEST_F(MergeTest, CombinesRunnersAndKeepsMachinesApart) {
  CliResult r = gp({"merge", "a.db", "b.db", "--into", "all.db"});
  EXPECT_CLI(r, 0, "5 new, 0 skipped");
  db::Store all(path("all.db"), db::Access::read_only);
  EXPECT_EQ(all.runs().size(), 5u);
  ASSERT_EQ(all.machines().size(), 2u);
  // Each GPU keeps its own series: three points on GPU-1111, two on GPU-2222.
  db::HistoryFilter f;
  f.metrics = {"duration"};
  f.include_excluded = true;
  std::map<std::string, std::size_t> points;
  for (const auto& s : all.history(f)) {
    if (s.key.instance.name == "matmul/naive") points[s.key.fingerprint] = s.points.size();
  }
  EXPECT_EQ(points["GPU-1111"], 3u);
  EXPECT_EQ(points["GPU-2222"], 2u);
  // Every run arrives whole: samples, clocks, flags.
  db::Store b(path("b.db"), db::Access::read_only);
  for (const auto& info : b.runs()) {
    auto merged = all.find_run(info.uuid);
    ASSERT_TRUE(merged.has_value());
    expect_same_run(b.load_run(info.id), all.load_run(merged->id));
  }
}

TEST_F(MergeTest, CarriesARecordedProgramsCommandAndExitStatus) {
  write("c.json", db::to_interchange({make_recorded_run(run_uuid(6), "2026-10-06T02:00:00Z", -6)}));
  ASSERT_EQ(gp({"--db", "c.db", "import", "c.json"}).code, 0);
  EXPECT_CLI(gp({"merge", "a.db", "c.db", "--into", "all.db"}), 0, "4 new, 0 skipped");
  CliResult j = gp({"--db", "all.db", "runs", "--format", "json"});
  ASSERT_EQ(j.code, 0) << j.err;
  auto runs = nlohmann::json::parse(j.out);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_FALSE(runs[0].contains("command"));
  EXPECT_EQ(runs[3]["command"], "./train --epochs 2 --name 'run 1'");
  EXPECT_EQ(runs[3]["exit_status"], -6);
  // And the export of the merged run is the file it came from.
  EXPECT_EQ(gp({"--db", "all.db", "export", "--run", run_uuid(6)}).out, bytes("c.json"));
}

TEST_F(MergeTest, MergingTheSameFileTwiceChangesNothing) {
  ASSERT_EQ(gp({"merge", "a.db", "--into", "all.db"}).code, 0);
  const std::string before = gp({"--db", "all.db", "export"}).out;
  EXPECT_CLI(gp({"merge", "a.db", "a.db", "--into", "all.db"}), 0, "0 new, 6 skipped");
  EXPECT_CLI(gp({"merge", "all.db", "--into", "all.db"}), 0, "0 new, 3 skipped");
  EXPECT_EQ(gp({"--db", "all.db", "export"}).out, before);
}

TEST_F(MergeTest, ABadSourceWritesNothing) {
  ASSERT_EQ(gp({"merge", "a.db", "--into", "all.db"}).code, 0);
  write("junk.db", "this is not a database, just some text that is long enough to have a header");
  EXPECT_CLI(gp({"merge", "b.db", "junk.db", "--into", "all.db"}), 2, "junk.db");
  EXPECT_CLI(gp({"merge", "b.db", "missing.db", "--into", "all.db"}), 2, "missing.db");
  db::Store all(path("all.db"), db::Access::read_only);
  EXPECT_EQ(all.runs().size(), 3u);  // b.db's runs did not sneak in
  EXPECT_CLI(gp({"merge", "missing.db", "--into", "new.db"}), 2, "no such database");
  EXPECT_FALSE(exists("new.db"));
}

// A recorded distributed job's ranks (schema 4) go through import, merge, runs and export unchanged, and
// compare of two ranks shows how each one's GPU time splits between compute and communication kernels.
TEST_F(MergeTest, CarriesARecordedRanksPlaceInItsJob) {
  const std::vector<gpuperf::Run> job{make_ranked_run(run_uuid(7), "2026-10-07T02:00:00Z", 0, 2, 0, 1000),
                                      make_ranked_run(run_uuid(8), "2026-10-07T02:00:00Z", 1, 2, 1, 4000)};
  write("d.json", db::to_interchange(job));
  ASSERT_EQ(gp({"--db", "d.db", "import", "d.json"}).code, 0);
  EXPECT_CLI(gp({"merge", "a.db", "d.db", "--into", "all.db"}), 0, "5 new, 0 skipped");
  CliResult table = gp({"--db", "all.db", "runs"});
  EXPECT_CLI(table, 0, "gpu-node-1 (NVIDIA H200, GPU-00000000) rank 0/2");
  EXPECT_NE(table.out.find("gpu-node-1 (NVIDIA H200, GPU-10000000) rank 1/2"), std::string::npos) << table.out;
  CliResult j = gp({"--db", "all.db", "runs", "--format", "json"});
  ASSERT_EQ(j.code, 0) << j.err;
  auto runs = nlohmann::json::parse(j.out);
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_FALSE(runs[0].contains("rank"));
  EXPECT_EQ(runs[4]["rank"], 1);
  EXPECT_EQ(runs[4]["local_rank"], 1);
  EXPECT_EQ(runs[4]["world_size"], 2);
  EXPECT_EQ(gp({"--db", "all.db", "export", "--run", run_uuid(8)}).out, db::to_interchange({job[1]}));

  // Rank 1 against rank 0 of the same step: its communication took four times as long.
  CliResult text = gp({"--db", "all.db", "compare", run_uuid(7), run_uuid(8)});
  EXPECT_CLI(text, 0, "GPU time by kernel kind (compute or communication; informative, does not gate):");
  EXPECT_NE(text.out.find("  communication  1 us (9.1%)    4 us (28.6%)   +300%"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("rank 1/2"), std::string::npos) << text.out;
  CliResult js = gp({"--db", "all.db", "compare", run_uuid(7), run_uuid(8), "--format", "json"});
  ASSERT_EQ(js.code, 0) << js.err;
  const auto c = nlohmann::json::parse(js.out);
  EXPECT_EQ(c["candidate"]["rank"], 1);
  EXPECT_EQ(c["kinds"]["gated"], false);
  EXPECT_DOUBLE_EQ(c["kinds"]["candidate"]["communication"]["gpu_time_ns"].get<double>(), 4000);
  EXPECT_DOUBLE_EQ(c["kinds"]["change_pct"]["communication"].get<double>(), 300);
  // Benchmark runs have no such section.
  CliResult bench = gp({"--db", "all.db", "compare", run_uuid(1), run_uuid(2), "--format", "json"});
  EXPECT_FALSE(nlohmann::json::parse(bench.out).contains("kinds")) << bench.out;
}

TEST_F(MergeTest, AnImportWithAnImpossibleRankIsRefusedWholeWithExit2) {
  std::vector<gpuperf::Run> job{make_ranked_run(run_uuid(7), "2026-10-07T02:00:00Z", 0, 2, 0),
                                make_ranked_run(run_uuid(8), "2026-10-07T02:00:00Z", 2, 2, 0)};
  write("bad.json", db::to_interchange(job));
  EXPECT_CLI(gp({"--db", "a.db", "import", "bad.json"}), 2,
             "bad.json: runs[1].rank: rank 2 is not below world_size 2 (ranks count from 0 to world_size - 1)");
  EXPECT_EQ(db::Store(path("a.db"), db::Access::read_only).runs().size(), 3u);  // the good run was not stored either
}

}  // namespace
}  // namespace gpuperf::testing
