// The CLI's door: a misspelt command or option is named with the nearest valid one (as git does), exit 2;
// every --help ends with examples of its command, and the top one lists every exit code of README's table.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>

#include "cli/unknown_word.hpp"
#include "tests/cli/cli_fixture.hpp"

namespace gpuperf::testing {
namespace {

using Words = std::vector<std::string>;

// A small command line shaped like gpuperf's: options fall through to the commands above.
struct Toy {
  CLI::App app{"toy"};
  std::string db, metrics, filter, reason, run_ref;
  bool quiet = false;
  Toy() {
    app.fallthrough();
    app.add_option("--db", db);
    app.add_flag("-q,--quiet", quiet);
    CLI::App* run = app.add_subcommand("run");
    run->add_option("--metrics", metrics);
    run->add_option("--filter", filter);
    CLI::App* runs = app.add_subcommand("runs");
    CLI::App* exclude = runs->add_subcommand("exclude");
    exclude->add_option("RUN", run_ref);
    exclude->add_option("--reason", reason);
    app.add_subcommand("report");
    app.add_subcommand("record");
  }
  std::string message(const Words& args) const { return cli::unknown_word_message(app, args); }
};

TEST(UnknownWord, NamesAMisspeltCommandAndTheNearestOne) {
  Toy t;
  EXPECT_EQ(t.message({"reprot"}),
            "gpuperf: 'reprot' is not a gpuperf command. The most similar command is 'report'.\n"
            "See 'gpuperf --help'.");
  EXPECT_EQ(t.message({"--db", "x.db", "runs", "exclud", "3"}),
            "gpuperf: 'exclud' is not a gpuperf runs command. The most similar command is 'exclude'.\n"
            "See 'gpuperf runs --help'.");
  EXPECT_EQ(t.message({"frobnicate"}), "gpuperf: 'frobnicate' is not a gpuperf command.\nSee 'gpuperf --help'.");
}

TEST(UnknownWord, NamesAMisspeltOptionOfTheCommandOrAbove) {
  Toy t;
  EXPECT_EQ(t.message({"run", "--metrcs", "x"}),
            "gpuperf: unknown option '--metrcs' for 'gpuperf run'. The most similar option is '--metrics'.\n"
            "See 'gpuperf run --help'.");
  EXPECT_EQ(t.message({"run", "--quite"}),  // an option of gpuperf itself, which run's options fall through to
            "gpuperf: unknown option '--quite' for 'gpuperf run'. The most similar option is '--quiet'.\n"
            "See 'gpuperf run --help'.");
  EXPECT_EQ(t.message({"runs", "exclude", "3", "--reasn=busy"}),
            "gpuperf: unknown option '--reasn' for 'gpuperf runs exclude'. The most similar option is '--reason'.\n"
            "See 'gpuperf runs exclude --help'.");
  EXPECT_EQ(t.message({"-z", "run"}), "gpuperf: unknown option '-z' for 'gpuperf'.\nSee 'gpuperf --help'.");
}

TEST(UnknownWord, SaysNothingWhenEveryWordHasItsPlace) {
  Toy t;
  EXPECT_EQ(t.message({}), "");                                             // no command: CLI11 says one is required
  EXPECT_EQ(t.message({"run", "--filter"}), "");                            // a missing value
  EXPECT_EQ(t.message({"run", "--metrics", "--bogus"}), "");                // a value, whatever it looks like
  EXPECT_EQ(t.message({"--db=x.db", "-q", "run", "--filter=a"}), "");       // --name=value
  EXPECT_EQ(t.message({"runs", "exclude", "-5"}), "");                      // a negative number is a value
  EXPECT_EQ(t.message({"record", "--", "./app", "--metrcs", "lsit"}), "");  // the recorded program's words
}

TEST(UnknownWord, SentenceNamesEveryTie) {
  EXPECT_EQ(cli::most_similar_sentence("command", {}), "");
  EXPECT_EQ(cli::most_similar_sentence("command", {"report"}), "The most similar command is 'report'.");
  EXPECT_EQ(cli::most_similar_sentence("option", {"--filter", "--format"}),
            "The most similar options are '--filter' and '--format'.");
  EXPECT_EQ(cli::most_similar_sentence("command", {"report", "import", "export"}),
            "The most similar commands are 'report', 'import' and 'export'.");
}

// The real executable: the message on standard error, nothing on standard output, exit 2.
TEST_F(CliTest, MisspeltCommandOrOptionExits2WithTheNearest) {
  CliResult r = gp({"reprot"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "gpuperf: 'reprot' is not a gpuperf command. The most similar command is 'report'.\n"
            "See 'gpuperf --help'.\n");
  EXPECT_EQ(r.out, "");
  r = gp({"run", "--metrcs", "x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "gpuperf: unknown option '--metrcs' for 'gpuperf run'. The most similar option is '--metrics'.\n"
            "See 'gpuperf run --help'.\n");
  EXPECT_CLI(gp({"db", "inof"}), 2, "'inof' is not a gpuperf db command. The most similar command is 'info'.");
  EXPECT_CLI(gp({"report", "--out", "site", "--brnch", "main"}), 2, "The most similar option is '--branch'.");
  EXPECT_FALSE(exists("gpuperf.db"));  // refused before anything was opened
}

// The rows of README.md's "Exit codes" table: "| 3 | the environment ... |".
std::set<int> readme_exit_codes() {
  std::ifstream in(std::string(GPUPERF_SOURCE_DIR) + "/README.md");
  std::string line;
  while (std::getline(in, line) && line != "## Exit codes") {
  }
  std::set<int> codes;
  const std::regex row(R"(^\| (\d) \| .+\|$)");
  while (std::getline(in, line) && line.rfind("## ", 0) != 0) {
    std::smatch m;
    if (std::regex_match(line, m, row)) codes.insert(std::stoi(m[1]));
  }
  return codes;
}

TEST_F(CliTest, HelpListsEveryExitCodeOfTheReadme) {
  const std::set<int> codes = readme_exit_codes();
  EXPECT_EQ(codes, (std::set<int>{0, 1, 2, 3, 4, 5}));
  CliResult help = gp({"--help"});
  ASSERT_EQ(help.code, 0);
  for (int code : codes) {
    EXPECT_NE(help.out.find("\n  " + std::to_string(code) + "  "), std::string::npos) << code << "\n" << help.out;
  }
}

// The names under "Subcommands:" of a --help text.
Words subcommands_of(const std::string& help) {
  Words names;
  std::istringstream in(help.substr(std::min(help.find("\nSubcommands:\n"), help.size())));
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  while (std::getline(in, line) && line.rfind("  ", 0) == 0) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    names.push_back(name);
  }
  return names;
}

TEST_F(CliTest, EveryCommandsHelpEndsWithAnExampleOfIt) {
  std::vector<Words> pending;
  for (const auto& name : subcommands_of(gp({"--help"}).out)) pending.push_back({name});
  ASSERT_GE(pending.size(), 13u);
  std::size_t seen = 0;
  while (!pending.empty()) {
    Words cmd = pending.back();
    pending.pop_back();
    Words args = cmd;
    args.push_back("--help");
    CliResult help = gp(args);
    std::string typed = "gpuperf";
    for (const auto& w : cmd) typed += " " + w;
    SCOPED_TRACE(typed);
    ASSERT_EQ(help.code, 0) << help.err;
    const auto examples = help.out.find("\nExamples:\n  gpuperf ");
    ASSERT_NE(examples, std::string::npos) << help.out;
    // Each example is of this command (options of gpuperf itself may come first: --db PATH).
    std::string example = help.out.substr(examples, help.out.find("\n\n", examples + 1) - examples) + "\n";
    std::replace(example.begin(), example.end(), '\n', ' ');
    EXPECT_NE(example.find(" " + cmd.back() + " "), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("\nExit codes:", examples), std::string::npos) << help.out;
    for (const auto& sub : subcommands_of(help.out)) {
      Words deeper = cmd;
      deeper.push_back(sub);
      pending.push_back(deeper);
    }
    ++seen;
  }
  EXPECT_GE(seen, 19u);  // 13 commands, runs' 2 and db's 4
}

// --version says the version of project(gpuperf VERSION ...): the generated header is the only source.
TEST_F(CliTest, VersionIsTheProjectsVersion) {
  std::ifstream in(std::string(GPUPERF_SOURCE_DIR) + "/CMakeLists.txt");
  const std::string cmake((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::smatch m;
  ASSERT_TRUE(std::regex_search(cmake, m, std::regex(R"(project\(gpuperf VERSION ([0-9.]+))")));
  CliResult r = gp({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "gpuperf " + m[1].str() + "\n");
}

// `gpuperf metrics --chip`: a chip asked by its name through CUPTI's host API, on this machine without its GPU
// (docs/gpus.md); a chip CUPTI does not know and a misspelt one are bad input; without --chip and without a GPU
// the error says how to ask by name.
TEST_F(CliTest, MetricsAsksAChipByItsName) {
  const CliResult gb202 = gp({"metrics", "--chip", "GB202"});
  EXPECT_CLI(gb202, 0, "What gpuperf measures on GB202");
  EXPECT_CLI(gb202, 0, "dram__bytes_op_read.sum");  // its own spelling of dram_bytes_read
  EXPECT_CLI(gb202, 0,
             "record's speed of light: sm__throughput, gpu__compute_memory_throughput (GB202 has no TriageCompute");
  const CliResult json = gp({"metrics", "--chip", "GH100", "--chip", "TU104", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_NE(json.out.find("\"chip\": \"TU104\""), std::string::npos);
  EXPECT_EQ(json.out.find("\"supported\": false"), std::string::npos) << "a default metric unsupported";
  EXPECT_CLI(gp({"metrics", "--chip", "GX999"}), 2, "does not know chip 'GX999'");
  EXPECT_CLI(gp({"metrics", "--chip", "ga100"}), 2, "expected a chip name as CUPTI spells it");
  const CliResult here = gp({"metrics"});
  if (here.code == 3) {
    EXPECT_NE(here.err.find("--chip CHIP asks of a chip by its name"), std::string::npos) << here.err;
  } else {
    EXPECT_CLI(here, 0, "What gpuperf measures on");  // a GPU machine: its own chip
  }
}

}  // namespace
}  // namespace gpuperf::testing
