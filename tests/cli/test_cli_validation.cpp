// One validation rule per kind of option value, the same in every command (cli/option_kinds.hpp,
// core/value_rules.hpp). The table is discovered, not hand-kept: every command `gpuperf --help` lists (and
// every command under those), every option whose --help type names a kind, fed every bad value of that
// kind. Each must be refused before any work: exit 2, "gpuperf: error: --OPTION: expected ...", a short
// message. Imported files follow the same rules for uuids and measured values.
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/cli/cli_runner.hpp"

namespace gpuperf::testing {
namespace {

// The commands under `command` (words, "" for the top) as its --help lists them.
std::vector<std::string> subcommands(const std::string& help) {
  std::vector<std::string> out;
  std::istringstream lines(help);
  bool in = false;
  static const std::regex entry(R"(^  ([a-z][a-z-]*)\s.*)");
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("Subcommands:", 0) == 0) {
      in = true;
      continue;
    }
    std::smatch m;
    if (in && std::regex_match(line, m, entry)) out.push_back(m[1]);
    if (in && line.empty() && !out.empty()) in = false;
  }
  return out;
}

// Option name -> its type name in a command's --help ("--since DATE", "--format text|md|json").
std::map<std::string, std::string> option_types(const std::string& help) {
  std::map<std::string, std::string> out;
  std::istringstream lines(help);
  static const std::regex entry(R"(^\s+(?:-\w,)?(--[a-z][a-z-]*)(?:,-\w)?\s+([A-Za-z][^\s=]*)(?:=\S*)?(?:\s.*)?)");
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, entry)) out[m[1]] = m[2];
  }
  return out;
}

// The bad values of each kind, by the type name --help shows.
std::vector<std::string> bad_values(const std::string& type) {
  if (type == "DATE") return {"yesterday", "2026-99", "2026-13-45", "2026-02-30", "2026-06-01T25", "26-06-01"};
  if (type == "COUNT") return {"0", "-1", "ten", "1.5", "99999999999999999999999"};
  if (type == "N") return {"-1", "ten", "1.5"};
  if (type == "CHIP") return {"XYZ", "gh100", "GH-100"};
  if (type.find('|') != std::string::npos) return {"bogus", "JSON"};
  return {};
}

struct Case {
  std::vector<std::string> command;
  std::string option, type;
};

class Validation : public ::testing::Test {
 protected:
  CliResult gp(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", dir_.file("none.db")});
    return run_gpuperf(args, dir_.path().string());
  }
  std::vector<Case> every_option_of_a_kind() {
    std::vector<Case> cases;
    std::vector<std::vector<std::string>> commands;
    for (const auto& c : subcommands(gp({"--help"}).out)) {
      commands.push_back({c});
      std::vector<std::string> help_args{c, "--help"};
      for (const auto& sub : subcommands(gp(help_args).out)) commands.push_back({c, sub});
    }
    EXPECT_GE(commands.size(), 14u) << "gpuperf --help lists fewer commands than README does";
    for (const auto& cmd : commands) {
      std::vector<std::string> args = cmd;
      args.push_back("--help");
      for (const auto& [option, type] : option_types(gp(args).out)) {
        if (!bad_values(type).empty()) cases.push_back({cmd, option, type});
      }
    }
    return cases;
  }
  TempDir dir_;
};

TEST_F(Validation, EveryOptionOfAKindRefusesEveryBadValueTheSameWay) {
  const std::vector<Case> cases = every_option_of_a_kind();
  std::map<std::string, std::set<std::string>> seen;  // type -> "command option"
  for (const Case& c : cases) {
    std::string where;
    for (const auto& w : c.command) where += w + " ";
    seen[c.type == "DATE" || c.type == "COUNT" || c.type == "N" || c.type == "CHIP" ? c.type : "choice"].insert(
        where + c.option);
    for (const std::string& bad : bad_values(c.type)) {
      std::vector<std::string> args = c.command;
      args.push_back(c.option + "=" + bad);
      const CliResult r = gp(args);
      const std::string label = where + c.option + "=" + bad;
      EXPECT_EQ(r.code, 2) << label << "\n" << r.err;
      EXPECT_EQ(r.err.rfind("gpuperf: error: " + c.option + ": expected", 0), 0u)
          << label << ": the message must start with the prefix, the option and what was expected\n"
          << r.err;
      EXPECT_LT(r.err.size(), 400u) << label << ": " << r.err;
      EXPECT_TRUE(r.out.empty()) << label << ": " << r.out;
    }
  }
  // The kinds reach the commands the issue named: --since everywhere it exists, counts, formats, chips.
  for (const char* option : {"detect --since", "runs --since", "export --since", "report --since"}) {
    EXPECT_TRUE(seen["DATE"].count(option)) << option << " is not a DATE option";
  }
  for (const char* option : {"report --last", "detect --last", "runs --last", "detect --recent"}) {
    EXPECT_TRUE(seen["COUNT"].count(option)) << option << " is not a COUNT option";
  }
  EXPECT_TRUE(seen["CHIP"].count("profile --chip"));
  EXPECT_GE(seen["choice"].size(), 10u);  // every --format, --replay, --kernel-name
  EXPECT_GE(seen["N"].size(), 4u);        // --device of profile, check and bisect; --history; --launch-skip
}

TEST_F(Validation, GoodValuesOfEachKindPass) {
  for (const char* since :
       {"2026", "2026-06", "2026-06-01", "2028-02-29T23:59", "2024-02-29", "2026-06-01T02:00:00Z"}) {
    const CliResult r = gp({"runs", "--since", since});
    EXPECT_EQ(r.code, 2) << since << ": " << r.err;  // the database does not exist: a refusal of another kind
    EXPECT_NE(r.err.find("no database"), std::string::npos) << since << ": " << r.err;
  }
  const CliResult leap = gp({"runs", "--since", "2025-02-29"});
  EXPECT_NE(leap.err.find("got '2025-02-29': day 29 is not a day of that month (01-28)"), std::string::npos)
      << leap.err;
}

TEST_F(Validation, HelpShowsNoDefaultThatItsOwnRuleRefuses) {
  const CliResult r = gp({"report", "--help"});
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--last COUNT "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("POSITIVE=0"), std::string::npos) << r.out;
  const CliResult last = gp({"report", "--out", dir_.file("site"), "--last", "0"});
  EXPECT_EQ(last.code, 2);
  EXPECT_EQ(last.err.rfind("gpuperf: error: --last: expected a whole number of 1 or more, got '0'", 0), 0u) << last.err;
}

TEST_F(Validation, NoCommandNamesTheCommands) {
  const CliResult r = gp({});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("gpuperf: error: 'gpuperf' needs a command: list, run, ", 0), 0u) << r.err;
  const CliResult db = gp({"db"});
  EXPECT_EQ(db.code, 2);
  EXPECT_EQ(db.err.rfind("gpuperf: error: 'gpuperf db' needs a command: info, ", 0), 0u) << db.err;
}

TEST_F(Validation, EveryHelpEndsWithExamplesAndTheExitCodes) {
  // README, "Exit codes": gpuperf --help lists every code (130 too); each command's --help ends with
  // examples of it and the exit codes it gives.
  const CliResult top = gp({"--help"});
  EXPECT_NE(top.out.find("  130  bisect was interrupted"), std::string::npos) << top.out;
  for (const auto& c : subcommands(top.out)) {
    const CliResult r = gp({c, "--help"});
    EXPECT_EQ(r.code, 0) << c;
    const auto examples = r.out.find("Examples:\n");
    EXPECT_NE(examples, std::string::npos) << c << " --help has no examples";
    EXPECT_NE(r.out.find("Exit codes:", examples == std::string::npos ? 0 : examples), std::string::npos)
        << c << " --help lists no exit codes after its examples";
  }
  EXPECT_NE(gp({"bisect", "--help"}).out.find("130"), std::string::npos);
}

// An interchange file with one run: `uuid`, and a duration sample `sample`.
std::string one_run(const std::string& uuid, const std::string& sample) {
  return R"({"format": "gpuperf-results", "version": 1, "runs": [{"uuid": ")" + uuid +
         R"(", "started_at": "2026-11-01T02:00:00Z", "machine": {"hostname": "h", "gpu_name": "NVIDIA H100"},
  "results": [{"benchmark": "memory/coalesced", "status": "ok",
               "metrics": {"duration": {"unit": "ns", "samples": [54800, )" +
         sample + R"(]}}}]}]})";
}

TEST_F(Validation, ImportedFilesFollowTheSameRules) {
  const std::string good = "5f0c3a1e-8b2d-4c6f-9a01-23456789abcd";
  CliResult r =
      run_gpuperf({"--db", dir_.file("gp.db"), "import", "-"}, dir_.path().string(), one_run("not-a-uuid", "54900"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("gpuperf: error: <stdin>: runs[0].uuid: expected a uuid (8-4-4-4-12 hexadecimal digits"),
            std::string::npos)
      << r.err;
  r = run_gpuperf({"--db", dir_.file("gp.db"), "import", "-"}, dir_.path().string(), one_run(good, "-5"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("runs[0].results[0].metrics.duration.samples[1]: expected a duration above 0 ns, got -5"),
            std::string::npos)
      << r.err;
  r = run_gpuperf({"--db", dir_.file("gp.db"), "import", "-"}, dir_.path().string(), one_run(good, "54900"));
  EXPECT_EQ(r.code, 0) << r.err;
}

}  // namespace
}  // namespace gpuperf::testing
