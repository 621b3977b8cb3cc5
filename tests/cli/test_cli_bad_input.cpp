// Bad input through the real executable: one clear message naming the problem and where, exit 2 (or 3 for
// the environment), and the database exactly as it was.
#include <sqlite3.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "db/sqlite/connection.hpp"
#include "db/store.hpp"
#include "tests/cli/cli_fixture.hpp"

namespace gpuperf::testing {
namespace {

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

TEST_F(CliTest, BadImportFilesWriteNothing) {
  seed();
  const std::string before = bytes("gpuperf.db");
  const std::string good = runs_file(10, 2);
  const std::string two_same = replace(good, run_uuid(11), run_uuid(10));
  struct Case {
    const char* name;
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"malformed", good.substr(0, good.size() / 2),
       "malformed.json:2:1089: malformed JSON: syntax error while parsing value - unexpected end of input"},
      {"format", replace(good, "gpuperf-results", "nvbench-results"),
       "format.json: format: expected \"gpuperf-results\", got \"nvbench-results\""},
      {"version", replace(good, "\"version\":1", "\"version\":7"),
       "version.json: version: unsupported version 7 (this gpuperf reads version 1)"},
      {"missing", replace(good, "\"started_at\":\"2026-10-11T02:00:00Z\",", ""),
       "missing.json: runs[1].started_at: missing"},
      {"type", replace(good, "\"sm_count\":132", "\"sm_count\":\"many\""),
       "type.json: runs[0].machine.sm_count: expected a non-negative integer, got \"many\""},
      {"nan", replace(good, "[50.0,51.0,49.0]", "[50.0,\"NaN\",49.0]"),
       "nan.json: runs[0].results[1].metrics.duration.samples[1]: expected a finite number, got \"NaN\""},
      {"inf", replace(good, "[50.0,51.0,49.0]", "[50.0,51.0,1e999]"),
       "inf.json: runs[0].results[1].metrics.duration.samples[2]: expected a finite number, got 1e999 (beyond "
       "the range of a double)"},
      {"nanliteral", replace(good, "[50.0,51.0,49.0]", "[NaN,51.0,49.0]"), "NaN and Infinity are not JSON numbers"},
      {"duplicate", two_same,
       "duplicate.json: runs[1].uuid: duplicate run uuid \"" + run_uuid(10) + "\" (first at runs[0])"},
      {"empty", replace(good, "[50.0,51.0,49.0]", "[]"), "samples: empty"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string file = std::string(c.name) + ".json";
    write(file, c.text);
    // The good file first: one bad file anywhere means nothing from either is written.
    write("good.json", good);
    EXPECT_CLI(gp({"import", "good.json", file}), 2, c.message);
    EXPECT_EQ(bytes("gpuperf.db"), before);
    EXPECT_CLI(gp({"--db", "fresh.db", "import", file}), 2, c.message);
    EXPECT_FALSE(exists("fresh.db"));  // not even an empty database is left behind
  }
  EXPECT_EQ(nlohmann::json::parse(gp({"runs", "--format", "json"}).out).size(), 3u);
}

TEST_F(CliTest, RefusalInsideTheTransactionRollsBackEverything) {
  // The database knows the raw metric "l1tex__t_bytes.sum" in bytes; a later file says "count".
  std::string first = runs_file(1, 1);
  first = replace(first, "\"metrics\":{", "\"metrics\":{\"l1tex__t_bytes.sum\":{\"unit\":\"bytes\",\"value\":64},");
  write("first.json", first);
  ASSERT_EQ(gp({"import", "first.json"}).code, 0);
  const std::string before = bytes("gpuperf.db");
  std::string later = runs_file(5, 3);
  const auto third = later.rfind("\"metrics\":{");
  later.replace(third, 11, "\"metrics\":{\"l1tex__t_bytes.sum\":{\"unit\":\"count\",\"value\":64},");
  write("later.json", later);
  // Named by its JSON path, found against the database's metrics before anything is written.
  EXPECT_CLI(gp({"import", "later.json"}), 2,
             "later.json: runs[2].results[1].metrics.l1tex__t_bytes.sum.unit: metric 'l1tex__t_bytes.sum' is in "
             "'count', but the database has it in 'bytes'");
  EXPECT_EQ(bytes("gpuperf.db"), before);
  EXPECT_EQ(nlohmann::json::parse(gp({"runs", "--format", "json"}).out).size(), 1u);
}

TEST_F(CliTest, SourceLinesOnAndOffTogetherIsBadUsageBeforeAnyGpuWork) {
  EXPECT_CLI(gp({"run", "--source-lines", "--no-source-lines"}), 2, "--source-lines excludes --no-source-lines");
  EXPECT_CLI(gp({"check", "--baseline", "main", "--source-lines", "--no-source-lines"}), 2,
             "--source-lines excludes --no-source-lines");
  EXPECT_FALSE(exists("gpuperf.db"));
}

TEST_F(CliTest, MissingDatabaseIsNotCreatedByReaders) {
  for (auto args : std::vector<std::vector<std::string>>{{"runs"}, {"export"}, {"db", "info"}, {"db", "check"}}) {
    EXPECT_CLI(gp(args), 2, "no database at 'gpuperf.db'");
  }
  EXPECT_FALSE(exists("gpuperf.db"));
}

TEST_F(CliTest, NotAnSqliteFile) {
  write("notes.db", "shopping list\n");
  for (auto args : std::vector<std::vector<std::string>>{
           {"runs"}, {"db", "info"}, {"db", "check"}, {"db", "migrate"}, {"export"}}) {
    args.insert(args.begin(), {"--db", "notes.db"});
    EXPECT_CLI(gp(args), 2, "'notes.db' is not an SQLite database");
  }
  write("a.json", runs_file(1, 1));
  EXPECT_CLI(gp({"--db", "notes.db", "import", "a.json"}), 2, "is not an SQLite database");
  EXPECT_EQ(bytes("notes.db"), "shopping list\n");
}

TEST_F(CliTest, TruncatedDatabase) {
  seed();
  const std::string whole = bytes("gpuperf.db");
  write("gpuperf.db", whole.substr(0, whole.size() / 2));
  const std::string before = bytes("gpuperf.db");
  write("a.json", runs_file(10, 1));
  for (auto args : std::vector<std::vector<std::string>>{{"runs"}, {"db", "check"}, {"import", "a.json"}}) {
    EXPECT_CLI(gp(args), 2, "database 'gpuperf.db' is truncated");
  }
  EXPECT_EQ(bytes("gpuperf.db"), before);
}

TEST_F(CliTest, CorruptedPage) {
  seed();
  std::int64_t root = 0, page = 0;
  {
    db::Connection c(path("gpuperf.db"), SQLITE_OPEN_READONLY);
    root = db::query_int(c, "SELECT rootpage FROM sqlite_master WHERE name = 'run'");
    page = db::query_int(c, "PRAGMA page_size");
  }
  std::string b = bytes("gpuperf.db");
  for (auto i = static_cast<std::size_t>((root - 1) * page); i < static_cast<std::size_t>(root * page); ++i) {
    b[i] = static_cast<char>(b[i] ^ 0x5a);
  }
  write("gpuperf.db", b);
  CliResult check = gp({"db", "check"});
  EXPECT_EQ(check.code, 2);
  EXPECT_NE(check.out.find("integrity:"), std::string::npos) << check.out;
  EXPECT_NE(check.err.find("problem"), std::string::npos) << check.err;
  EXPECT_CLI(gp({"runs"}), 2, "database disk image is malformed");
  write("a.json", runs_file(10, 1));
  EXPECT_CLI(gp({"import", "a.json"}), 2, "database 'gpuperf.db' is damaged");
  EXPECT_EQ(bytes("gpuperf.db"), b);
}

TEST_F(CliTest, NewerSchemaIsRefusedUntouched) {
  seed();
  {
    db::Connection c(path("gpuperf.db"), SQLITE_OPEN_READWRITE);
    c.exec("PRAGMA user_version = " + std::to_string(db::Store::kSchemaVersion + 1));
  }
  const std::string newer = "has schema version " + std::to_string(db::Store::kSchemaVersion + 1) +
                            ", newer than this gpuperf supports (" + std::to_string(db::Store::kSchemaVersion) + ")";
  const std::string before = bytes("gpuperf.db");
  write("a.json", runs_file(10, 1));
  for (auto args : std::vector<std::vector<std::string>>{{"runs"},
                                                         {"db", "info"},
                                                         {"db", "migrate"},
                                                         {"import", "a.json"},
                                                         {"runs", "exclude", "1", "--reason", "x"}}) {
    EXPECT_CLI(gp(args), 2, newer);
  }
  EXPECT_EQ(bytes("gpuperf.db"), before);
}

// Tests run as root here, and root writes through file permissions: a chmod'ed file or directory would
// prove nothing. So the unwritable locations are ones nobody can create files in: a path "inside" a
// regular file (ENOTDIR) and a new file directly under /proc (procfs refuses, even to root), which is what
// a user meets with a wrong --db or -o path or a read-only mount. As an ordinary user, chmod'ed files and
// directories are checked too. (tests/db covers writing through a read-only connection as root.)
TEST_F(CliTest, UnwritableLocationsExitThree) {
  write("plain", "x");
  write("a.json", runs_file(1, 1));
  EXPECT_CLI(gp({"--db", "plain/g.db", "import", "a.json"}), 3,
             "cannot create 'plain/g.db': 'plain' is a file, not a folder");
  EXPECT_CLI(gp({"--db", "/proc/gpuperf-cli-test.db", "import", "a.json"}), 3,
             "cannot create '/proc/gpuperf-cli-test.db'");
  EXPECT_CLI(gp({"--db", "plain/g.db", "db", "migrate"}), 2, "no database at 'plain/g.db'");  // creates nothing
  EXPECT_CLI(gp({"--db", "no/such/g.db", "import", "a.json"}), 3, "the folder 'no' does not exist");
  EXPECT_CLI(gp({"--db", "no/such/g.db", "runs"}), 2, "no database at 'no/such/g.db' (the folder 'no' does not exist)");
  seed();
  EXPECT_CLI(gp({"export", "-o", "plain/out.json"}), 3, "cannot write 'plain/out.json'");
  EXPECT_CLI(gp({"export", "-o", "/proc/gpuperf-out.json"}), 3, "cannot write");
  if (geteuid() != 0) {
    const std::string before = bytes("gpuperf.db");
    chmod(path("gpuperf.db").c_str(), 0444);
    EXPECT_CLI(gp({"import", "a.json"}), 3, "is read-only here");
    EXPECT_EQ(bytes("gpuperf.db"), before);
    std::filesystem::create_directory(path("ro"));
    chmod(path("ro").c_str(), 0555);
    EXPECT_CLI(gp({"--db", "ro/g.db", "import", "a.json"}), 3,
               "permission denied: you cannot create files in the folder 'ro'");
  }
}

}  // namespace
}  // namespace gpuperf::testing
