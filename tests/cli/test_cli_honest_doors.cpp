// The door as a new user meets it: imports that would make the history lie are refused with the JSON path
// of the lie; names from imported files cannot drive the terminal; the small doors (report to standard
// output, empty values, missing or damaged databases, one run compared with itself, an unknown branch, each
// command's own exit codes). Every refusal is exit 2 and leaves the database byte for byte as it was.
#include <sqlite3.h>

#include <regex>
#include <set>

#include "tests/cli/cli_fixture.hpp"

namespace gpuperf::testing {
namespace {

const std::string kUuid = "5f0c3a1e-8b2d-4c6f-9a01-23456789abcd";

// One run; `results` is the JSON of its results array, `times` its started_at (and finished_at) members.
std::string file_with(const std::string& results, const std::string& times = R"("started_at": "2026-11-01T02:00:00Z")",
                      const std::string& uuid = kUuid) {
  return R"({"format": "gpuperf-results", "version": 1, "runs": [{"uuid": ")" + uuid + R"(", )" + times +
         R"(, "machine": {"hostname": "h", "gpu_name": "NVIDIA H100"}, "results": [)" + results + "]}]}";
}

std::string result(const std::string& benchmark, const std::string& metrics) {
  return R"({"benchmark": ")" + benchmark + R"(", "status": "ok", "metrics": {)" + metrics + "}}";
}

const std::string kDuration = R"("duration": {"unit": "ns", "samples": [54800, 54900, 55000]})";

class HonestDoors : public CliTest {
 protected:
  // Imports `file` into the seeded ./gpuperf.db and expects a refusal naming `needle`, the database unchanged.
  void expect_refused_import(const std::string& file, const std::string& needle) {
    seed();
    const std::string before = bytes("gpuperf.db");
    write("bad.json", file);
    EXPECT_CLI(gp({"import", "bad.json"}), 2, needle);
    EXPECT_EQ(bytes("gpuperf.db"), before) << "the database changed";
  }
};

TEST_F(HonestDoors, ABuiltInMetricKeepsItsDirection) {
  expect_refused_import(
      file_with(result("memory/coalesced", R"("duration": {"unit": "ns", "better": "higher", "samples": [54800]})")),
      "bad.json: runs[0].results[0].metrics.duration.better: gpuperf's metric 'duration' is better lower, got "
      "\"higher\"");
}

TEST_F(HonestDoors, ABuiltInMetricKeepsItsDeterminism) {
  expect_refused_import(
      file_with(result("memory/coalesced",
                       kDuration + R"(, "gld_efficiency": {"unit": "%", "deterministic": false, "value": 50})")),
      "runs[0].results[0].metrics.gld_efficiency.deterministic: gpuperf's metric 'gld_efficiency' is deterministic, "
      "got false");
}

TEST_F(HonestDoors, OneMetricNameHasOneUnitWithinAFile) {
  expect_refused_import(
      file_with(result("a/one", R"("my_metric": {"unit": "ns", "value": 5})") + ", " +
                result("a/two", R"("my_metric": {"unit": "bytes", "value": 5})")),
      "bad.json: runs[0].results[1].metrics.my_metric.unit: metric 'my_metric' is in 'bytes', but bad.json: "
      "runs[0].results[0].metrics.my_metric has it in 'ns'");
}

TEST_F(HonestDoors, OneMetricNameHasOneMeaningAcrossTheFilesOfAnImport) {
  seed();
  const std::string before = bytes("gpuperf.db");
  write("a.json", file_with(result("a/one", R"("my_metric": {"unit": "count", "better": "higher", "value": 5})")));
  write("b.json", file_with(result("a/one", R"("my_metric": {"unit": "count", "value": 5})"),
                            R"("started_at": "2026-11-02T02:00:00Z")", "5f0c3a1e-8b2d-4c6f-9a01-23456789abce"));
  EXPECT_CLI(gp({"import", "a.json", "b.json"}), 2,
             "b.json: runs[0].results[0].metrics.my_metric.better: metric 'my_metric' is better lower, but a.json: "
             "runs[0].results[0].metrics.my_metric has it better higher");
  EXPECT_EQ(bytes("gpuperf.db"), before);
}

TEST_F(HonestDoors, AMetricKeepsTheDatabasesMeaning) {
  seed();
  write("first.json", file_with(result("a/one", R"("my_metric": {"unit": "ns", "value": 5})")));
  ASSERT_EQ(gp({"import", "first.json"}).code, 0);
  const std::string before = bytes("gpuperf.db");
  write("second.json", file_with(result("a/one", R"("my_metric": {"unit": "bytes", "value": 5})"),
                                 R"("started_at": "2026-11-02T02:00:00Z")", "5f0c3a1e-8b2d-4c6f-9a01-23456789abce"));
  EXPECT_CLI(gp({"import", "second.json"}), 2,
             "second.json: runs[0].results[0].metrics.my_metric.unit: metric 'my_metric' is in 'bytes', but the "
             "database has it in 'ns'");
  EXPECT_EQ(bytes("gpuperf.db"), before);
}

TEST_F(HonestDoors, ADurationIsAboveZeroButACountMayBeZero) {
  expect_refused_import(file_with(result("memory/coalesced", R"("duration": {"unit": "ns", "samples": [54800, 0]})")),
                        "runs[0].results[0].metrics.duration.samples[1]: expected a duration above 0 ns, got 0");
  write("zero_count.json",
        file_with(result("memory/coalesced", kDuration + R"(, "inst_fma": {"unit": "count", "value": 0})")));
  EXPECT_CLI(gp({"import", "zero_count.json"}), 0, "1 new");
}

TEST_F(HonestDoors, ARunEndsAfterItStarts) {
  expect_refused_import(
      file_with(result("memory/coalesced", kDuration),
                R"("started_at": "2026-11-01T02:00:00Z", "finished_at": "2026-11-01T01:59:59Z")"),
      "runs[0].finished_at: \"2026-11-01T01:59:59Z\" is before the run's started_at \"2026-11-01T02:00:00Z\"");
}

TEST_F(HonestDoors, ARunIsNotFromTheFuture) {
  expect_refused_import(file_with(result("memory/coalesced", kDuration), R"("started_at": "9999-01-01T00:00:00Z")"),
                        "runs[0].started_at: \"9999-01-01T00:00:00Z\" is in the future");
  // A fraction of a second later than started_at is after it, though '.' sorts before 'Z'.
  write("ok.json", file_with(result("memory/coalesced", kDuration),
                             R"("started_at": "2026-11-01T02:00:00Z", "finished_at": "2026-11-01T02:00:00.5Z")"));
  EXPECT_CLI(gp({"import", "ok.json"}), 0, "1 new");
}

// Every byte of `text` a terminal would act on: C0 controls but newline, DEL, C1 controls (UTF-8 C2 80-9F)
// and bytes that are not UTF-8 at all.
std::string terminal_controls(const std::string& text) {
  std::string found;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xA0;
    if ((c < 0x20 && c != '\n') || c == 0x7F || c1 || c == 0x9B) found += std::to_string(c) + " ";
  }
  return found;
}

TEST_F(HonestDoors, CompareAndDetectKeepImportedControlCharactersOffTheTerminal) {
  // A name that clears the screen and breaks the row, a label that sets the window title, a C1 CSI.
  const std::string evil = R"(evil\u001b[2J\nname\u009b31m)";
  std::string runs;
  for (int i = 1; i <= 8; ++i) {
    char day[40], uuid[48];
    std::snprintf(day, sizeof day, "2026-10-%02dT02:00:00Z", i);
    std::snprintf(uuid, sizeof uuid, "5f0c3a1e-8b2d-4c6f-9a01-2345678900%02d", i);
    const double d = i <= 4 ? 50000 : 100000;  // a step at run 5
    runs += std::string(i > 1 ? ", " : "") + R"({"uuid": ")" + uuid + R"(", "started_at": ")" + day +
            R"(", "branch": "main", "label": "\u001b]0;pwned\u0007", "machine": {"hostname": "h\u001b[1m",
             "gpu_name": "NVIDIA H100"}, "results": [)" +
            result(evil, R"("duration": {"unit": "ns", "samples": [)" + std::to_string(d) + ", " +
                             std::to_string(d * 1.01) + ", " + std::to_string(d * 0.99) + "]}") +
            "]}";
  }
  write("evil.json", R"({"format": "gpuperf-results", "version": 1, "runs": [)" + runs + "]}");
  ASSERT_EQ(gp({"import", "evil.json"}).code, 0);
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"compare", "1", "8", "--all"}, {"compare", "1", "1"}, {"detect"}, {"runs"}}) {
    const CliResult r = gp(args);
    SCOPED_TRACE(args[0]);
    EXPECT_LE(r.code, 1) << r.err;
    EXPECT_EQ(terminal_controls(r.out + r.err), "") << r.out << r.err;
  }
  const CliResult detect = gp({"detect"});
  EXPECT_NE(detect.out.find("evil [2J name 31m"), std::string::npos) << detect.out;  // one row, readable
  const CliResult compare = gp({"compare", "1", "8"});
  EXPECT_NE(compare.out.find("evil [2J name 31m"), std::string::npos) << compare.out;
}

TEST_F(HonestDoors, ReportPrintsMarkdownWithoutADirectory) {
  seed();
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"report", "--format", "md"}, {"report", "--format", "md", "--out", "-"}}) {
    const CliResult r = gp(args);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("matmul/tiled"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("report.html"), std::string::npos) << "no HTML report to link to";
  }
  EXPECT_FALSE(exists("-"));
  EXPECT_FALSE(exists("report.md"));
  EXPECT_CLI(gp({"report"}), 2, "--out DIR is required for the HTML report");
  EXPECT_CLI(gp({"report", "--out", "-", "--format", "html"}), 2, "--out - prints Markdown only");
  EXPECT_CLI(gp({"report", "--out", ""}), 2, "--out: expected a directory, or - for standard output, got ''");
  EXPECT_FALSE(exists("report.html"));
}

TEST_F(HonestDoors, EmptyValuesAreRefused) {
  seed();
  const std::string before = bytes("gpuperf.db");
  EXPECT_CLI(gp({"runs", "exclude", "1", "--reason", ""}), 2, "--reason: expected a reason");
  EXPECT_CLI(gp({"runs", "exclude", "1", "--reason", "  "}), 2, "--reason: expected a reason");
  EXPECT_CLI(gp({"--db", "", "runs"}), 2, "--db: expected an SQLite file or a PostgreSQL URI, got ''");
  EXPECT_EQ(bytes("gpuperf.db"), before);
}

TEST_F(HonestDoors, AMissingDatabaseIsNotCreatedByACommandThatFails) {
  EXPECT_CLI(gp({"--db", "typo.db", "runs", "exclude", "1", "--reason", "busy"}), 2, "no database at 'typo.db'");
  EXPECT_CLI(gp({"--db", "typo.db", "runs", "include", "1"}), 2, "no database at 'typo.db'");
  EXPECT_CLI(gp({"--db", "typo.db", "db", "migrate"}), 2, "no database at 'typo.db'");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"runs"}, {"compare", "1", "2"}, {"detect"}, {"report", "--format", "md"}, {"export"}, {"db", "info"}}) {
    std::vector<std::string> with_db{"--db", "typo.db"};
    with_db.insert(with_db.end(), args.begin(), args.end());
    EXPECT_CLI(gp(with_db), 2, "no database at 'typo.db'");
  }
  EXPECT_FALSE(exists("typo.db"));
  EXPECT_FALSE(exists("typo.db-wal"));
}

TEST_F(HonestDoors, RunsExcludeRefusesADatabaseDamagedInTheMiddle) {
  // Enough runs that the sample table spans pages away from the run table's.
  write("many.json", runs_file(1, 28));
  ASSERT_EQ(gp({"import", "many.json"}).code, 0);
  const std::string path = this->path("gpuperf.db");
  std::int64_t page = 0, page_size = 0;
  {
    sqlite3* c = nullptr;
    ASSERT_EQ(sqlite3_open_v2(path.c_str(), &c, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(c, "SELECT rootpage FROM sqlite_master WHERE name = 'sample'", -1, &s, nullptr);
    ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
    page = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_prepare_v2(c, "PRAGMA page_size", -1, &s, nullptr);
    ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
    page_size = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(c);
  }
  std::string damaged = bytes("gpuperf.db");
  for (std::int64_t i = (page - 1) * page_size + 8; i < page * page_size; ++i) {
    damaged[static_cast<std::size_t>(i)] = static_cast<char>(0x5A);
  }
  write("gpuperf.db", damaged);
  EXPECT_CLI(gp({"runs", "exclude", "1", "--reason", "busy"}), 2, "is damaged");
  EXPECT_EQ(bytes("gpuperf.db"), damaged);
}

TEST_F(HonestDoors, CompareWarnsWhenBothSidesAreOneRun) {
  seed();
  EXPECT_CLI(gp({"compare", "1", "1"}), 0, "are the same run (#1): every row compares the run with itself");
  const CliResult different = gp({"compare", "1", "2"});
  EXPECT_EQ(different.err.find("same run"), std::string::npos) << different.err;
}

TEST_F(HonestDoors, AnUnknownBranchIsRefusedByReportAndExportAsByDetect) {
  seed();
  EXPECT_CLI(gp({"report", "--format", "md", "--branch", "nosuch"}), 2, "--branch: no run of branch 'nosuch'");
  EXPECT_CLI(gp({"export", "--branch", "nosuch"}), 2, "--branch: no run of branch 'nosuch'");
  EXPECT_CLI(gp({"detect", "--branch", "nosuch"}), 2, "nosuch");
  const CliResult known = gp({"export", "--branch", "main", "--since", "2030"});  // a known branch, nothing after
  EXPECT_EQ(known.code, 0) << known.err;
}

// The codes under "Exit codes:" of a --help text.
std::set<int> listed_exit_codes(const std::string& help) {
  std::set<int> codes;
  const std::regex line(R"(\n  (\d+)  )");
  const std::size_t at = help.find("\nExit codes:");
  if (at == std::string::npos) return codes;
  const std::string tail = help.substr(at);
  for (auto it = std::sregex_iterator(tail.begin(), tail.end(), line); it != std::sregex_iterator(); ++it) {
    codes.insert(std::stoi((*it)[1].str()));
  }
  return codes;
}

TEST_F(HonestDoors, EachCommandsHelpEndsWithItsOwnExitCodes) {
  const std::set<int> all = listed_exit_codes(gp({"--help"}).out);
  EXPECT_EQ(all, (std::set<int>{0, 1, 2, 3, 4, 5, 130}));
  const std::vector<std::pair<std::vector<std::string>, std::set<int>>> expected{
      {{"runs"}, {0, 2}},           {{"runs", "exclude"}, {0, 2, 3}}, {{"compare"}, {0, 1, 2}},
      {{"detect"}, {0, 1, 2}},      {{"check"}, {0, 1, 2, 3, 4, 5}},  {{"run"}, {0, 2, 3, 4}},
      {{"import"}, {0, 2, 3}},      {{"report"}, {0, 2, 3}},          {{"record"}, {0, 2, 3, 5}},
      {{"bisect"}, {0, 2, 3, 130}}, {{"db", "migrate"}, {0, 2, 3}},
  };
  for (const auto& [cmd, codes] : expected) {
    std::vector<std::string> args = cmd;
    args.push_back("--help");
    const CliResult help = gp(args);
    EXPECT_EQ(listed_exit_codes(help.out), codes) << cmd.back() << "\n" << help.out;
  }
}

}  // namespace
}  // namespace gpuperf::testing
