// identity_findings.hpp on hand-made change points: the code verdict, and which nights become one environment
// step (three or more duration changes of one machine and run, environment changed, code not changed).
#include "reports/analysis/identity_findings.hpp"

#include <gtest/gtest.h>

namespace gpuperf::analysis {
namespace {

TEST(IdentityFindings, TheCodeVerdictNeedsBothFingerprints) {
  const CodeIdentity a{"sass:00000000000000aa", "grid=4x1x1 block=256x1x1 smem=0"};
  const CodeIdentity b{"sass:00000000000000bb", "grid=4x1x1 block=256x1x1 smem=0"};
  EXPECT_EQ(code_verdict(a, a), "same code");
  EXPECT_EQ(code_verdict(a, b), "code changed");
  EXPECT_EQ(code_verdict(a, CodeIdentity{}), "");
  EXPECT_EQ(code_verdict(a, CodeIdentity{a.fingerprint, "grid=8x1x1 block=128x1x1 smem=0"}),
            "same code, launch changed");
}

ChangePoint change(const std::string& name, std::int64_t run, const std::string& code, bool env, double pct) {
  ChangePoint c;
  c.machine = "GPU-1";
  c.instance = BenchmarkInstance{name, {}};
  c.metric = MetricInfo{"duration", "ns", false, false};
  c.run_id = run;
  c.previous_run_id = run - 1;
  c.code = code;
  c.change_pct = pct;
  c.kind = pct > 0 ? ChangeKind::regression : ChangeKind::improvement;
  if (env) c.environment = {env::Change{"driver", "580.159.04", "590.12"}};
  return c;
}

TEST(IdentityFindings, ManyKernelsWithTheEnvironmentAreOneStepAndACodeChangeIsNot) {
  std::vector<ChangePoint> cs{change("a", 40, "same code", true, 15), change("b", 40, "same code", true, 14),
                              change("c", 40, "", true, 16),  // no fingerprint: it may still be the driver
                              change("d", 40, "code changed", true, 25), change("e", 12, "same code", false, 9)};
  const auto steps = group_environment_steps(cs);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].changes, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(steps[0].regressions, 3u);
  EXPECT_EQ(cs[0].environment_step, 1u);
  EXPECT_EQ(cs[3].environment_step, 0u);  // its code changed: its own finding
  EXPECT_EQ(cs[4].environment_step, 0u);  // nothing else changed that night
  EXPECT_EQ(describe_step(steps[0], cs),
            "driver 580.159.04 -> 590.12: 3 kernels stepped together (3 slower, median +15.0%), 2 with the same code, "
            "the others without fingerprints");
}

TEST(IdentityFindings, TwoKernelsAreNotAStep) {
  std::vector<ChangePoint> cs{change("a", 40, "same code", true, 15), change("b", 40, "same code", true, 14)};
  EXPECT_TRUE(group_environment_steps(cs).empty());
  EXPECT_EQ(cs[0].environment_step, 0u);
}

}  // namespace
}  // namespace gpuperf::analysis
