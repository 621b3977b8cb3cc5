// A team's answers as a new user gives them on the sample history (docs/answers.md): one ack by the commit
// detect prints answers the whole step in every output; an answer that names nothing is refused; every name
// the tables print (a machine, a recorded kernel's short form) is accepted back; a refused import writes
// nothing; an answer that is stored can travel back; the user's own words never drive the terminal. Each case
// failed before the change that made it hold.
#include <regex>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_fixture.hpp"

namespace gpuperf::testing {
namespace {

using nlohmann::json;

const std::string kSample = std::string(GPUPERF_SOURCE_DIR) + "/examples/sample-history.json";

class CliAnswerNames : public CliTest {
 protected:
  void SetUp() override { ASSERT_EQ(gp({"--quiet", "import", kSample}).code, 0); }
  std::size_t count(const std::vector<std::string>& list_args) const { return json::parse(gp(list_args).out).size(); }
};

// The sample's step: memory/coalesced at commit ec456ab89b (run 9, 44b47455), its duration finding gated with
// four gated hints (gld_efficiency, gst_efficiency, inst_alu, instructions) and nine more findings.
TEST_F(CliAnswerNames, OneAckByTheCommitDetectPrintsAnswersTheWholeStepEverywhere) {
  EXPECT_EQ(gp({"detect", "--fail-on-regression"}).code, 1);
  const CliResult acked =
      gp({"ack", "--run", "ec456ab89b", "--benchmark", "memory/coalesced", "--reason", "tracked in #123"});
  EXPECT_CLI(acked, 0, "from run 44b47455 (ec456ab89b) (14 findings, duration +119%");

  EXPECT_CLI(gp({"detect", "--fail-on-regression", "--junit", "detect.xml"}), 0, "14 acknowledged");
  EXPECT_EQ(bytes("detect.xml").find("<failure"), std::string::npos) << bytes("detect.xml");
  const json d = json::parse(gp({"detect", "--format", "json"}).out);
  std::size_t answered = 0;
  for (const auto& c : d["changes"]) {
    EXPECT_TRUE(c.contains("acknowledgement")) << c.dump();
    answered += c.contains("acknowledgement") ? 1 : 0;
  }
  EXPECT_EQ(answered, 14u);
  const CliResult md = gp({"report", "--format", "md", "--out", "-"});
  EXPECT_CLI(md, 0, "### Regressions (1, 1 answered)");
  EXPECT_CLI(md, 0, "acknowledged: tracked in \\#123");

  // Undone whole; then one metric answered alone leaves the gated hints open.
  EXPECT_CLI(gp({"ack", "--undo", "--run", "ec456ab89b", "--benchmark", "memory/coalesced"}), 0,
             "undid 14 acknowledgements");
  EXPECT_EQ(gp({"detect", "--fail-on-regression"}).code, 1);
  EXPECT_CLI(
      gp({"ack", "--run", "44b47455", "--benchmark", "memory/coalesced", "--metric", "duration", "--reason", "known"}),
      0, "(1 finding, duration +119%)");
  EXPECT_EQ(gp({"detect", "--fail-on-regression"}).code, 1);
}

TEST_F(CliAnswerNames, AnAckThatAnswersNoFindingIsRefusedNamingTheNearestOne) {
  // A run before the step, and the commit's latest run (12) is one that a commit used to resolve to.
  EXPECT_CLI(gp({"ack", "--run", "3", "--benchmark", "memory/coalesced", "--reason", "x"}), 2,
             "--run 44b47455 (commit ec456ab89b): duration +119%");
  EXPECT_CLI(gp({"ack", "--run", "12", "--benchmark", "memory/broadcast", "--reason", "x"}), 2,
             "detect finds no step of memory/broadcast");
  EXPECT_EQ(count({"ack", "--list", "--format", "json"}), 0u);
  // Said explicitly, it is recorded.
  EXPECT_CLI(gp({"ack", "--run", "3", "--benchmark", "memory/coalesced", "--reason", "x", "--no-finding"}), 0,
             "(duration (no finding))");
}

TEST_F(CliAnswerNames, AnnotateRefusesCommitsAndNightsThatNameNothing) {
  EXPECT_CLI(gp({"annotate", "--commit", "deadbee", "x"}), 2, "is the commit of no stored run");
  EXPECT_CLI(gp({"annotate", "--commit", "ec45", "x"}), 2, "too short");
  for (const std::string night : {"2026-02-30", "2026-13-45", "0000-00-00", "1900-01-01", "2099-01-01", "yesterday"}) {
    const CliResult r = gp({"annotate", "--machine", "GPU-8f4295e5", "--night", night, "x"});
    EXPECT_EQ(r.code, 2) << night << ": " << r.out << r.err;
  }
  EXPECT_EQ(count({"annotate", "--list", "--format", "json"}), 0u);
  EXPECT_CLI(gp({"annotate", "--commit", "ec456ab", "new coalescing"}), 0, "noted on commit ec456ab");
  EXPECT_CLI(gp({"annotate", "--machine", "GPU-8f4295e5", "--night", "2026-11-09", "x"}), 0, "noted on night");
}

// Every machine and benchmark name the tables print, fed back to the options that take one.
TEST_F(CliAnswerNames, EveryPrintedNameIsAcceptedBack) {
  const std::string printed = "vm (NVIDIA H100 80GB HBM3, GPU-8f4295e5)";
  EXPECT_CLI(gp({"runs"}), 0, printed);
  for (const std::string& m : {printed, std::string("GPU-8f4295e5"), std::string("vm"), std::string("1")}) {
    EXPECT_EQ(gp({"runs", "--machine", m}).code, 0) << m;
    EXPECT_EQ(gp({"detect", "--machine", m}).code, 0) << m;
    EXPECT_EQ(gp({"report", "--machine", m, "--format", "md", "--out", "-"}).code, 0) << m;
    EXPECT_EQ(gp({"export", "--machine", m, "--output", "m.json"}).code, 0) << m;
    EXPECT_CLI(gp({"ack", "--machine", m, "--run", "ec456ab89b", "--benchmark", "memory/coalesced", "--metric",
                   "duration", "--reason", "x"}),
               0, "acknowledged");
  }
  EXPECT_CLI(gp({"runs", "--machine", "GPU-8f42"}), 0, printed);  // a prefix of 8+ characters

  // A recorded program whose two kernels fold alike: each printed name answers its own instance.
  const std::string f =
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, "
      "float, float, float>, unsigned int, float, 4>>(int)";
  const std::string d =
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<double, "
      "double, double, double>, unsigned int, float, 4>>(int)";
  json runs = json::array();
  for (int i = 0; i < 12; ++i) {
    json results = json::array();
    for (const std::string& k : {f, d}) {
      const double level = (i >= 8 && k == f ? 130000.0 : 100000.0) * (k == f ? 1.0 : 0.5);
      json samples = json::array();
      for (int s = 0; s < 20; ++s) samples.push_back(level * (1 + 0.002 * ((s * 7 + i) % 5 - 2)));
      results.push_back(
          {{"benchmark", "train/" + k},
           {"params", {{"block", "512x1x1"}, {"grid", "64x1x1"}}},
           {"status", "ok"},
           {"metrics",
            {{"duration", {{"unit", "ns"}, {"better", "lower"}, {"deterministic", false}, {"samples", samples}}}}}});
    }
    char day[32];
    std::snprintf(day, sizeof day, "2026-11-%02dT03:00:00Z", i + 1);
    runs.push_back({{"uuid", run_uuid(100 + i)},
                    {"started_at", day},
                    {"commit", std::string(i < 8 ? "aaaa" : "bbbb") + std::string(36, '0')},
                    {"branch", "main"},
                    {"label", "record"},
                    {"status", "ok"},
                    {"command", "python3 train.py"},
                    {"machine", {{"hostname", "rec"}, {"gpu_name", "NVIDIA H100"}, {"gpu_uuid", "GPU-0123abcd-0000"}}},
                    {"results", results}});
  }
  write("rec.json", json({{"format", "gpuperf-results"}, {"version", 1}, {"runs", runs}}).dump());
  ASSERT_EQ(gp({"--db", "rec.db", "--quiet", "import", "rec.json"}).code, 0);
  const CliResult detected = gp({"--db", "rec.db", "detect"});
  std::smatch m;
  const std::string out = detected.out;
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"((train/\S.*?\[block=512x1x1,grid=64x1x1\]))"))) << out;
  const std::string shown = m[1];
  EXPECT_EQ(shown.find("void "), std::string::npos) << shown;  // the short form, not the full name
  EXPECT_CLI(gp({"--db", "rec.db", "ack", "--run", "bbbb000", "--benchmark", shown, "--reason", "new reduction"}), 0,
             "(1 finding, duration +30");
  EXPECT_EQ(gp({"--db", "rec.db", "detect", "--fail-on-regression"}).code, 0);
  // A form that names both (each folded alone, as a table of one of them would) is refused, listing them.
  const CliResult both = gp({"--db", "rec.db", "ack", "--run", "bbbb000", "--benchmark",
                             "train/at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
                             "at::native::MeanOps<…>, unsigned int, float, 4>>[block=512x1x1,grid=64x1x1]",
                             "--reason", "x", "--no-finding"});
  EXPECT_CLI(both, 2, "names several instances");
  EXPECT_CLI(both, 2, "MeanOps<float, float, float, float>");  // the candidates told apart
}

TEST_F(CliAnswerNames, ARefusedImportWritesNothingAndSaysWhere) {
  ASSERT_EQ(gp({"export", "--run", "1", "--output", "one.json"}).code, 0);
  json doc = json::parse(bytes("one.json"));
  doc["runs"][0]["uuid"] = "00000000-0000-4000-8000-0000000000aa";  // a run the database lacks
  json night = doc;
  night["annotations"] = json::array({{{"uuid", "n1"},
                                       {"text", "x"},
                                       {"at", "2026-11-01T00:00:00Z"},
                                       {"night", "yesterday"},
                                       {"machine", "GPU-8f4295e5-c661-0fcf-0fc3-ef970e8498b0"}}});
  write("night.json", night.dump());
  EXPECT_CLI(gp({"import", "night.json"}), 2,
             "night.json: annotations[0].night: expected a day like 2026-06-01 (YYYY-MM-DD), got 'yesterday'");
  json bench = doc;
  bench["acknowledgements"] = json::array({{{"uuid", "a1"},
                                            {"machine", "GPU-8f4295e5-c661-0fcf-0fc3-ef970e8498b0"},
                                            {"benchmark", "memory/none"},
                                            {"metric", "duration"},
                                            {"run", "00000000-0000-4000-8000-0000000000aa"},
                                            {"reason", "x"},
                                            {"at", "2026-11-01T00:00:00Z"}}});
  write("bench.json", bench.dump());
  EXPECT_CLI(gp({"import", "bench.json"}), 2, "bench.json: acknowledgements[0].benchmark: benchmark instance");
  EXPECT_EQ(json::parse(gp({"runs", "--format", "json"}).out).size(), 12u);  // nothing written, runs included
}

TEST_F(CliAnswerNames, WhatIsStoredCanTravelBack) {
  const std::string long_reason(100000, 'r');
  EXPECT_CLI(gp({"ack", "--run", "ec456ab89b", "--benchmark", "memory/coalesced", "--reason", long_reason}), 2,
             "100000 bytes is longer than the 65536 bytes");
  EXPECT_CLI(gp({"annotate", "--run", "1", std::string(70000, 'n')}), 2, "longer than the 65536 bytes");
  const std::string most(65536, 'r');
  ASSERT_EQ(gp({"ack", "--run", "ec456ab89b", "--benchmark", "memory/coalesced", "--reason", most}).code, 0);
  ASSERT_EQ(gp({"export", "--output", "all.json"}).code, 0);
  EXPECT_CLI(gp({"--db", "b.db", "import", "all.json"}), 0, "14 acknowledgement(s) and annotation(s) new");
  EXPECT_EQ(gp({"--db", "b.db", "detect", "--fail-on-regression"}).code, 0);
}

// The three arguments that reached the terminal raw: a --metric value, a command name, an option name.
TEST_F(CliAnswerNames, TheUsersWordsAreShownNotSentToTheTerminal) {
  const std::string esc = "x\x1b[31mred";
  for (const auto& args : {std::vector<std::string>{"detect", "--metric", esc}, std::vector<std::string>{esc},
                           std::vector<std::string>{"runs", "--" + esc}}) {
    const CliResult r = gp(args);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ((r.out + r.err).find('\x1b'), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("x\\u001b[31mred"), std::string::npos) << r.err;
  }
}

// A run as compare's header prints it ("44b47455 (#9)") and as `runs` prints it when two uuids share their first
// 8 characters: each is accepted back.
TEST_F(CliAnswerNames, ARunIsAcceptedAsTheTablesPrintIt) {
  const CliResult c = gp({"compare", "1", "12"});
  std::smatch m;
  ASSERT_TRUE(std::regex_search(c.out, m, std::regex(R"(base\s+(\S+) \((#\d+)\))"))) << c.out;
  EXPECT_CLI(gp({"runs", "show", m[2]}), 0, "uuid");
  EXPECT_CLI(gp({"runs", "show", m[1]}), 0, "uuid");
  EXPECT_NE(gp({"compare", m[2], "#12"}).code, 2);

  ASSERT_EQ(gp({"export", "--run", "1", "--output", "one.json"}).code, 0);
  json doc = json::parse(bytes("one.json"));
  json twins = doc;
  twins["runs"] = json::array();
  for (const char* uuid : {"abcdef12-0000-4000-8000-000000000001", "abcdef12-0000-4000-8000-000000000002"}) {
    json run = doc["runs"][0];
    run["uuid"] = uuid;
    twins["runs"].push_back(run);
  }
  write("twins.json", twins.dump());
  ASSERT_EQ(gp({"--db", "twins.db", "--quiet", "import", "twins.json"}).code, 0);
  const CliResult listed = gp({"--db", "twins.db", "runs"});
  EXPECT_CLI(listed, 0, "abcdef12-0000-4000-8000-000000000001  ");  // as long as it must be, no longer
  EXPECT_CLI(gp({"--db", "twins.db", "runs", "show", "abcdef12-0000-4000-8000-000000000002"}), 0, "uuid");
  EXPECT_CLI(gp({"--db", "twins.db", "runs", "show", "abcdef12"}), 2, "ambiguous");
  EXPECT_CLI(gp({"--db", "twins.db", "compare", "1", "2"}), 0, "base       abcdef12-0000-4000-8000-000000000001 (#1)");
}

// "Not enough data" names the command that settles the series: `gpuperf run` for the suite's instances, the
// program recorded again (its stored command line) for a recorded kernel, which `run --filter` cannot measure.
TEST_F(CliAnswerNames, NotEnoughDataRecordsARecordedProgramAgain) {
  json runs = json::array();
  for (int i = 0; i < 3; ++i) {
    json samples = json::array();
    for (int s = 0; s < 10; ++s) samples.push_back(1000.0 + s);
    char day[32];
    std::snprintf(day, sizeof day, "2026-11-%02dT03:00:00Z", i + 1);
    runs.push_back({{"uuid", run_uuid(200 + i)},
                    {"started_at", day},
                    {"commit", "cccc" + std::string(36, '0')},
                    {"branch", "main"},
                    {"label", "record"},
                    {"status", "ok"},
                    {"command", "python3 train.py --steps 'a b'"},
                    {"machine", {{"hostname", "rec"}, {"gpu_name", "NVIDIA H100"}, {"gpu_uuid", "GPU-0123abcd-0000"}}},
                    {"results", json::array({{{"benchmark", "train/gemm_kernel"},
                                              {"params", {{"block", "128x1x1"}, {"grid", "64x1x1"}}},
                                              {"status", "ok"},
                                              {"metrics", {{"duration", {{"unit", "ns"}, {"samples", samples}}}}}}})}});
  }
  write("short.json", json({{"format", "gpuperf-results"}, {"version", 1}, {"runs", runs}}).dump());
  ASSERT_EQ(gp({"--db", "short.db", "--quiet", "import", "short.json"}).code, 0);
  const CliResult d = gp({"--db", "short.db", "detect"});
  EXPECT_CLI(d, 0,
             "train/gemm_kernel[block=128x1x1,grid=64x1x1] duration (3 runs): next: for i in $(seq 5); do gpuperf "
             "record --branch main -- python3 train.py --steps 'a b'; done, then detect again");
  EXPECT_EQ(d.out.find("gpuperf run --filter"), std::string::npos) << d.out;
  const json j = json::parse(gp({"--db", "short.db", "detect", "--format", "json"}).out);
  ASSERT_FALSE(j["not_enough_data"].empty());
  EXPECT_EQ(j["not_enough_data"][0]["next_step"].get<std::string>().rfind("for i in $(seq 5); do gpuperf record", 0),
            0u);
  // The suite's instances keep `gpuperf run` (the sample: 12 runs, its short series are benchmark runs).
  EXPECT_EQ(gp({"detect", "--min-segment", "7"}).out.find("gpuperf record"), std::string::npos);
}

}  // namespace
}  // namespace gpuperf::testing
