// A run's environment (core/environment.hpp): which fields count as changed between two runs, how a change
// reads, and `record --env`'s KEY=VALUE.
#include "core/environment.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace gpuperf::env {
namespace {

TEST(Environment, ChangedMachineFieldsAreListedAndUnknownOnesAreNot) {
  const std::map<std::string, std::string> before{{"driver", "580.159.04"}, {"ecc", "on"}, {"power_limit_w", "700"}};
  const std::map<std::string, std::string> after{{"driver", "590.12"}, {"ecc", "on"}};  // no NVML: no power limit
  const auto cs = changes(before, after);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(describe(cs), "driver 580.159.04 -> 590.12");
  EXPECT_TRUE(changes(before, before).empty());
}

TEST(Environment, ALibraryGoneOrNewIsAChangeOnlyWhereLibrariesWereRecorded) {
  const std::map<std::string, std::string> a{{"lib.cublas", "13.0.0.19"}, {"lib.cudnn", "9.10.2.21"}};
  const std::map<std::string, std::string> b{{"lib.cublas", "13.1.0.3"}, {"lib.nccl", "2.27.7"}};
  EXPECT_EQ(describe(changes(a, b)),
            "lib.cublas 13.0.0.19 -> 13.1.0.3, lib.cudnn 9.10.2.21 -> (none), lib.nccl (none) -> 2.27.7");
  const std::map<std::string, std::string> benchmark_run{{"driver", "580.159.04"}};
  EXPECT_TRUE(changes(benchmark_run, a).empty());  // a suite run records no libraries: nothing "appeared"
}

TEST(Environment, TheMachinesDriverStandsInForARunWithoutAnEnvironment) {
  gpuperf::Run old;
  old.machine.driver = "580.159.04";
  old.machine.cuda = "13.0";
  gpuperf::Run now;
  now.machine.driver = "590.12";
  now.environment = {{"driver", "590.12"}, {"cuda_runtime", "13.0"}, {"ecc", "on"}};
  EXPECT_EQ(describe(changes(effective(old), effective(now))), "driver 580.159.04 -> 590.12");
}

TEST(Environment, AssignmentsNameAFrameworkUnlessPrefixed) {
  EXPECT_EQ(parse_assignment("torch=2.9.0", "--env"),
            (std::pair<std::string, std::string>{"framework.torch", "2.9.0"}));
  EXPECT_EQ(parse_assignment("lib.cutlass=4.2", "--env").first, "lib.cutlass");
  EXPECT_EQ(parse_assignment("jax=", "--env").second, "");
  EXPECT_THROW(parse_assignment("torch", "--env"), InputError);
  EXPECT_THROW(parse_assignment("=1", "--env"), InputError);
}

}  // namespace
}  // namespace gpuperf::env
