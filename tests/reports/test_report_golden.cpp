// Golden reports: the fixture JSON imported with `gpuperf import`, then `gpuperf report` in both formats,
// compared byte for byte with tests/reports/golden/. After an intended change, regenerate them with
//   GPUPERF_UPDATE_GOLDEN=1 ctest -R ReportGolden
// and review the diff. Also the command's errors and its empty-database report.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/reports/cli_fixture.hpp"

namespace gpuperf::reports {
namespace {

namespace fs = std::filesystem;
using namespace testing;

const fs::path kGoldenDir = GPUPERF_GOLDEN_DIR;

// Compares `actual` with the golden file, or rewrites the golden file when GPUPERF_UPDATE_GOLDEN is set.
void expect_golden(const fs::path& actual, const std::string& golden_name) {
  const fs::path golden = kGoldenDir / golden_name;
  const std::string text = read_file(actual);
  ASSERT_FALSE(text.empty()) << actual;
  if (const char* update = std::getenv("GPUPERF_UPDATE_GOLDEN"); update != nullptr && *update != '\0') {
    std::ofstream(golden, std::ios::binary) << text;
    return;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; run with GPUPERF_UPDATE_GOLDEN=1 to create it";
  const std::string expected = read_file(golden);
  if (text != expected) {
    // Point at the first difference; the whole files are in the build tree for a diff.
    std::size_t i = 0;
    while (i < text.size() && i < expected.size() && text[i] == expected[i]) ++i;
    const std::size_t from = i > 200 ? i - 200 : 0;
    ADD_FAILURE() << actual << " differs from " << golden << " at byte " << i << "\n--- expected ---\n"
                  << expected.substr(from, 400) << "\n--- actual ---\n"
                  << text.substr(from, 400);
  }
}

// Each test imports into its own directory: ctest runs the tests of this suite in parallel processes.
class ReportGolden : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(std::string("golden-") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    const CommandResult imp = gpuperf(dir_ / "fixture.db", "--quiet import " + sh_quote(GPUPERF_REPORT_FIXTURE));
    ASSERT_EQ(imp.exit_code, 0) << imp.output;
  }
  fs::path dir_;
};

TEST_F(ReportGolden, BothFormatsOfTheWholeHistory) {
  const fs::path out = dir_ / "all";
  const CommandResult r = gpuperf(dir_ / "fixture.db", "--quiet report --out " + sh_quote(out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find((out / "report.html").string()), std::string::npos);
  expect_golden(out / "report.html", "report.html");
  expect_golden(out / "report.md", "report.md");
  // Nothing else is left behind: no temporary files.
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(out)) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 2u);
}

TEST_F(ReportGolden, OneMachineLastRunsMarkdownOnly) {
  const fs::path out = dir_ / "h200-last8";
  const CommandResult r = gpuperf(dir_ / "fixture.db", "--quiet report --out " + sh_quote(out.string()) +
                                                           " --machine ci-h200-01 --branch main --last 8 --format md");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(out / "report.html"));
  expect_golden(out / "report.md", "report-h200-last8.md");
}

TEST_F(ReportGolden, SeveralMachinesAreNamedInTheHeaderAndEachGetsItsSection) {
  const fs::path both = dir_ / "both", all = dir_ / "all";
  CommandResult r = gpuperf(dir_ / "fixture.db", "--quiet report --out " + sh_quote(both.string()) +
                                                     " --machine ci-h200-01 --machine dev-h100-07 --format md");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_EQ(gpuperf(dir_ / "fixture.db", "--quiet report --format md --out " + sh_quote(all.string())).exit_code, 0);
  const std::string md = read_file(both / "report.md");
  EXPECT_NE(
      md.find("Machine: ci-h200-01 (NVIDIA H200, GPU-6f1c0d2a), dev-h100-07 (NVIDIA H100 80GB HBM3, GPU-0a1b2c3d)"),
      std::string::npos)
      << md.substr(0, 400);
  // Both machines asked for are every machine in the fixture: the rest of the report is the unfiltered one.
  std::string unfiltered = read_file(all / "report.md");
  const std::string scope = "Machine: all";
  ASSERT_NE(unfiltered.find(scope), std::string::npos);
  unfiltered.replace(
      unfiltered.find(scope), scope.size(),
      "Machine: ci-h200-01 (NVIDIA H200, GPU-6f1c0d2a), dev-h100-07 (NVIDIA H100 80GB HBM3, GPU-0a1b2c3d)");
  EXPECT_EQ(md, unfiltered);
  // One unknown name among them is an input error, and no report is written.
  const fs::path bad = dir_ / "bad-machines";
  r = gpuperf(dir_ / "fixture.db",
              "report --out " + sh_quote(bad.string()) + " --machine ci-h200-01 --machine nowhere --format md");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--machine 'nowhere'"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(bad / "report.md"));
}

TEST_F(ReportGolden, SameInputSameBytes) {
  const fs::path a = dir_ / "again-a", b = dir_ / "again-b";
  ASSERT_EQ(gpuperf(dir_ / "fixture.db", "--quiet report --out " + sh_quote(a.string())).exit_code, 0);
  ASSERT_EQ(gpuperf(dir_ / "fixture.db", "--quiet report --out " + sh_quote(b.string())).exit_code, 0);
  EXPECT_EQ(read_file(a / "report.html"), read_file(b / "report.html"));
  EXPECT_EQ(read_file(a / "report.md"), read_file(b / "report.md"));
}

TEST_F(ReportGolden, BadArgumentsAreInputErrors) {
  const fs::path db = dir_ / "fixture.db";
  const std::string out = " --out " + sh_quote((dir_ / "bad").string());
  CommandResult r = gpuperf(db, "report" + out + " --format pdf");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--format: expected html, md or markdown, got 'pdf'"), std::string::npos) << r.output;
  r = gpuperf(db, "report" + out + " --since yesterday");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find(
                "--since: expected an ISO 8601 date or its prefix (2026, 2026-06, 2026-06-01, 2026-06-01T02:00), got "
                "'yesterday'"),
            std::string::npos)
      << r.output;
  r = gpuperf(db, "report" + out + " --machine nowhere");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("known machines"), std::string::npos) << r.output;
  r = gpuperf(dir_ / "missing.db", "report" + out);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(fs::exists(dir_ / "missing.db"));  // read-only: a report never creates a database
  EXPECT_FALSE(fs::exists(dir_ / "bad"));
}

TEST_F(ReportGolden, UnwritableOutputIsAnEnvironmentErrorAndKeepsTheOldReport) {
  const fs::path blocker = dir_ / "a-file";
  std::ofstream(blocker) << "not a directory";
  CommandResult r = gpuperf(dir_ / "fixture.db", "report --out " + sh_quote((blocker / "sub").string()));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("a-file"), std::string::npos) << r.output;

  // A report whose target is a directory cannot be renamed into place: the old report.md stays whole.
  const fs::path out = dir_ / "keep";
  fs::create_directories(out / "report.html");
  std::ofstream(out / "report.md") << "previous report\n";
  r = gpuperf(dir_ / "fixture.db", "report --out " + sh_quote(out.string()));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_EQ(read_file(out / "report.md"), "previous report\n");
  for (const auto& e : fs::directory_iterator(out)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  }
}

TEST(ReportEmpty, AnEmptyDatabaseGivesASensibleReport) {
  const fs::path dir = fresh_dir("empty");
  std::ofstream(dir / "empty.json") << R"({"format": "gpuperf-results", "version": 1, "runs": []})";
  ASSERT_EQ(gpuperf(dir / "empty.db", "--quiet import " + sh_quote((dir / "empty.json").string())).exit_code, 0);
  const CommandResult r = gpuperf(dir / "empty.db", "--quiet report --out " + sh_quote((dir / "out").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read_file(dir / "out" / "report.md").find("No runs to report."), std::string::npos);
  EXPECT_NE(read_file(dir / "out" / "report.html").find("No runs to report."), std::string::npos);
}

}  // namespace
}  // namespace gpuperf::reports
