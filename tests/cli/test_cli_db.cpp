// gpuperf db / runs / import / export as a user runs them: the real executable, real files.
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/result.hpp"
#include "db/sqlite/connection.hpp"
#include "db/store.hpp"
#include "tests/cli/cli_fixture.hpp"

namespace gpuperf::testing {
namespace {

TEST_F(CliTest, HelpListsTheStoreCommands) {
  CliResult r = gp({"--help"});
  EXPECT_EQ(r.code, 0);
  for (const char* cmd : {"import", "export", "runs", "db"}) EXPECT_NE(r.out.find(cmd), std::string::npos) << cmd;
  for (auto args : std::vector<std::vector<std::string>>{
           {"db", "--help"}, {"runs", "exclude", "--help"}, {"import", "--help"}, {"export", "--help"}}) {
    EXPECT_EQ(gp(args).code, 0) << args[0];
  }
  EXPECT_EQ(gp({"db"}).code, 2);  // a subcommand is required
}

TEST_F(CliTest, ImportThenListAndInfo) {
  write("a.json", runs_file(1, 3));
  EXPECT_CLI(gp({"import", "a.json"}), 0, "3 new, 0 skipped");
  EXPECT_CLI(gp({"import", "a.json"}), 0, "0 new, 3 skipped");

  CliResult list = gp({"runs"});
  EXPECT_EQ(list.code, 0);
  EXPECT_EQ(list.out.rfind("id  uuid      started", 0), 0u) << list.out;
  EXPECT_NE(list.out.find("00000003  2026-10-03T02:00:00Z"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("gpu-node-1 (NVIDIA H200, GPU-1111)"), std::string::npos);

  CliResult json = gp({"runs", "--last", "2", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["uuid"], run_uuid(2));
  EXPECT_EQ(j[1]["instances"], 2);
  EXPECT_EQ(j[1]["machine"]["fingerprint"], "GPU-1111");

  CliResult info = gp({"db", "info", "--format", "json"});
  ASSERT_EQ(info.code, 0) << info.err;
  auto i = nlohmann::json::parse(info.out);
  EXPECT_EQ(i["runs"], 3);
  EXPECT_EQ(i["samples"], 3 * 8);
  EXPECT_EQ(i["journal_mode"], "wal");
  EXPECT_EQ(i["schema_version"], db::Store::kSchemaVersion);
  EXPECT_CLI(gp({"db", "info"}), 0, "schema version  " + std::to_string(db::Store::kSchemaVersion));
  EXPECT_CLI(gp({"db", "check"}), 0, "ok");
  EXPECT_CLI(gp({"db", "migrate"}), 0, "already at schema version " + std::to_string(db::Store::kSchemaVersion));
}

TEST_F(CliTest, FiltersByBranchAndMachine) {
  write("a.json", runs_file(1, 2));
  write("b.json", runs_file(5, 1, "feature"));
  ASSERT_EQ(gp({"import", "a.json", "b.json"}).code, 0);
  auto count = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "runs");
    args.push_back("--format");
    args.push_back("json");
    CliResult r = gp(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out).size();
  };
  EXPECT_EQ(count({}), 3u);
  EXPECT_EQ(count({"--branch", "feature"}), 1u);
  EXPECT_EQ(count({"--machine", "gpu-node-1"}), 3u);
  EXPECT_EQ(count({"--since", "2026-10-02"}), 2u);
  EXPECT_CLI(gp({"runs", "--machine", "nope"}), 2, "no machine matches 'nope'");
}

// detect --as-of RUN answers as a database holding only the runs stored up to RUN would; --before-run as
// one holding those before it. The nightly job's "new tonight" is the difference of the two.
TEST_F(CliTest, DetectAsOfARunAnswersAsTheHistoryStoodThen) {
  const std::string fixture = std::string(GPUPERF_SOURCE_DIR) + "/tests/analysis/fixtures/history.json";
  const nlohmann::json doc = nlohmann::json::parse(read_bytes(fixture));
  ASSERT_EQ(gp({"--quiet", "import", fixture}).code, 0);
  const CliResult full = gp({"detect", "--format", "json"});
  ASSERT_EQ(full.code, 0) << full.err;
  for (std::size_t k : {std::size_t{12}, std::size_t{18}}) {
    SCOPED_TRACE("the first " + std::to_string(k) + " runs");
    nlohmann::json part = doc;
    part["runs"] = nlohmann::json(std::vector<nlohmann::json>(doc["runs"].begin(), doc["runs"].begin() + k));
    const std::string file = "first-" + std::to_string(k);
    write(file + ".json", part.dump());
    ASSERT_EQ(gp({"--db", file + ".db", "--quiet", "import", file + ".json"}).code, 0);
    const CliResult then = gp({"--db", file + ".db", "detect", "--format", "json"});
    ASSERT_EQ(then.code, 0) << then.err;
    const std::string last = doc["runs"][k - 1]["uuid"], next = doc["runs"][k]["uuid"];
    EXPECT_EQ(gp({"detect", "--format", "json", "--as-of", last}).out, then.out);
    EXPECT_EQ(gp({"detect", "--format", "json", "--as-of", std::to_string(k)}).out, then.out);
    EXPECT_EQ(gp({"detect", "--format", "json", "--before-run", next}).out, then.out);
    EXPECT_EQ(nlohmann::json::parse(then.out)["changes"].empty(), k == 12) << then.out;  // 4 changes by run 18
  }
  EXPECT_NE(gp({"detect", "--format", "json", "--as-of", "12"}).out, full.out);
  EXPECT_CLI(gp({"detect", "--as-of", "999"}), 2, "--as-of '999' matches no run");
  EXPECT_CLI(gp({"detect", "--as-of", "3", "--before-run", "4"}), 2, "excludes");
}

// detect --machine is repeatable: the change points of those machines only, the same as in a read of every
// machine (a nightly on a shared server reads its own GPUs' history, not the whole team's).
TEST_F(CliTest, DetectOfSeveralMachinesIsTheirPartOfTheWholeAnswer) {
  const std::string fixture = std::string(GPUPERF_SOURCE_DIR) + "/tests/analysis/fixtures/history.json";
  nlohmann::json doc = nlohmann::json::parse(read_bytes(fixture));
  ASSERT_EQ(gp({"--quiet", "import", fixture}).code, 0);
  for (const std::string node : {"h200-node2", "h200-node3"}) {  // the same history on two more GPUs, new uuids
    nlohmann::json copy = doc;
    for (auto& run : copy["runs"]) {
      run["machine"]["hostname"] = node;
      run["machine"]["gpu_uuid"] = "GPU-" + node;
      run["uuid"] = node.back() + run["uuid"].get<std::string>().substr(1);
    }
    write(node + ".json", copy.dump());
    ASSERT_EQ(gp({"--quiet", "import", node + ".json"}).code, 0) << node;
  }
  auto changes_of = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"detect", "--format", "json"});
    const CliResult r = gp(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out)["changes"];
  };
  const nlohmann::json all = changes_of({});
  std::map<std::string, nlohmann::json> of;  // machine (GPU uuid) -> its changes in the whole answer
  for (const auto& c : all) of[c["machine"]].push_back(c);
  ASSERT_EQ(of.size(), 3u) << all.dump();
  const std::string node2 = "GPU-h200-node2", node3 = "GPU-h200-node3";
  EXPECT_EQ(changes_of({"--machine", "h200-node2"}), of[node2]);
  nlohmann::json two = of[node2];
  for (const auto& c : of[node3]) two.push_back(c);
  EXPECT_EQ(changes_of({"--machine", "h200-node3", "--machine", "h200-node2"}), two);  // in the whole's order
  EXPECT_EQ(changes_of({"--machine", "h200-node2", "--machine", node2, "--machine", "h200-node3"}), two);
  EXPECT_EQ(changes_of({"--machine", "h200-node1", "--machine", "h200-node2", "--machine", "h200-node3"}), all);
  EXPECT_CLI(gp({"detect", "--machine", "h200-node2", "--machine", "nope"}), 2, "--machine 'nope' matches no machine");
}

// detect --json FILE: the JSON answer written beside another format from the same read (the nightly's
// changes.json with its changes.md and junit.xml), equal to what --format json prints.
TEST_F(CliTest, DetectWritesItsJsonBesideAnotherFormat) {
  const std::string fixture = std::string(GPUPERF_SOURCE_DIR) + "/tests/analysis/fixtures/history.json";
  ASSERT_EQ(gp({"--quiet", "import", fixture}).code, 0);
  const CliResult json = gp({"detect", "--format", "json"});
  const CliResult md = gp({"detect", "--format", "md"});
  ASSERT_EQ(json.code, 0) << json.err;
  ASSERT_FALSE(nlohmann::json::parse(json.out)["changes"].empty()) << json.out;  // a file worth comparing
  const CliResult both = gp({"detect", "--format", "md", "--junit", "j.xml", "--json", "c.json"});
  ASSERT_EQ(both.code, 0) << both.err;
  EXPECT_EQ(both.out, md.out);
  EXPECT_EQ(bytes("c.json"), json.out);
  EXPECT_NE(bytes("j.xml").find("<testsuite"), std::string::npos);
  // A missing folder is made, as report --out makes its own; a place that cannot be one says why.
  EXPECT_CLI(gp({"detect", "--json", "new-dir/c.json", "--junit", "new-dir/j.xml"}), 0, "");
  EXPECT_EQ(bytes("new-dir/c.json"), json.out);
  EXPECT_NE(bytes("new-dir/j.xml").find("<testsuite"), std::string::npos);
  write("plain", "x");
  EXPECT_CLI(gp({"detect", "--json", "plain/c.json"}), 3,
             "cannot write 'plain/c.json': cannot create the folder 'plain': Not a directory");
}

// runs --run-key KEY: the runs `gpuperf run --run-key KEY` stored, one per GPU, found by the uuid the key
// gives on each machine.
TEST_F(CliTest, RunsOfARunKeyAreThoseItsUuidNames) {
  write("a.json", runs_file(1, 3));
  ASSERT_EQ(gp({"--quiet", "import", "a.json"}).code, 0);
  const CliResult listed = gp({"runs", "--format", "json"});
  const nlohmann::json runs = nlohmann::json::parse(listed.out);
  const std::string fingerprint = runs[0]["machine"]["fingerprint"];
  nlohmann::json keyed = nlohmann::json::parse(runs_file(7, 1));
  keyed["runs"][0]["uuid"] = keyed_uuid("nightly/2026-10-07/abc\n" + fingerprint);
  write("keyed.json", keyed.dump());
  ASSERT_EQ(gp({"--quiet", "import", "keyed.json"}).code, 0);
  const CliResult found = gp({"runs", "--run-key", "nightly/2026-10-07/abc", "--format", "json"});
  ASSERT_EQ(found.code, 0) << found.err;
  const nlohmann::json mine = nlohmann::json::parse(found.out);
  ASSERT_EQ(mine.size(), 1u) << found.out;
  EXPECT_EQ(mine[0]["uuid"], keyed["runs"][0]["uuid"]);
  EXPECT_EQ(nlohmann::json::parse(gp({"runs", "--run-key", "nightly/2026-10-08/abc", "--format", "json"}).out).size(),
            0u);
}

TEST_F(CliTest, ExcludeAndInclude) {
  seed();
  EXPECT_CLI(gp({"runs", "exclude", run_uuid(2).substr(0, 8), "--reason", "GPU shared with another job"}), 0,
             "excluded run 2");
  CliResult j = gp({"runs", "--format", "json"});
  auto runs = nlohmann::json::parse(j.out);
  EXPECT_EQ(runs[1]["excluded"], true);
  EXPECT_EQ(runs[1]["exclude_reason"], "GPU shared with another job");
  EXPECT_NE(gp({"runs"}).out.find("yes: GPU shared with another job"), std::string::npos);
  EXPECT_CLI(gp({"runs", "include", "2"}), 0, "included run 2");
  EXPECT_EQ(nlohmann::json::parse(gp({"runs", "--format", "json"}).out)[1]["excluded"], false);
  EXPECT_CLI(gp({"runs", "exclude", "99", "--reason", "x"}), 2, "no run matches '99'");
  EXPECT_EQ(gp({"runs", "exclude", "2"}).code, 2);  // --reason is required
}

TEST_F(CliTest, ExportImportRoundTripIsByteIdentical) {
  const std::string original = runs_file(1, 3);
  write("a.json", original);
  ASSERT_EQ(gp({"import", "a.json"}).code, 0);
  CliResult out = gp({"export"});
  ASSERT_EQ(out.code, 0) << out.err;
  EXPECT_EQ(out.out, original);
  EXPECT_CLI(gp({"export", "-o", "b.json"}), 0, "exported 3 runs");
  EXPECT_EQ(bytes("b.json"), original);
  ASSERT_EQ(gp({"--db", "second.db", "import", "b.json"}).code, 0);
  EXPECT_EQ(gp({"--db", "second.db", "export"}).out, original);

  CliResult one = gp({"export", "--run", run_uuid(2), "--run", "1"});
  auto j = nlohmann::json::parse(one.out);
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][0]["uuid"], run_uuid(2));                                            // in the order asked
  EXPECT_CLI(gp({"export", "--branch", "nope"}), 2, "--branch: no run of branch 'nope'");  // as detect refuses it
  EXPECT_CLI(gp({"export", "--run", "nope-nope"}), 2, "no run matches 'nope-nope'");
}

TEST_F(CliTest, ImportFromStandardInput) {
  EXPECT_CLI(gp({"import", "-"}, runs_file(1, 2)), 0, "2 new");
  EXPECT_CLI(gp({"import", "-"}, "{\"format\": 1}"), 2, "<stdin>: format: expected \"gpuperf-results\", got 1");
}

TEST_F(CliTest, DbMigrateRefusesAMissingDatabaseAndReports) {
  EXPECT_CLI(gp({"db", "migrate"}), 2, "no database at 'gpuperf.db' (nothing was created");  // a mistyped --db
  EXPECT_FALSE(exists("gpuperf.db"));
  seed();
  const std::string latest = std::to_string(db::Store::kSchemaVersion);
  EXPECT_CLI(gp({"db", "migrate"}), 0, "schema version " + latest);
}

// A database from the gpuperf before recorded runs: listed and exported as it is, then migrated on request.
TEST_F(CliTest, VersionOneDatabaseIsReadThenMigrated) {
  {
    db::Connection c(path("gpuperf.db"), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    c.exec(read_bytes(DB_FIXTURES "/schema_v1.sql"));
  }
  const std::string before = bytes("gpuperf.db");
  CliResult list = gp({"runs"});
  EXPECT_CLI(list, 0, "feature/x");
  EXPECT_EQ(list.out.find("command"), std::string::npos) << list.out;
  EXPECT_CLI(gp({"db", "info"}), 0,
             "schema version  1 (this gpuperf writes " + std::to_string(db::Store::kSchemaVersion) + ")");
  CliResult exported = gp({"export"});
  ASSERT_EQ(exported.code, 0) << exported.err;
  EXPECT_EQ(nlohmann::json::parse(exported.out)["runs"].size(), 2u);
  EXPECT_EQ(bytes("gpuperf.db"), before);  // reading migrated nothing
  EXPECT_CLI(gp({"db", "migrate"}), 0, "schema version 1 -> " + std::to_string(db::Store::kSchemaVersion));
  EXPECT_EQ(gp({"export"}).out, exported.out);  // the same runs after the migration
}

TEST_F(CliTest, RecordedRunsShowTheirCommandAndEnd) {
  std::vector<gpuperf::Run> runs{make_run(run_uuid(1), "2026-10-01T02:00:00Z"),
                                 make_recorded_run(run_uuid(2), "2026-10-02T02:00:00Z", 1),
                                 make_recorded_run(run_uuid(3), "2026-10-03T02:00:00Z", 0),
                                 make_recorded_run(run_uuid(4), "2026-10-04T02:00:00Z", -9)};
  runs[1].command = "./train --data /datasets/imagenet/train --epochs 90 --batch 256";
  for (std::size_t i = 1; i < runs.size(); ++i) runs[i].branch = "recorded";
  write("r.json", db::to_interchange(runs));
  ASSERT_EQ(gp({"import", "r.json"}).code, 0);

  CliResult table = gp({"runs"});
  ASSERT_EQ(table.code, 0) << table.err;
  std::vector<std::string> lines;
  for (std::size_t at = 0, nl; (nl = table.out.find('\n', at)) != std::string::npos; at = nl + 1) {
    lines.push_back(table.out.substr(at, nl - at));
  }
  ASSERT_EQ(lines.size(), 5u) << table.out;
  EXPECT_EQ(lines[0].rfind("id  uuid      started", 0), 0u) << lines[0];
  EXPECT_EQ(lines[0].substr(lines[0].size() - 7), "command") << lines[0];
  const std::size_t col = lines[0].size() - 7;
  EXPECT_LT(lines[1].size(), col);  // the benchmark run: no command cell
  // Cut to 40 characters, and the exit status when it was not 0.
  EXPECT_EQ(lines[2].substr(col), "./train --data /datasets/imagenet/tra... [exit 1]");
  EXPECT_EQ(lines[3].substr(col), "./train --epochs 2 --name 'run 1'");
  EXPECT_EQ(lines[4].substr(col), "./train --epochs 2 --name 'run 1' [signal 9]");
  // Listing only benchmark runs keeps the table as it was.
  EXPECT_EQ(gp({"runs", "--branch", "main"}).out.find("command"), std::string::npos);

  CliResult json = gp({"runs", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j.size(), 4u);
  EXPECT_FALSE(j[0].contains("command"));
  EXPECT_FALSE(j[0].contains("exit_status"));
  EXPECT_EQ(j[1]["command"], runs[1].command);  // in full
  EXPECT_EQ(j[1]["exit_status"], 1);
  EXPECT_EQ(j[2]["exit_status"], 0);
  EXPECT_EQ(j[3]["exit_status"], -9);
}

// A moving baseline (a branch, label or commit) keeps to the other side's kind: the suite is compared with
// the latest suite run of main, a recorded program with the latest recording of the same command (else of
// another), never the one with the other, whichever is newer.
TEST_F(CliTest, AMovingBaselineIsTheLatestRunOfTheSameKind) {
  std::vector<gpuperf::Run> runs{
      make_run(run_uuid(1), "2026-10-01T02:00:00Z"),          make_recorded_run(run_uuid(2), "2026-10-02T02:00:00Z"),
      make_recorded_run(run_uuid(3), "2026-10-03T02:00:00Z"), make_run(run_uuid(4), "2026-10-04T02:00:00Z", "feature"),
      make_recorded_run(run_uuid(5), "2026-10-05T02:00:00Z"), make_recorded_run(run_uuid(6), "2026-10-06T02:00:00Z")};
  runs[2].command = "./serve --batch 8";  // main's newest run: a recording of another program
  runs[4].branch = "feature";
  runs[5].branch = "feature";
  runs[5].command = "./eval";  // a program main never recorded
  for (std::size_t i = 3; i < runs.size(); ++i) runs[i].label = "candidate";
  write("k.json", db::to_interchange(runs));
  ASSERT_EQ(gp({"import", "k.json"}).code, 0);
  auto base_of = [&](const std::vector<std::string>& refs) {
    std::vector<std::string> args{"compare"};
    args.insert(args.end(), refs.begin(), refs.end());
    args.insert(args.end(), {"--format", "json"});
    const CliResult r = gp(args);
    EXPECT_LE(r.code, 1) << r.err;
    return r.code <= 1 ? nlohmann::json::parse(r.out)["base"]["run"].get<std::string>() : r.err;
  };
  EXPECT_EQ(base_of({"main", run_uuid(4)}), run_uuid(1));          // the suite: not main's newer recordings
  EXPECT_EQ(base_of({"branch:main", run_uuid(5)}), run_uuid(2));   // the same command, not the newer ./serve
  EXPECT_EQ(base_of({"main", run_uuid(6)}), run_uuid(3));          // no ./eval on main: its latest recording
  EXPECT_EQ(base_of({"label:record", run_uuid(5)}), run_uuid(2));  // labels likewise
  EXPECT_EQ(base_of({"label:nightly", run_uuid(4)}), run_uuid(1));
  EXPECT_EQ(base_of({"main", "feature"}), run_uuid(3));         // feature's latest is ./eval: main's latest recording
  EXPECT_EQ(base_of({run_uuid(3), run_uuid(4)}), run_uuid(3));  // a run named by id or uuid is taken as it is
  // A kind the branch never ran: a clear error, naming what the branch has.
  EXPECT_CLI(gp({"compare", "label:record", run_uuid(4)}), 2,
             "'label:record': label 'record' has no run on machine GPU-1111 (gpu-node-1) of the kind compared, a "
             "benchmark-suite run (its latest, run 3, is a recording of `./serve --batch 8`)");
  // check resolves its baseline, of the kind it will measure, before any GPU work (exit 2, not 3).
  EXPECT_CLI(gp({"check", "--baseline", "label:record"}), 2,
             "label 'record' has no run of the kind compared, a benchmark-suite run (its latest, run 3, is a "
             "recording of `./serve --batch 8`)");
  EXPECT_CLI(gp({"check", "--record", "--baseline", "label:nightly", "--", "./train", "--epochs", "3"}), 2,
             "label 'nightly' has no run of the kind compared, a recording of `./train --epochs 3` (its latest, run "
             "1, is a benchmark-suite run)");
}

// Two `gpuperf import` processes into one database at once: both succeed, nothing is lost.
TEST_F(CliTest, TwoImportsAtOnceBothLand) {
  seed();
  write("x.json", runs_file(10, 10, "x"));
  write("y.json", runs_file(20, 10, "y"));
  CliResult rx, ry;
  std::thread tx([&] { rx = gp({"import", "x.json"}); });
  std::thread ty([&] { ry = gp({"import", "y.json"}); });
  tx.join();
  ty.join();
  EXPECT_CLI(rx, 0, "10 new");
  EXPECT_CLI(ry, 0, "10 new");
  auto runs = nlohmann::json::parse(gp({"runs", "--format", "json"}).out);
  EXPECT_EQ(runs.size(), 23u);
  EXPECT_CLI(gp({"db", "check"}), 0, "ok");
}

// An import killed at any moment leaves the database as it was or with every run of the file: never part.
TEST_F(CliTest, KilledImportIsAllOrNothing) {
  seed();
  std::size_t expected = 3;
  for (int delay_ms : {30, 120, 300, 600, 1200}) {
    SCOPED_TRACE(delay_ms);
    std::vector<gpuperf::Run> runs;
    for (int i = 0; i < 4; ++i) {
      gpuperf::Run r = make_run(run_uuid(delay_ms * 10 + i), "2026-10-20T02:00:00Z");
      r.results[0].metrics[0].samples.assign(50000, 100.0);
      r.results[0].metrics[0].samples[7] = 99.0;
      runs.push_back(r);
    }
    write("big.json", db::to_interchange(runs));
    pid_t pid = spawn_gpuperf({"import", "big.json"}, path(""));
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    auto now = nlohmann::json::parse(gp({"runs", "--format", "json"}).out).size();
    EXPECT_TRUE(now == expected || now == expected + 4)
        << now << " runs after a kill; expected " << expected << " or " << expected + 4;
    expected = now;
    EXPECT_CLI(gp({"db", "check"}), 0, "ok");
  }
}

// db prune: the samples of runs before the cutoff go, each result's summary stays; detect answers as before,
// compare says it compares medians only, and a pruned export imports again. Bad ages are refused (exit 2).
TEST_F(CliTest, PruneDropsOldSamplesAndKeepsWhatDetectAndCompareRead) {
  seed();  // three runs of October 2026, 8 samples each: 7 duration samples and one gld_efficiency value
  EXPECT_CLI(gp({"db", "prune", "--samples-older-than", "7d"}), 2, "last 30 days");
  EXPECT_CLI(gp({"db", "prune", "--samples-older-than", "soon"}), 2, "give a number of days (180d) or a date");
  EXPECT_EQ(gp({"db", "prune"}).code, 2);  // the age is required
  const CliResult detect_before = gp({"detect", "--format", "json"});
  ASSERT_EQ(detect_before.code, 0) << detect_before.err;

  CliResult dry = gp({"db", "prune", "--samples-older-than", "2026-10-03", "--dry-run", "--format", "json"});
  ASSERT_EQ(dry.code, 0) << dry.err;
  auto d = nlohmann::json::parse(dry.out);
  EXPECT_EQ(d["runs"], 2);
  EXPECT_EQ(d["results"], 4);  // two durations a run
  EXPECT_EQ(d["samples"], 14);
  EXPECT_EQ(d["samples_left"], 10);
  EXPECT_EQ(d["dry_run"], true);
  EXPECT_EQ(nlohmann::json::parse(gp({"db", "info", "--format", "json"}).out)["samples"], 24) << "a dry run";

  EXPECT_CLI(gp({"db", "prune", "--samples-older-than", "2026-10-03"}), 0,
             "removed 14 samples of 4 results in 2 runs started before 2026-10-03T00:00:00Z");
  EXPECT_EQ(nlohmann::json::parse(gp({"db", "info", "--format", "json"}).out)["samples"], 10);
  EXPECT_EQ(gp({"detect", "--format", "json"}).out, detect_before.out);
  EXPECT_CLI(gp({"compare", run_uuid(1), run_uuid(2), "--all"}), 0, "samples pruned");
  EXPECT_EQ(gp({"db", "check"}).code, 0);

  CliResult exported = gp({"export", "-o", "pruned.json"});
  ASSERT_EQ(exported.code, 0) << exported.err;
  EXPECT_CLI(gp({"--db", "again.db", "import", "pruned.json"}), 0, "3 new");
  EXPECT_EQ(gp({"--db", "again.db", "export"}).out, bytes("pruned.json"));
}

TEST_F(CliTest, BackupIsAConsistentCopy) {
  seed();
  EXPECT_CLI(gp({"db", "backup", "copy.db"}), 0, "copied to copy.db");
  EXPECT_EQ(gp({"--db", "copy.db", "export"}).out, gp({"export"}).out);
  EXPECT_CLI(gp({"db", "backup", "copy.db"}), 2, "already exists");
}

// `db backup` killed at any moment: the destination is absent or whole, and the retry works.
TEST_F(CliTest, KilledBackupLeavesNothingOrAWholeCopy) {
  std::vector<gpuperf::Run> runs;
  for (int i = 0; i < 20; ++i) {
    gpuperf::Run r = make_run(run_uuid(100 + i), "2026-10-20T02:00:00Z");
    r.results[0].metrics[0].samples.assign(20000, 100.0 + i);
    runs.push_back(r);
  }
  write("big.json", db::to_interchange(runs));
  ASSERT_EQ(gp({"import", "big.json"}).code, 0);
  const std::string all = gp({"export"}).out;
  for (int delay_ms : {0, 2, 10, 30, 60, 120}) {
    SCOPED_TRACE(delay_ms);
    pid_t pid = spawn_gpuperf({"db", "backup", "copy.db"}, path(""));
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    if (exists("copy.db")) {
      EXPECT_EQ(gp({"--db", "copy.db", "export"}).out, all);
    }
    std::filesystem::remove(path("copy.db"));
    EXPECT_CLI(gp({"db", "backup", "copy.db"}), 0, "copied to copy.db");
    EXPECT_EQ(gp({"--db", "copy.db", "export"}).out, all);
    std::filesystem::remove(path("copy.db"));
  }
  // The last retry removed what the kills left: no temporary remains.
  for (const auto& e : std::filesystem::directory_iterator(path(""))) {
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  }
}

// A lock held past the busy timeout: exit 3, naming the holder; the timeout comes from --busy-timeout or
// $GPUPERF_DB_BUSY_TIMEOUT, and a writer with the default waits its turn.
TEST_F(CliTest, ALockHeldTooLongNamesItsHolder) {
  seed();
  write("a.json", runs_file(10, 1));
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t holder = fork();
  if (holder == 0) {
    sqlite3* db = nullptr;
    sqlite3_open(path("gpuperf.db").c_str(), &db);
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) _exit(1);
    char c = 1;
    if (::write(ready[1], &c, 1) != 1) _exit(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  EXPECT_CLI(gp({"--busy-timeout", "0.2", "import", "a.json"}), 3,
             "/gpuperf.db' is locked by pid " + std::to_string(holder) + " (");
  setenv("GPUPERF_DB_BUSY_TIMEOUT", "0.2", 1);
  EXPECT_CLI(gp({"import", "a.json"}), 3, "gave up after waiting 0.2 s");
  setenv("GPUPERF_DB_BUSY_TIMEOUT", "later", 1);
  EXPECT_CLI(gp({"import", "a.json"}), 2, "GPUPERF_DB_BUSY_TIMEOUT: 'later' is not a busy timeout");
  unsetenv("GPUPERF_DB_BUSY_TIMEOUT");
  EXPECT_CLI(gp({"--busy-timeout", "soon", "import", "a.json"}), 2, "--busy-timeout: 'soon' is not a busy timeout");
  EXPECT_CLI(gp({"import", "a.json"}), 0, "1 new");  // the default waits for the holder's commit
  int status = 0;
  waitpid(holder, &status, 0);
  EXPECT_EQ(nlohmann::json::parse(gp({"runs", "--format", "json"}).out).size(), 4u);
}

}  // namespace
}  // namespace gpuperf::testing
