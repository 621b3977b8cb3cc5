// The gpuperf executable on a PostgreSQL history: the same answers as on an SQLite file for the same
// imported history, moving a team's files onto the server, the database commands there, a server killed
// in the middle of an import, and roles with only the privileges their job needs.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "db/postgres/connection.hpp"
#include "tests/cli/cli_runner.hpp"
#include "tests/db/fixtures.hpp"
#include "tests/support/pg_cluster.hpp"

namespace gpuperf::testing {
namespace {

class PgCli : public ::testing::Test {
 protected:
  void SetUp() override {
    GPUPERF_REQUIRE_PG();
    cluster_ = std::make_unique<PgCluster>();
  }
  // A fresh database on the cluster, as a URI.
  std::string database(const std::string& name) {
    cluster_->create_database(name);
    return cluster_->uri(name);
  }
  CliResult gp(const std::string& db, std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db});
    return run_gpuperf(args, dir_.path());
  }
  TempDir dir_;
  std::unique_ptr<PgCluster> cluster_;
};

// A generated 60-night history with a dozen steps (bench/report/report_bench_gen.py, fixed seed).
std::string generated_history(const TempDir& dir, int nights) {
  const std::string path = dir.file("nights.json");
  const std::string cmd = "python3 '" + std::string(GPUPERF_SOURCE_DIR) + "/bench/report/report_bench_gen.py' --runs " +
                          std::to_string(nights) + " > '" + path + "'";
  if (std::system(cmd.c_str()) != 0) return "";
  return path;
}

void expect_same(const CliResult& lite, const CliResult& pg, const std::string& what) {
  EXPECT_EQ(lite.code, pg.code) << what << "\nsqlite: " << lite.err << "\npostgres: " << pg.err;
  EXPECT_EQ(lite.out, pg.out) << what;
}

TEST_F(PgCli, EveryReadingCommandAnswersAsOnSqlite) {
  const std::vector<std::string> histories = {
      std::string(GPUPERF_SOURCE_DIR) + "/tests/reports/fixture_history.json",
      std::string(GPUPERF_SOURCE_DIR) + "/tests/analysis/fixtures/history.json",
      generated_history(dir_, 60),
  };
  int n = 0;
  for (const std::string& history : histories) {
    ASSERT_FALSE(history.empty()) << "the 60-night history could not be generated";
    SCOPED_TRACE(history);
    const std::string lite = dir_.file("h" + std::to_string(n) + ".db");
    const std::string pg = database("h" + std::to_string(n));
    ++n;
    ASSERT_EQ(gp(lite, {"--quiet", "import", history}).code, 0);
    const CliResult imported = gp(pg, {"--quiet", "import", history});
    ASSERT_EQ(imported.code, 0) << imported.err;
    const CliResult runs = gp(lite, {"runs", "--format", "json"});
    ASSERT_EQ(runs.code, 0);
    const std::size_t count = static_cast<std::size_t>(std::count(runs.out.begin(), runs.out.end(), '{'));
    ASSERT_GT(count, 2u);
    const std::vector<std::vector<std::string>> commands = {
        {"runs"},
        {"runs", "--format", "json"},
        {"runs", "--last", "3", "--branch", "main"},
        {"compare", "1", "2"},
        {"compare", "1", "3", "--format", "json"},
        {"compare", "2", "3", "--format", "md", "--all"},
        {"compare", "branch:main", "3", "--history", "5"},
        {"detect"},
        {"detect", "--format", "json"},
        {"detect", "--format", "md", "--last", "30"},
        {"detect", "--format", "json", "--as-of", std::to_string(count / 2)},
        {"detect", "--format", "md", "--machine", "1", "--before-run", std::to_string(count / 2)},
        {"export"},
        {"export", "--run", "2"},
    };
    for (const auto& c : commands) {
      std::string what;
      for (const auto& w : c) what += w + " ";
      expect_same(gp(lite, c), gp(pg, c), what);
    }
    const std::string out_lite = dir_.file("lite-" + std::to_string(n)), out_pg = dir_.file("pg-" + std::to_string(n));
    ASSERT_EQ(gp(lite, {"--quiet", "report", "--out", out_lite}).code, 0);
    const CliResult rep = gp(pg, {"--quiet", "report", "--out", out_pg});
    ASSERT_EQ(rep.code, 0) << rep.err;
    EXPECT_EQ(read_bytes(out_lite + "/report.md"), read_bytes(out_pg + "/report.md"));
    EXPECT_EQ(read_bytes(out_lite + "/report.html"), read_bytes(out_pg + "/report.html"));
  }
}

TEST_F(PgCli, MergeMovesFilesOntoTheServerOnceAndTheDatabaseCommandsWorkThere) {
  const std::string a = dir_.file("a.db"), b = dir_.file("b.db");
  ASSERT_EQ(gp(a, {"--quiet", "import", std::string(GPUPERF_SOURCE_DIR) + "/tests/reports/fixture_history.json"}).code,
            0);
  ASSERT_EQ(gp(b, {"--quiet", "import", generated_history(dir_, 5)}).code, 0);
  const std::string pg = database("team");
  const CliResult first = gp(pg, {"merge", a, b, "--into", pg});
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_NE(first.out.find("skipped (already there)"), std::string::npos) << first.out;
  const CliResult second = gp(pg, {"merge", a, b, "--into", pg});
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_NE(second.out.find(": 0 new,"), std::string::npos) << second.out;

  const CliResult info = gp(pg, {"db", "info"});
  ASSERT_EQ(info.code, 0) << info.err;
  EXPECT_NE(info.out.find("engine          postgresql"), std::string::npos) << info.out;
  const CliResult check = gp(pg, {"db", "check"});
  EXPECT_EQ(check.code, 0) << check.out << check.err;
  const CliResult migrate = gp(pg, {"db", "migrate"});
  EXPECT_EQ(migrate.code, 0) << migrate.err;
  EXPECT_NE(migrate.out.find("already at schema version"), std::string::npos) << migrate.out;
  const CliResult backup = gp(pg, {"db", "backup", dir_.file("copy.db")});
  EXPECT_EQ(backup.code, 2);
  EXPECT_NE(backup.err.find("pg_dump"), std::string::npos) << backup.err;
  // The server's export equals the files' runs.
  const CliResult exported = gp(pg, {"export", "--output", dir_.file("all.json")});
  ASSERT_EQ(exported.code, 0) << exported.err;
  const std::string c = dir_.file("c.db");
  ASSERT_EQ(gp(c, {"--quiet", "import", dir_.file("all.json")}).code, 0);
  EXPECT_EQ(gp(c, {"export"}).out, gp(pg, {"export"}).out);
}

TEST_F(PgCli, FaultsExitThreeOrTwoAndNamePlainlyWhatWasWrong) {
  const std::string pg = database("gpuperf");
  // A password given in the URI never appears in what gpuperf prints.
  const std::string with_password = cluster_->tcp_uri("gpuperf");
  const CliResult imported =
      gp(with_password, {"import", std::string(GPUPERF_SOURCE_DIR) + "/tests/reports/fixture_history.json"});
  ASSERT_EQ(imported.code, 0) << imported.err;
  EXPECT_EQ((imported.out + imported.err).find(PgCluster::superuser_password()), std::string::npos)
      << imported.out << imported.err;
  EXPECT_NE((imported.out + imported.err).find("postgresql://postgres@127.0.0.1"), std::string::npos) << imported.out;

  const CliResult wrong = gp(cluster_->tcp_uri("gpuperf", "postgres", "wrong-secret"), {"runs"});
  EXPECT_EQ(wrong.code, 3);
  EXPECT_NE(wrong.err.find("password authentication failed for user \"postgres\""), std::string::npos) << wrong.err;
  EXPECT_EQ(wrong.err.find("wrong-secret"), std::string::npos) << wrong.err;

  // Another program's database: exit 2, nothing written.
  cluster_->create_database("shop");
  cluster_->exec("CREATE TABLE orders(id integer)", "shop");
  const CliResult foreign =
      gp(cluster_->uri("shop"), {"import", std::string(GPUPERF_SOURCE_DIR) + "/tests/reports/fixture_history.json"});
  EXPECT_EQ(foreign.code, 2) << foreign.err;
  EXPECT_EQ(cluster_->query_value("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", "shop"), "1");

  // A server that is not there: exit 3 naming host and port, in bounded time.
  const int port = cluster_->port();
  cluster_->stop();
  const auto t0 = std::chrono::steady_clock::now();
  const CliResult down = gp(with_password, {"runs"});
  EXPECT_EQ(down.code, 3);
  EXPECT_NE(down.err.find("127.0.0.1"), std::string::npos) << down.err;
  EXPECT_NE(down.err.find(std::to_string(port)), std::string::npos) << down.err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(15));
}

// `export --output FILE` whose server goes away mid-export: the export is held at its COPY of the samples (another
// session locks the sample table), the server is killed there, and the export exits 3 saying so, leaving
// neither FILE nor its temporary.
TEST_F(PgCli, AServerKilledDuringAnExportExitsThreeAndLeavesNoFile) {
  const std::string pg = database("gpuperf");
  ASSERT_EQ(gp(pg, {"--quiet", "import", std::string(GPUPERF_SOURCE_DIR) + "/tests/reports/fixture_history.json"}).code,
            0);
  db::pg::Connection locker(pg, "locker");
  locker.exec_script("BEGIN; LOCK TABLE sample IN ACCESS EXCLUSIVE MODE");
  pid_t exporter = fork();
  ASSERT_GE(exporter, 0);
  if (exporter == 0) {
    const CliResult e = gp(pg, {"export", "--output", dir_.file("all.json")});
    write_bytes(dir_.file("export.err"), e.err);
    _exit(e.code);
  }
  bool waiting = false;
  for (int i = 0; i < 300 && !waiting; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    waiting = cluster_->query_value(
                  "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND "
                  "query LIKE 'COPY (SELECT%'",
                  "gpuperf") == "1";
  }
  EXPECT_TRUE(waiting) << "the export never reached its COPY";
  cluster_->stop_immediate();
  int status = 0;
  waitpid(exporter, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  const std::string err = read_bytes(dir_.file("export.err"));
  EXPECT_NE(err.find("was lost while exporting runs' samples"), std::string::npos) << err;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    EXPECT_EQ(entry.path().filename().string().find("all.json"), std::string::npos) << entry.path();
  }
}

TEST_F(PgCli, AServerKilledDuringAnImportLeavesEachRunWholeOrAbsent) {
  const std::string pg = database("gpuperf");
  const std::string big = generated_history(dir_, 120);
  ASSERT_FALSE(big.empty());
  // Nightly imports, one file each, so that some are stored before the kill and one is in flight.
  const std::string one_night = dir_.file("one.json");
  ASSERT_EQ(gp(dir_.file("src.db"), {"--quiet", "import", big}).code, 0);
  pid_t importer = fork();
  ASSERT_GE(importer, 0);
  if (importer == 0) {
    // Each night alone, as nightly jobs do: export one run, import it into the server.
    for (int id = 1; id <= 120; ++id) {
      const CliResult e = run_gpuperf({"--db", dir_.file("src.db"), "export", "--run", std::to_string(id), "--output",
                                       dir_.file("night-" + std::to_string(id) + ".json")},
                                      dir_.path());
      if (e.code != 0) _exit(10);
      const CliResult i = run_gpuperf(
          {"--db", pg, "--quiet", "import", dir_.file("night-" + std::to_string(id) + ".json")}, dir_.path());
      if (i.code != 0) _exit(i.code == 3 && i.err.find("PostgreSQL") != std::string::npos ? 3 : 20);
    }
    _exit(0);
  }
  // Let some nights land, then kill the server as a crash would.
  for (int i = 0; i < 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    try {
      if (std::stoi(cluster_->query_value("SELECT count(*) FROM run", "gpuperf")) >= 5) break;
    } catch (const std::exception&) {
    }
  }
  cluster_->stop_immediate();
  int status = 0;
  waitpid(importer, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3) << "the import in flight exits 3, saying the connection was lost";
  cluster_->start();
  // Every stored run is whole: its results and samples equal the source's.
  const CliResult listed = gp(pg, {"runs", "--format", "json"});
  ASSERT_EQ(listed.code, 0) << listed.err;
  const CliResult check = gp(pg, {"db", "check"});
  EXPECT_EQ(check.code, 0) << check.out << check.err;
  const std::string stored_count = cluster_->query_value("SELECT count(*) FROM run", "gpuperf");
  ASSERT_GE(std::stoi(stored_count), 5);
  ASSERT_LT(std::stoi(stored_count), 120);
  for (int id = 1; id <= std::stoi(stored_count); ++id) {
    const CliResult a = gp(pg, {"export", "--run", std::to_string(id)});
    const CliResult b = gp(dir_.file("src.db"), {"export", "--run", std::to_string(id)});
    ASSERT_EQ(a.code, 0) << a.err;
    EXPECT_EQ(a.out, b.out) << "run " << id;
  }
  // Running the rest again completes the history without duplicates.
  const CliResult rest = gp(pg, {"--quiet", "import", big});
  ASSERT_EQ(rest.code, 0) << rest.err;
  EXPECT_EQ(cluster_->query_value("SELECT count(*) FROM run", "gpuperf"), "120");
  EXPECT_EQ(cluster_->query_value("SELECT count(DISTINCT uuid) FROM run", "gpuperf"), "120");
}

TEST_F(PgCli, ReaderAndWriterRolesDoTheirJobsAndNoMore) {
  const std::string pg = database("gpuperf");
  ASSERT_EQ(gp(pg, {"--quiet", "import", std::string(GPUPERF_SOURCE_DIR) + "/tests/reports/fixture_history.json"}).code,
            0);
  cluster_->create_role("dashboard", "r-pw",
                        "GRANT CONNECT ON DATABASE gpuperf TO dashboard; GRANT USAGE ON SCHEMA public TO dashboard; "
                        "GRANT SELECT ON ALL TABLES IN SCHEMA public TO dashboard;",
                        "gpuperf");
  cluster_->create_role("runner", "w-pw",
                        "GRANT CONNECT ON DATABASE gpuperf TO runner; GRANT USAGE ON SCHEMA public TO runner; "
                        "GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO runner; "
                        "GRANT UPDATE ON machine, benchmark TO runner; "
                        "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO runner;",
                        "gpuperf");
  const std::string reader = cluster_->tcp_uri("gpuperf", "dashboard", "r-pw");
  const std::string writer = cluster_->tcp_uri("gpuperf", "runner", "w-pw");
  for (const std::vector<std::string>& c : std::vector<std::vector<std::string>>{
           {"runs"}, {"compare", "1", "2"}, {"detect"}, {"export"}, {"report", "--out", dir_.file("site")}}) {
    const CliResult r = gp(reader, c);
    EXPECT_TRUE(r.code == 0 || r.code == 1) << c[0] << ": " << r.err;
  }
  const CliResult refused = gp(reader, {"import", generated_history(dir_, 3)});
  EXPECT_EQ(refused.code, 3);
  EXPECT_NE(refused.err.find("role 'dashboard' may not store runs"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("INSERT on table"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.err.find("r-pw"), std::string::npos) << refused.err;

  const CliResult stored = gp(writer, {"--quiet", "import", generated_history(dir_, 3)});
  EXPECT_EQ(stored.code, 0) << stored.err;
}

}  // namespace
}  // namespace gpuperf::testing
