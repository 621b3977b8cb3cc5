// gpuperf run --device: the device list is checked before any GPU work, and without a GPU the run says so.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "tests/cli/cli_fixture.hpp"

namespace gpuperf::testing {
namespace {

TEST_F(CliTest, RunRejectsABadDeviceList) {
  EXPECT_CLI(gp({"run", "--device", "0,0"}), 2, "device 0 is listed twice");
  EXPECT_CLI(gp({"run", "--device", "0,x"}), 2, "expected all, a device ordinal, or a list");
  EXPECT_CLI(gp({"run", "--device", "-1"}), 2, "expected all, a device ordinal, or a list");
  EXPECT_FALSE(exists("gpuperf.db"));
}

TEST_F(CliTest, RunWithoutAGpuExitsThreeOnEveryDevice) {
  if (std::filesystem::exists("/dev/nvidia0")) GTEST_SKIP() << "this machine has a GPU";
  EXPECT_CLI(gp({"run", "--device", "all"}), 3, "no CUDA GPU is available");
  CliResult two = gp({"run", "--device", "0,1", "--quick"});
  EXPECT_CLI(two, 3, "no CUDA GPU is available");
  EXPECT_NE(two.out.find("== device 1 (exit 3) =="), std::string::npos) << two.out;
  EXPECT_FALSE(exists("gpuperf.db"));  // nothing measured, nothing stored
}

}  // namespace
}  // namespace gpuperf::testing

namespace gpuperf::testing {
namespace {

TEST_F(CliTest, RunsTableKeepsOneLinePerRunWhateverTheStrings) {
  std::vector<gpuperf::Run> runs = {make_run(run_uuid(1), "2026-10-01T02:00:00Z", "main\nsecond line")};
  runs[0].label = "night\tly";
  write("odd.json", db::to_interchange(runs));
  ASSERT_EQ(gp({"import", "odd.json"}).code, 0);
  CliResult r = gp({"runs"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2) << r.out;  // header + one run
  EXPECT_NE(r.out.find("main second line"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gpuperf::testing
