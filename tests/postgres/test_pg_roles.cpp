// The three roles of docs/postgresql.md ("Setting up the server"), made with the SQL exactly as that page
// gives it (read from the page, so the docs cannot drift from what is tested), each doing its job with the
// gpuperf executable and refused the rest: exit 3, naming the privilege, never printing the password.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "db/store.hpp"
#include "tests/cli/cli_runner.hpp"
#include "tests/support/pg_cluster.hpp"

namespace gpuperf::testing {
namespace {

const std::string kFixture = std::string(GPUPERF_SOURCE_DIR) + "/tests/reports/fixture_history.json";
constexpr const char *kAdminPw = "admin-Secret-1", *kWriterPw = "writer-Secret-2", *kReaderPw = "reader-Secret-3";

// The ```sql blocks of docs/postgresql.md's "Setting up the server" section, in order.
std::vector<std::string> setup_sql_blocks() {
  std::ifstream in(std::string(GPUPERF_SOURCE_DIR) + "/docs/postgresql.md");
  std::vector<std::string> blocks;
  std::string line;
  bool in_section = false, in_block = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Setting up the server";
    if (!in_section) continue;
    if (!in_block && line == "```sql") {
      in_block = true;
      blocks.emplace_back();
    } else if (in_block && line == "```") {
      in_block = false;
    } else if (in_block) {
      blocks.back() += line + "\n";
    }
  }
  return blocks;
}

// Runs a block as psql would as the superuser: `\c DB` switches the database, `--` starts a comment, and
// each statement goes alone (CREATE DATABASE may not share a transaction).
void run_as_psql(const PgCluster& pg, const std::string& block) {
  std::istringstream lines(block);
  std::string line, statement, db = "postgres";
  while (std::getline(lines, line)) {
    if (line.rfind("\\c ", 0) == 0) {
      db = line.substr(3);
      continue;
    }
    const std::size_t comment = line.find("--");
    if (comment != std::string::npos) line.resize(comment);
    for (char ch : line) {
      if (ch == ';') {
        pg.exec(statement, db);
        statement.clear();
      } else {
        statement += ch;
      }
    }
    statement += ' ';
  }
  ASSERT_EQ(statement.find_first_not_of(" \n"), std::string::npos) << "a statement without ';': " << statement;
}

bool has(const CliResult& r, const std::string& text) {
  return r.out.find(text) != std::string::npos || r.err.find(text) != std::string::npos;
}

class PgRoles : public ::testing::Test {
 protected:
  void SetUp() override {
    GPUPERF_REQUIRE_PG();
    cluster_ = std::make_unique<PgCluster>();
    const std::vector<std::string> blocks = setup_sql_blocks();
    ASSERT_EQ(blocks.size(), 2u) << "docs/postgresql.md, \"Setting up the server\": the roles, then the grants";
    ASSERT_NO_FATAL_FAILURE(run_as_psql(*cluster_, blocks[0]));
    for (const auto& [role, pw] : {std::pair{"gpuperf_admin", kAdminPw}, std::pair{"gpuperf_writer", kWriterPw},
                                   std::pair{"gpuperf_reader", kReaderPw}}) {
      cluster_->exec("ALTER ROLE " + std::string(role) + " PASSWORD '" + pw + "'");
    }
    admin_ = cluster_->tcp_uri("gpuperf", "gpuperf_admin", kAdminPw);
    writer_ = cluster_->tcp_uri("gpuperf", "gpuperf_writer", kWriterPw);
    reader_ = cluster_->tcp_uri("gpuperf", "gpuperf_reader", kReaderPw);
    // The admin makes the tables, as the page says, then the second block grants on them.
    const CliResult made = gp(admin_, {"db", "migrate"});
    ASSERT_EQ(made.code, 0) << made.err;
    EXPECT_TRUE(has(made, "schema version 0 -> ")) << made.out;
    // The first block's default privileges already granted what the admin made (a later migration's tables too).
    EXPECT_EQ(cluster_->query_value("SELECT has_table_privilege('gpuperf_writer', 'sample', 'INSERT') AND "
                                    "has_table_privilege('gpuperf_reader', 'sample', 'SELECT') AND NOT "
                                    "has_table_privilege('gpuperf_reader', 'sample', 'INSERT')",
                                    "gpuperf"),
              "t");
    ASSERT_NO_FATAL_FAILURE(run_as_psql(*cluster_, blocks[1]));
  }
  // `gpuperf --db DB args...`, checking that no role's password shows in what it printed.
  CliResult gp(const std::string& db, std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db});
    CliResult r = run_gpuperf(args, dir_.path());
    for (const char* pw : {kAdminPw, kWriterPw, kReaderPw}) {
      EXPECT_FALSE(has(r, pw)) << "a password was printed by " << args[2] << ":\n" << r.out << r.err;
    }
    return r;
  }
  std::string owner_of(const std::string& table) {
    return cluster_->query_value("SELECT tableowner FROM pg_tables WHERE tablename = '" + table + "'", "gpuperf");
  }
  // A generated history of `nights` runs on the machines of bench/report/report_bench_gen.py (fixed seed).
  std::string generated(int nights) {
    const std::string path = dir_.file("gen-" + std::to_string(nights) + ".json");
    const std::string cmd = "python3 '" + std::string(GPUPERF_SOURCE_DIR) +
                            "/bench/report/report_bench_gen.py' --runs " + std::to_string(nights) + " > '" + path + "'";
    return std::system(cmd.c_str()) == 0 ? path : "";
  }

  // A pre-merge run of branch feature/roles on the nightly machine: the fixture's last main run, re-labelled.
  std::string candidate_run() {
    const CliResult night = gp(reader_, {"export", "--run", "00000001-0000-4000-8000-00000000000b"});
    std::string text = night.out;
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"00000001-0000-4000-8000-00000000000b",
                                                                       "0000000f-0000-4000-8000-0000000000aa"},
                                   {"\"branch\":\"main\"", "\"branch\":\"feature/roles\""},
                                   {"\"label\":\"nightly\"", "\"label\":\"pre-merge\""}}) {
      const std::size_t at = text.find(from);
      if (at == std::string::npos) return "";
      text.replace(at, from.size(), to);
    }
    const std::string path = dir_.file("candidate.json");
    write_bytes(path, text);
    return path;
  }

  TempDir dir_;
  std::unique_ptr<PgCluster> cluster_;
  std::string admin_, writer_, reader_;
};

TEST_F(PgRoles, TheAdminOwnsTheTablesItMade) {
  for (const char* table : {"machine", "run", "benchmark", "metric", "outcome", "result", "sample", "schema_version"}) {
    EXPECT_EQ(owner_of(table), "gpuperf_admin") << table;
  }
}

TEST_F(PgRoles, TheWriterStoresRunsAndComparesAsThePreMergeJobDoesButMayNotExclude) {
  // The nightlies' history, then a branch's run checked against the base branch, as ci/premerge.sh does
  // (check = run + compare; without a GPU the run comes from a file).
  const CliResult nightly = gp(writer_, {"import", kFixture});
  ASSERT_EQ(nightly.code, 0) << nightly.err;
  EXPECT_TRUE(has(nightly, "postgresql://gpuperf_writer@127.0.0.1")) << nightly.out << nightly.err;
  const CliResult again = gp(writer_, {"--quiet", "import", kFixture});
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(cluster_->query_value("SELECT count(*) FROM run", "gpuperf"), "16");
  const CliResult base = gp(writer_, {"runs", "--branch", "main", "--format", "json"});
  EXPECT_EQ(base.code, 0) << base.err;
  EXPECT_TRUE(has(base, "e5c5b06e4648b7decdf61d453124a93bfad7f7fa")) << base.out;
  const CliResult candidate = gp(writer_, {"import", candidate_run()});
  ASSERT_EQ(candidate.code, 0) << candidate.err;
  const CliResult compared = gp(writer_, {"compare", "branch:main", "branch:feature/roles", "--format", "md", "--all"});
  EXPECT_TRUE(compared.code == 0 || compared.code == 1) << compared.err;
  EXPECT_TRUE(has(compared, "matmul/naive")) << compared.out;
  const CliResult detected = gp(writer_, {"detect", "--format", "json"});
  EXPECT_TRUE(detected.code == 0 || detected.code == 1) << detected.err;
  // A later run of a known machine refreshes its machine row and the benchmarks' baselines (UPDATE granted).
  const CliResult more = gp(writer_, {"--quiet", "import", generated(25)});
  EXPECT_EQ(more.code, 0) << more.err;
  EXPECT_FALSE(has(more, "skipping")) << more.err;  // ANALYZE of tables it does not own is quietly skipped

  // Excluding and including runs is the admin's.
  for (const char* verb : {"exclude", "include"}) {
    SCOPED_TRACE(verb);
    std::vector<std::string> args = {"runs", verb, "3"};
    if (std::string(verb) == "exclude") args.insert(args.end(), {"--reason", "shared GPU"});
    const CliResult refused = gp(writer_, args);
    EXPECT_EQ(refused.code, 3) << refused.err;
    EXPECT_TRUE(has(refused, "role 'gpuperf_writer' may not " + std::string(verb) + " runs")) << refused.err;
    EXPECT_TRUE(has(refused, "it lacks UPDATE on table run")) << refused.err;
  }
  EXPECT_EQ(cluster_->query_value("SELECT count(*) FROM run WHERE excluded", "gpuperf"), "0");

  // db migrate of a current schema is a no-op the writer may do; a merge only adds runs.
  const CliResult migrate = gp(writer_, {"db", "migrate"});
  EXPECT_EQ(migrate.code, 0) << migrate.err;
  EXPECT_TRUE(has(migrate, "already at schema version")) << migrate.out;
  const std::string file = dir_.file("runner.db");
  ASSERT_EQ(gp(file, {"--quiet", "import", generated(3)}).code, 0);
  const CliResult merged = gp(writer_, {"merge", file, "--into", writer_});
  EXPECT_EQ(merged.code, 0) << merged.err;
  EXPECT_EQ(owner_of("run"), "gpuperf_admin");
}

TEST_F(PgRoles, TheAdminExcludesIncludesMigratesAndMerges) {
  ASSERT_EQ(gp(writer_, {"--quiet", "import", kFixture}).code, 0);
  const CliResult excluded = gp(admin_, {"runs", "exclude", "3", "--reason", "shared GPU"});
  ASSERT_EQ(excluded.code, 0) << excluded.err;
  EXPECT_EQ(cluster_->query_value("SELECT exclude_reason FROM run WHERE id = 3 AND excluded", "gpuperf"), "shared GPU");
  // The reader sees the exclusion.
  const CliResult listed = gp(reader_, {"runs"});
  EXPECT_EQ(listed.code, 0) << listed.err;
  EXPECT_TRUE(has(listed, "yes: shared GPU")) << listed.out;
  EXPECT_EQ(gp(admin_, {"runs", "include", "3"}).code, 0);
  EXPECT_EQ(cluster_->query_value("SELECT count(*) FROM run WHERE excluded", "gpuperf"), "0");

  const CliResult migrate = gp(admin_, {"db", "migrate"});
  EXPECT_EQ(migrate.code, 0) << migrate.err;
  EXPECT_TRUE(has(migrate, "already at schema version")) << migrate.out;

  const std::string a = dir_.file("a.db"), b = dir_.file("b.db");
  ASSERT_EQ(gp(a, {"--quiet", "import", generated(4)}).code, 0);
  ASSERT_EQ(gp(b, {"--quiet", "import", kFixture}).code, 0);
  const CliResult merged = gp(admin_, {"merge", a, b, "--into", admin_});
  ASSERT_EQ(merged.code, 0) << merged.err;
  EXPECT_EQ(cluster_->query_value("SELECT count(*) FROM run", "gpuperf"), "20");
  const CliResult checked = gp(admin_, {"db", "check"});
  EXPECT_EQ(checked.code, 0) << checked.out << checked.err;
}

TEST_F(PgRoles, TheReaderReadsEverythingAndStoresNothing) {
  ASSERT_EQ(gp(writer_, {"--quiet", "import", kFixture}).code, 0);
  const std::vector<std::vector<std::string>> reads = {
      {"runs"},
      {"runs", "--branch", "main", "--format", "json"},
      {"compare", "1", "2"},
      {"compare", "branch:main", "12", "--format", "json"},
      {"detect"},
      {"detect", "--format", "md"},
      {"report", "--out", dir_.file("site")},
      {"export", "--output", dir_.file("all.json")},
      {"db", "info"},
      {"db", "check"},
  };
  for (const auto& c : reads) {
    SCOPED_TRACE(c[0] + " " + c[1 % c.size()]);
    const CliResult r = gp(reader_, c);
    EXPECT_TRUE(r.code == 0 || r.code == 1) << r.err;
  }
  EXPECT_FALSE(read_bytes(dir_.file("site") + "/report.html").empty());
  EXPECT_NE(read_bytes(dir_.file("all.json")).find("00000014-0000-4000-8000-000000000003"), std::string::npos);

  const std::string file = dir_.file("runner.db");
  ASSERT_EQ(gp(file, {"--quiet", "import", generated(3)}).code, 0);
  const std::vector<std::vector<std::string>> writes = {
      {"import", generated(3)},
      {"merge", file, "--into", reader_},
      {"runs", "exclude", "1", "--reason", "x"},
      {"runs", "include", "1"},
      {"db", "migrate"},
  };
  for (const auto& c : writes) {
    SCOPED_TRACE(c[0] + " " + c[1]);
    const CliResult r = gp(reader_, c);
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_TRUE(has(r, "role 'gpuperf_reader' may not store runs")) << r.err;
    EXPECT_TRUE(has(r, "INSERT on table machine")) << r.err;
  }
  EXPECT_EQ(cluster_->query_value("SELECT count(*) FROM run", "gpuperf"), "16");
  EXPECT_EQ(cluster_->query_value("SELECT count(*) FROM run WHERE excluded", "gpuperf"), "0");
}

// Answering findings (gpuperf ack, annotate) is the writer's and the admin's: the default privileges of the
// page's first block grant INSERT on the answers' tables as the admin's migration makes them. The reader is
// refused with exit 2, naming the privilege, and nothing changes.
TEST_F(PgRoles, TheWriterAndAdminAnswerFindingsTheReaderMayNot) {
  ASSERT_EQ(gp(writer_, {"--quiet", "import", kFixture}).code, 0);
  // The fixture's runs hold no step of it: --no-finding answers it anyway (the roles are the question here).
  const std::vector<std::string> ack = {
      "ack", "--run", "12", "--benchmark", "matmul/naive[n=1024]", "--reason", "tracked in #123", "--no-finding"};
  const CliResult refused = gp(reader_, ack);
  EXPECT_EQ(refused.code, 2) << refused.out << refused.err;
  EXPECT_TRUE(has(refused, "may not record acknowledgements or annotations")) << refused.err;
  EXPECT_TRUE(has(refused, "INSERT on table acknowledgement")) << refused.err;
  const CliResult note_refused = gp(reader_, {"annotate", "--run", "12", "driver 590 installed"});
  EXPECT_EQ(note_refused.code, 2) << note_refused.err;
  EXPECT_EQ(cluster_->query_value("SELECT count(*) FROM acknowledgement", "gpuperf"), "0");
  EXPECT_EQ(cluster_->query_value("SELECT count(*) FROM annotation", "gpuperf"), "0");

  const CliResult acked = gp(writer_, ack);
  ASSERT_EQ(acked.code, 0) << acked.err;
  EXPECT_EQ(gp(writer_, {"annotate", "--run", "12", "driver 590 installed", "--by", "ana"}).code, 0);
  const CliResult undone = gp(admin_, {"ack", "--undo", "--run", "12", "--benchmark", "matmul/naive[n=1024]"});
  EXPECT_EQ(undone.code, 0) << undone.err;
  // The reader lists them.
  const CliResult listed = gp(reader_, {"ack", "--list"});
  EXPECT_EQ(listed.code, 0) << listed.err;
  EXPECT_TRUE(has(listed, "undone, was acknowledged: tracked in #123")) << listed.out;
  EXPECT_TRUE(has(gp(reader_, {"annotate", "--list"}), "driver 590 installed"));
  const CliResult undo_refused = gp(reader_, {"ack", "--undo", "--run", "12", "--benchmark", "matmul/naive[n=1024]"});
  EXPECT_EQ(undo_refused.code, 2) << undo_refused.err;
  EXPECT_EQ(cluster_->query_value("SELECT count(*) FROM acknowledgement_undo", "gpuperf"), "1");
}

TEST_F(PgRoles, AnOlderSchemaIsMigratedByTheAdminNotByARunnersNightly) {
  ASSERT_EQ(gp(writer_, {"--quiet", "import", kFixture}).code, 0);
  // The database as an earlier gpuperf left it: schema version 1, before run.command and exit_status (and the
  // source lines of schema 3, the rank fields of schema 4, the identity tables of schema 5, the answers of schema 7).
  cluster_->exec(
      "DROP TABLE annotation, acknowledgement_undo, acknowledgement, outcome_code, run_environment, source_line, "
      "outcome_source; ALTER TABLE run DROP COLUMN command, DROP COLUMN exit_status, "
      "DROP COLUMN rank, DROP COLUMN local_rank, DROP COLUMN world_size; UPDATE schema_version SET version = 1",
      "gpuperf");
  for (const std::vector<std::string>& c :
       std::vector<std::vector<std::string>>{{"import", generated(3)}, {"db", "migrate"}}) {
    SCOPED_TRACE(c[0]);
    const CliResult r = gp(writer_, c);
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_TRUE(has(r, "role 'gpuperf_writer' may not write to")) << r.err;
    EXPECT_TRUE(has(r, "schema version 1, this gpuperf writes " + std::to_string(db::Store::kSchemaVersion))) << r.err;
    EXPECT_TRUE(has(r, "run `gpuperf db migrate` as the admin role")) << r.err;
  }
  EXPECT_EQ(cluster_->query_value("SELECT version FROM schema_version", "gpuperf"), "1");
  EXPECT_EQ(cluster_->query_value("SELECT count(*) FROM run", "gpuperf"), "16");
  const CliResult read = gp(reader_, {"runs"});
  EXPECT_EQ(read.code, 2) << read.err;
  EXPECT_TRUE(has(read, "run `gpuperf db migrate` first")) << read.err;

  const CliResult migrated = gp(admin_, {"db", "migrate"});
  ASSERT_EQ(migrated.code, 0) << migrated.err;
  EXPECT_TRUE(has(migrated, "schema version 1 -> " + std::to_string(db::Store::kSchemaVersion))) << migrated.out;
  const CliResult stored = gp(writer_, {"--quiet", "import", generated(3)});
  EXPECT_EQ(stored.code, 0) << stored.err;
  EXPECT_EQ(gp(reader_, {"runs"}).code, 0);
  // The migrated database keeps a recorded rank of a distributed job, and the reader lists it.
  const std::string ranked = dir_.file("ranked.json");
  std::ofstream(ranked) << R"({"format": "gpuperf-results", "version": 1, "runs": [{"uuid": )"
                        << R"("0000000e-0000-4000-8000-0000000000ee", "started_at": "2026-11-20T02:00:00Z", )"
                        << R"("command": "torchrun train.py", "exit_status": 0, "rank": 1, "local_rank": 1, )"
                        << R"("world_size": 2, "machine": {"hostname": "node-1", "gpu_name": "NVIDIA H100", )"
                        << R"("gpu_uuid": "GPU-11111111"}, "results": []}]})";
  ASSERT_EQ(gp(writer_, {"--quiet", "import", ranked}).code, 0);
  const CliResult listed = gp(reader_, {"runs"});
  EXPECT_TRUE(has(listed, "node-1 (NVIDIA H100, GPU-11111111) rank 1/2")) << listed.out;
}

}  // namespace
}  // namespace gpuperf::testing
