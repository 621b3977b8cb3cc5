// A team's answers through the gpuperf executable (docs/answers.md): bad input refused whole, answers carried
// by export, import and merge (interchange version 1 still), listed by `runs show`; and "not enough data" on
// the sample history's short series, with its next step, in compare and detect.
#include <nlohmann/json.hpp>

#include "tests/cli/cli_fixture.hpp"

namespace gpuperf::testing {
namespace {

using nlohmann::json;

const std::string kSample = std::string(GPUPERF_SOURCE_DIR) + "/examples/sample-history.json";
constexpr const char* kInstance = "matmul/naive[n=1024]";

class CliAnswers : public CliTest {
 protected:
  // ./gpuperf.db with seed()'s three runs, the last acknowledged and noted.
  void answered() {
    seed();
    const CliResult ack = gp({"ack", "--run", "3", "--benchmark", kInstance, "--reason", "tracked in #123", "--by",
                              "ana", "--accept", "--no-finding"});
    ASSERT_EQ(ack.code, 0) << ack.err;
    ASSERT_EQ(gp({"annotate", "--run", "3", "driver 590 installed", "--by", "ana"}).code, 0);
    ASSERT_EQ(gp({"annotate", "--machine", "1", "--night", "2026-10-02", "GPU replaced"}).code, 0);
  }
};

TEST_F(CliAnswers, BadAnswersAreRefusedAndNothingIsWritten) {
  seed();
  EXPECT_CLI(gp({"ack", "--run", "3", "--benchmark", kInstance}), 2, "needs --reason");
  EXPECT_CLI(gp({"ack", "--run", "3", "--benchmark", "matmul/none", "--reason", "x"}), 2, "names no stored benchmark");
  EXPECT_CLI(gp({"ack", "--run", "99", "--benchmark", kInstance, "--reason", "x"}), 2, "matches no run");
  EXPECT_CLI(gp({"ack", "--run", "3", "--benchmark", kInstance, "--metric", "nope", "--reason", "x"}), 2,
             "--metric: expected a metric name, got 'nope'");
  EXPECT_CLI(
      gp({"ack", "--run", "3", "--benchmark", kInstance, "--metric", "inst_fma", "--reason", "x", "--no-finding"}), 2,
      "not a stored metric");
  EXPECT_CLI(gp({"ack", "--undo", "--run", "3", "--benchmark", kInstance}), 2, "no acknowledgement of");
  EXPECT_CLI(gp({"annotate", "--run", "3", "--commit", "abcdef0", "two places"}), 2, "exactly one of");
  EXPECT_CLI(gp({"annotate", "--night", "2026-10-02", "no machine"}), 2, "--night needs --machine");
  EXPECT_CLI(gp({"annotate", "--machine", "1", "--night", "yesterday", "x"}), 2,
             "--night: expected a day like 2026-06-01 (YYYY-MM-DD), got 'yesterday'");
  EXPECT_CLI(gp({"ack", "--list"}), 0, "no acknowledgements");
  EXPECT_CLI(gp({"annotate", "--list"}), 0, "no annotations");
}

TEST_F(CliAnswers, ExportImportAndMergeCarryThemOnce) {
  answered();
  const CliResult out = gp({"export", "--output", "all.json"});
  ASSERT_EQ(out.code, 0) << out.err;
  const json doc = json::parse(bytes("all.json"));
  EXPECT_EQ(doc["version"], 1);
  ASSERT_EQ(doc["acknowledgements"].size(), 1u);
  EXPECT_EQ(doc["acknowledgements"][0]["reason"], "tracked in #123");
  EXPECT_EQ(doc["acknowledgements"][0]["accepted"], true);
  EXPECT_EQ(doc["annotations"].size(), 2u);

  EXPECT_CLI(gp({"--db", "b.db", "import", "all.json"}), 0, "3 acknowledgement(s) and annotation(s) new");
  EXPECT_CLI(gp({"--db", "b.db", "ack", "--list"}), 0, "accepted: tracked in #123");
  EXPECT_CLI(gp({"--db", "b.db", "annotate", "--list"}), 0, "GPU replaced");
  const CliResult again = gp({"--db", "b.db", "import", "all.json"});  // idempotent on uuid
  EXPECT_EQ(again.out.find("new\n", again.out.find('\n') + 1), std::string::npos) << again.out;
  EXPECT_EQ(json::parse(gp({"--db", "b.db", "ack", "--list", "--format", "json"}).out).size(), 1u);

  // Undone in one database, merged into another that has it: it is undone there too.
  ASSERT_EQ(gp({"ack", "--undo", "--run", "3", "--benchmark", kInstance}).code, 0);
  EXPECT_EQ(gp({"merge", "gpuperf.db", "--into", "b.db"}).code, 0);
  EXPECT_CLI(gp({"--db", "b.db", "ack", "--list"}), 0, "undone, was accepted");
  EXPECT_EQ(json::parse(gp({"--db", "b.db", "annotate", "--list", "--format", "json"}).out).size(), 2u);

  // A file whose answer names a run nowhere to be found is refused whole.
  json bad = doc;
  bad["acknowledgements"][0]["run"] = "99999999-0000-4000-8000-000000000000";
  write("bad.json", bad.dump());
  EXPECT_CLI(gp({"--db", "c.db", "import", "bad.json"}), 2, "neither in the input nor in the database");
  EXPECT_FALSE(exists("c.db"));
  json no_reason = doc;
  no_reason["acknowledgements"][0].erase("reason");
  write("no-reason.json", no_reason.dump());
  EXPECT_CLI(gp({"--db", "c.db", "import", "no-reason.json"}), 2, "acknowledgements[0].reason: missing");
}

TEST_F(CliAnswers, RunsShowListsTheRunsNotesAndAcknowledgements) {
  answered();
  const CliResult shown = gp({"runs", "show", "3"});
  EXPECT_CLI(shown, 0, "note      driver 590 installed (ana)");
  EXPECT_NE(shown.out.find("accepted  matmul/naive[n=1024] duration: tracked in #123 (ana)"), std::string::npos)
      << shown.out;
  EXPECT_EQ(gp({"runs", "show", "1"}).out.find("note "), std::string::npos);
}

// The sample history's first nights: a metric measured once per run has no sample test and no earlier runs to
// be judged against, and detect over five nights cannot segment a series. Each says so, with the next step.
TEST_F(CliAnswers, NotEnoughDataOnTheSampleHistorysShortSeries) {
  ASSERT_EQ(gp({"--quiet", "import", kSample}).code, 0);
  const CliResult compared = gp({"compare", "1", "2", "--format", "json"});
  ASSERT_TRUE(compared.code == 0 || compared.code == 1) << compared.err;
  const json rep = json::parse(compared.out);
  std::size_t short_rows = 0;
  for (const auto& row : rep["rows"]) {
    if (row["verdict"] != "not enough data") continue;
    ++short_rows;
    EXPECT_NE(row["next_step"].get<std::string>().find("gpuperf run --filter '^"), std::string::npos) << row.dump();
    EXPECT_NE(row["next_step"].get<std::string>().find(" --branch main --repeat "), std::string::npos) << row.dump();
  }
  EXPECT_GT(short_rows, 0u) << compared.out;
  EXPECT_EQ(rep["summary"]["not enough data"], short_rows);
  EXPECT_CLI(gp({"compare", "1", "2"}), compared.code, " not enough data");
  EXPECT_CLI(gp({"compare", "1", "2"}), compared.code, "next: on the base's commit");

  const CliResult detected = gp({"detect", "--last", "5"});
  EXPECT_CLI(detected, 0, "series: not enough data");
  EXPECT_NE(detected.out.find("--branch main --repeat 3, then detect again"), std::string::npos) << detected.out;
  const json d = json::parse(gp({"detect", "--last", "5", "--format", "json"}).out);
  ASSERT_FALSE(d["not_enough_data"].empty());
  EXPECT_EQ(d["not_enough_data"][0]["runs"], 5);
  EXPECT_EQ(d["not_enough_data"][0]["needed"], 8);
  // The whole sample (12 nights) is long enough everywhere.
  EXPECT_TRUE(json::parse(gp({"detect", "--format", "json"}).out)["not_enough_data"].empty());
}

}  // namespace
}  // namespace gpuperf::testing
