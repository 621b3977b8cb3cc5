// What changed besides the code, through the real executable on an imported history (environment_history.hpp):
// detect reports the driver change of night 40 as one environment step naming the driver and the 30 kernels,
// k69's code step of the same night as a finding of its own, and the gate as before; compare says "same code" or
// "code changed" per duration row and which environment fields differ; `runs show` prints the environment.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/analysis/environment_history.hpp"
#include "tests/cli/cli_runner.hpp"

namespace gpuperf::testing {
namespace {

using nlohmann::json;

class IdentityCli : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::write_bytes(dir_.file("history.json"), db::to_interchange(environment_history()));
    const CliResult r = gpuperf({"--quiet", "import", dir_.file("history.json")});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  CliResult gpuperf(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", dir_.file("gp.db")});
    return run_gpuperf(args, dir_.path().string());
  }
  TempDir dir_;
};

TEST_F(IdentityCli, ADriverNightIsOneEnvironmentStepAndACodeStepStaysItsOwn) {
  const CliResult r = gpuperf({"detect", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  expect_environment_findings(json::parse(r.out));

  const CliResult text = gpuperf({"detect"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("environment step at c0ffee1040"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("driver 580.159.04 -> 590.12: 30 kernels stepped together (30 slower"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("code changed"), std::string::npos) << text.out;  // k69's row, in its hints
  // The gate is unchanged: the 31 regressions still fail the job when asked.
  EXPECT_EQ(gpuperf({"detect", "--fail-on-regression"}).code, 1);
}

// One finding, one shape: the Markdown report shows the driver night as one row naming the step and its kernels
// (as detect does), and one `ack --environment-step` answers it whole in detect and the report.
TEST_F(IdentityCli, TheReportShowsTheStepAsOneFindingThatOneAckAnswers) {
  const CliResult md = gpuperf({"report", "--format", "md", "--out", "-"});
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_NE(md.out.find("### Regressions (2)"), std::string::npos) << md.out;  // the step and k69's code step
  EXPECT_NE(md.out.find("| environment step: 30 kernels | duration |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("driver 580.159.04 -> 590.12: 30 kernels stepped together (30 slower"), std::string::npos);
  EXPECT_EQ(md.out.find("| suite/k00[n=1024] | duration"), std::string::npos) << md.out;  // not a row of its own

  EXPECT_NE(
      gpuperf({"ack", "--run", "c0ffee1039", "--environment-step", "--reason", "x"}).err.find("no environment step at"),
      std::string::npos);
  const CliResult acked =
      gpuperf({"ack", "--run", "c0ffee1040", "--environment-step", "--reason", "driver 590: expected"});
  ASSERT_EQ(acked.code, 0) << acked.err;
  EXPECT_NE(acked.out.find("30 kernels: driver 590: expected"), std::string::npos) << acked.out;
  const CliResult after = gpuperf({"report", "--format", "md", "--out", "-"});
  EXPECT_NE(after.out.find("### Regressions (2, 1 answered)"), std::string::npos) << after.out;
  // k69's own code step stays open.
  EXPECT_EQ(gpuperf({"detect", "--fail-on-regression"}).code, 1);
  ASSERT_EQ(gpuperf({"ack", "--run", "c0ffee1040", "--benchmark", "suite/k69", "--reason", "new kernel"}).code, 0);
  EXPECT_EQ(gpuperf({"detect", "--fail-on-regression"}).code, 0);
  EXPECT_EQ(gpuperf({"ack", "--undo", "--run", "c0ffee1040", "--environment-step"}).code, 0);
  EXPECT_EQ(gpuperf({"detect", "--fail-on-regression"}).code, 1);
}

TEST_F(IdentityCli, CompareSaysSameCodeOrCodeChangedAndTheDriver) {
  const CliResult r = gpuperf(
      {"compare", "e5400000-0000-4000-8000-000000000039", "e5400000-0000-4000-8000-000000000040", "--format", "json"});
  ASSERT_EQ(r.code, 1) << r.err;  // the slower kernels still gate
  const json j = json::parse(r.out);
  ASSERT_EQ(j["environment"].size(), 1u) << j["environment"];
  EXPECT_EQ(j["environment"][0]["field"], "driver");
  EXPECT_EQ(j["environment"][0]["before"], "580.159.04");
  EXPECT_EQ(j["environment"][0]["after"], "590.12");
  std::size_t same = 0, changed = 0;
  for (const auto& row : j["rows"]) {
    if (row["benchmark"] == "suite/k69") {
      EXPECT_EQ(row["code"], "code changed");
      ++changed;
    } else {
      EXPECT_EQ(row["code"], "same code") << row;
      ++same;
    }
  }
  EXPECT_EQ(same, 69u);
  EXPECT_EQ(changed, 1u);
  const CliResult text =
      gpuperf({"compare", "e5400000-0000-4000-8000-000000000039", "e5400000-0000-4000-8000-000000000040"});
  EXPECT_NE(text.out.find("changed    driver 580.159.04 -> 590.12"), std::string::npos) << text.out;
}

TEST_F(IdentityCli, RunsShowPrintsTheMachineAndTheEnvironment) {
  const CliResult r = gpuperf({"runs", "show", "e5400000-0000-4000-8000-000000000040"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("machine\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  gpu_name  NVIDIA H200"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("environment\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  driver         590.12"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  power_limit_w  700"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  with_code_fingerprint  70"), std::string::npos) << r.out;
  const json j = json::parse(gpuperf({"runs", "show", "e5400000-0000-4000-8000-000000000000", "--format", "json"}).out);
  EXPECT_EQ(j["environment"]["ecc"], "on");
  EXPECT_EQ(j["machine"]["driver"], "580.159.04");
  const CliResult missing = gpuperf({"runs", "show", "99999"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("no run matches '99999'"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace gpuperf::testing
