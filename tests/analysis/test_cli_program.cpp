// A recorded program's verdict through the real executable on imported recordings (program_history.hpp):
// compare leads with the program's line judged over the runs the database holds (the base branch's recordings
// of the same command, the candidate commit's repeats), a gone kernel does not fail the job, --gate
// program_time does, the Markdown fits a pull-request comment, and bad --kernel-family rules exit 2.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "db/interchange.hpp"
#include "tests/analysis/program_history.hpp"
#include "tests/cli/cli_runner.hpp"

namespace gpuperf::testing {
namespace {

using nlohmann::json;

const char* const kBaseUuid = "dec0de00-0000-4000-8000-000000000002";  // the newest of the three base runs
const char* const kCandUuid = "dec0de00-0000-4000-8000-000000000003";

class ProgramCli : public ::testing::Test {
 protected:
  // Imports the three base runs and `candidates` (in this order: their ids follow).
  void import(const std::vector<gpuperf::Run>& candidates, std::vector<gpuperf::Run> base = decoder_base_runs()) {
    base.insert(base.end(), candidates.begin(), candidates.end());
    write_bytes(dir_.file("history.json"), db::to_interchange(base));
    const CliResult r = gpuperf({"--quiet", "import", dir_.file("history.json")});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  CliResult gpuperf(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", dir_.file("gp.db")});
    return run_gpuperf(args, dir_.path().string());
  }
  TempDir dir_;
};

std::vector<DecoderKernel> attention_backend_switched() {
  return replaced(decoder_kernels(), kFlash, {{kBmm, 7e6, 32}, {kSoftmax, 3e6, 16}});
}

TEST_F(ProgramCli, ASlowerAttentionLeadsWithTheProgramJudgedOverTheStoredRuns) {
  import(
      {decoder_run(3, "bbbb000000000000000000000000000000000000", "feature", scaled(decoder_kernels(), kFlash, 1.2))});
  const CliResult text = gpuperf({"compare", kBaseUuid, kCandUuid});
  EXPECT_EQ(text.code, 1) << text.err;  // the flash kernel's duration rows gate
  const auto program = text.out.find("program decoder: GPU time 39 ms -> 40.6 ms (+4.1%, medians), slower");
  ASSERT_NE(program, std::string::npos) << text.out;
  EXPECT_NE(text.out.find("(3 base runs, 1 candidate run; every candidate run beyond every base run"),
            std::string::npos)
      << text.out;
  EXPECT_LT(program, text.out.find("GPU time by kernel family:"));
  EXPECT_LT(text.out.find("GPU time by kernel family:"), text.out.find("Rows that fail the job:"));

  const CliResult j = gpuperf({"compare", kBaseUuid, kCandUuid, "--format", "json"});
  const json doc = json::parse(j.out);
  EXPECT_EQ(doc["program"]["verdict"], "slower");
  EXPECT_EQ(doc["program"]["base_runs"].size(), 3u);
  EXPECT_EQ(doc["program"]["families"][0]["family"], "attention");
  EXPECT_EQ(doc["program"]["gated"], false);

  // --history 0: only this pair, so not enough data, with the command that records more.
  const CliResult alone = gpuperf({"compare", kBaseUuid, kCandUuid, "--history", "0"});
  EXPECT_NE(alone.out.find("not enough data (1 base run, 1 candidate run"), std::string::npos) << alone.out;
  EXPECT_NE(
      alone.out.find("next: on the base's commit aaaa000000: for i in $(seq 2); do gpuperf record --branch main -- "
                     "python3 decoder.py --layers 4; done, then compare again"),
      std::string::npos)
      << alone.out;
  // A recorded kernel's one-value row (its gpu_time_total) names the same command, not `gpuperf run`.
  const json rows = json::parse(gpuperf({"compare", kBaseUuid, kCandUuid, "--history", "0", "--format", "json"}).out);
  std::size_t short_rows = 0;
  for (const auto& row : rows["rows"]) {
    if (row["verdict"] != "not enough data") continue;
    ++short_rows;
    EXPECT_NE(row["next_step"].get<std::string>().find("for i in $(seq 3); do gpuperf record --branch main -- python3 "
                                                       "decoder.py --layers 4; done"),
              std::string::npos)
        << row.dump();
  }
  EXPECT_GT(short_rows, 0u);
}

TEST_F(ProgramCli, AReplacedKernelIsReportedNotFailedAndTheProgramGatesOnlyWhenAsked) {
  import({decoder_run(3, "bbbb000000000000000000000000000000000000", "feature", attention_backend_switched())});
  const CliResult md = gpuperf({"compare", kBaseUuid, kCandUuid, "--format", "md", "--junit", dir_.file("j.xml")});
  EXPECT_EQ(md.code, 0) << md.out << md.err;  // a gone kernel and an ungated program time do not fail
  EXPECT_NE(md.out.find("gone, replaced by ampere\\_bf16\\_s16816gemm"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("reported, not failed"), std::string::npos) << md.out;
  EXPECT_LT(std::count(md.out.begin(), md.out.end(), '\n'), 100);
  EXPECT_NE(read_bytes(dir_.file("j.xml")).find("failures=\"0\""), std::string::npos);

  const CliResult gated =
      gpuperf({"compare", kBaseUuid, kCandUuid, "--gate", "program_time", "--junit", dir_.file("g.xml")});
  EXPECT_EQ(gated.code, 1) << gated.out;
  EXPECT_NE(gated.out.find("slower (gates)"), std::string::npos) << gated.out;
  EXPECT_NE(read_bytes(dir_.file("g.xml")).find("<failure type=\"regression\" message=\"program decoder"),
            std::string::npos);

  // The user's family table: the GEMM that replaced attention counted as attention.
  const CliResult fam =
      gpuperf({"compare", kBaseUuid, kCandUuid, "--format", "json", "--kernel-family", "attention=s16816gemm|SoftMax"});
  const json doc = json::parse(fam.out);
  EXPECT_EQ(doc["program"]["families"][0]["family"], "attention") << doc["program"]["families"];
  EXPECT_EQ(doc["program"]["family_rules"], json::array({"attention=s16816gemm|SoftMax"}));
}

TEST_F(ProgramCli, AnAAOfTheUnchangedProgramPasses) {
  // Two more recordings of the newest base commit: the candidate side has them as repeats.
  import({decoder_run(3, "aaaa000000000000000000000000000000000002", "main", decoder_kernels(), 1.002),
          decoder_run(4, "aaaa000000000000000000000000000000000002", "main", decoder_kernels(), 0.999)});
  const CliResult r = gpuperf({"compare", kBaseUuid, "dec0de00-0000-4000-8000-000000000004", "--gate", "program_time"});
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("same (4 base runs, 1 candidate run; within the 3% floor)"), std::string::npos) << r.out;
}

TEST_F(ProgramCli, RepeatsOfTheCandidateCommitAreItsSamples) {
  import({decoder_run(3, "bbbb000000000000000000000000000000000000", "feature", scaled(decoder_kernels(), kFlash, 1.2),
                      1.001),
          decoder_run(4, "bbbb000000000000000000000000000000000000", "feature", scaled(decoder_kernels(), kFlash, 1.2),
                      0.999)});
  const CliResult r = gpuperf({"compare", kBaseUuid, kCandUuid, "--format", "json"});
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["program"]["candidate_runs"].size(), 2u) << doc["program"];
  EXPECT_EQ(doc["program"]["base_runs"].size(), 3u) << doc["program"];
  EXPECT_EQ(doc["program"]["verdict"], "slower");
}

TEST_F(ProgramCli, TheBaseWindowEndsAtTheBase) {
  // Two main recordings after the base, already slower: they are not the base's samples.
  const auto slow = scaled(decoder_kernels(), kFlash, 1.2);
  import({decoder_run(3, "aaaa000000000000000000000000000000000003", "main", slow),
          decoder_run(4, "aaaa000000000000000000000000000000000004", "main", slow),
          decoder_run(5, "bbbb000000000000000000000000000000000000", "feature", slow)});
  const CliResult r =
      gpuperf({"compare", kBaseUuid, "dec0de00-0000-4000-8000-000000000005", "--format", "json", "--history", "10"});
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["program"]["base_runs"].size(), 3u) << doc["program"];
  EXPECT_EQ(doc["program"]["verdict"], "slower");
}

TEST_F(ProgramCli, ABadFamilyRuleExitsTwo) {
  import({decoder_run(3, "bbbb", "feature", decoder_kernels())});
  const CliResult r = gpuperf({"compare", kBaseUuid, kCandUuid, "--kernel-family", "attention=flash("});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--kernel-family 'attention=flash(': 'flash(' is not a valid regular expression"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(gpuperf({"compare", kBaseUuid, kCandUuid, "--kernel-family", "flash"}).code, 2);
  EXPECT_EQ(gpuperf({"compare", kBaseUuid, kCandUuid, "--gate", "program_tme"}).code, 2);
}

}  // namespace
}  // namespace gpuperf::testing

namespace gpuperf::testing {
namespace {

using nlohmann::json;

// detect over twelve nightly recordings on main, the flash kernel 20% slower from the seventh on: the program's
// own step leads the answer, gated only with --gate program_time.
TEST(ProgramDetectCli, AProgramsStepLeadsDetect) {
  TempDir dir;
  std::vector<gpuperf::Run> nights;
  for (int n = 0; n < 12; ++n) {
    char commit[48];
    std::snprintf(commit, sizeof commit, "c%02d%037d", n, 0);
    const double noise = 1 + 0.001 * ((n * 7) % 5 - 2);
    nights.push_back(
        decoder_run(n, commit, "main", n < 6 ? decoder_kernels() : scaled(decoder_kernels(), kFlash, 1.2), noise));
  }
  write_bytes(dir.file("history.json"), db::to_interchange(nights));
  const auto gp = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", dir.file("gp.db")});
    return run_gpuperf(args, dir.path().string());
  };
  const CliResult imported = gp({"--quiet", "import", dir.file("history.json")});
  ASSERT_EQ(imported.code, 0) << imported.err;
  const CliResult text = gp({"detect"});
  ASSERT_EQ(text.code, 0) << text.err;
  const auto lead = text.out.find("program decoder on gpu-node-1 (NVIDIA H200, GPU-1111): GPU time ");
  ASSERT_NE(lead, std::string::npos) << text.out;
  EXPECT_NE(text.out.find("(+4.2%) at c060000000 (previous c050000000), regression, confirmed, gates: no"),
            std::string::npos)
      << text.out;
  EXPECT_LT(lead, text.out.find("machine "));  // before the kernels' table

  const json doc = json::parse(gp({"detect", "--format", "json"}).out);
  ASSERT_EQ(doc["programs"].size(), 1u) << doc["programs"];
  EXPECT_EQ(doc["programs"][0]["program"], "decoder");
  EXPECT_EQ(doc["programs"][0]["run_id"], 7);
  EXPECT_NEAR(doc["programs"][0]["change_pct"].get<double>(), 100.0 * 1.6 / 39, 0.5);
  EXPECT_EQ(doc["programs"][0]["gated"], false);
  const json gated = json::parse(gp({"detect", "--format", "json", "--gate", "program_time"}).out);
  EXPECT_EQ(gated["programs"][0]["gated"], true);
  // A --filter narrows the kernels: no partial sum is shown as the program's time.
  EXPECT_EQ(json::parse(gp({"detect", "--format", "json", "--filter", "nvjet"}).out).count("programs"), 0u);
}

}  // namespace
}  // namespace gpuperf::testing
