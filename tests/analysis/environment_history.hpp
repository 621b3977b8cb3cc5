// An imported history for the "what changed besides the code" findings (issue 54), shared by the SQLite and
// PostgreSQL tests: 70 kernels over 48 nights on one GPU. On night 40 the driver goes from 580.159.04 to 590.12
// and kernels k00..k29 become 15% slower with the same code; the same night k69's code changes (a new
// fingerprint) and it becomes 25% slower. Every other kernel stays as it was.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/environment.hpp"
#include "core/metrics.hpp"
#include "core/result.hpp"
#include "db/interchange.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::testing {

inline constexpr int kEnvNights = 48, kEnvStepNight = 40, kEnvKernels = 70, kEnvSlowed = 30;

inline std::string kernel_label(int k) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "k%02d", k);
  return buf;
}

inline std::vector<Run> environment_history() {
  std::vector<Run> runs;
  for (int night = 0; night < kEnvNights; ++night) {
    const bool after = night >= kEnvStepNight;
    char uuid[40], when[32];
    std::snprintf(uuid, sizeof uuid, "e5400000-0000-4000-8000-%012d", night);
    std::snprintf(when, sizeof when, "2026-%02d-%02dT02:00:00Z", 9 + night / 28, 1 + night % 28);  // one a day
    Run run;
    run.uuid = uuid;
    run.started_at = when;
    run.finished_at = run.started_at;
    run.commit = "c0ffee" + std::to_string(1000 + night);
    run.branch = "main";
    run.label = "nightly";
    run.machine = h200();
    run.machine.driver = after ? "590.12" : "580.159.04";
    run.environment = {{env::kDriver, run.machine.driver}, {env::kPowerLimit, "700"}, {env::kEcc, "on"}};
    for (int k = 0; k < kEnvKernels; ++k) {
      Result r;
      r.instance = BenchmarkInstance{"suite/" + kernel_label(k), {{"n", std::int64_t{1024}}}};
      double level = (100000 + 1000 * k) * (1 + 0.002 * ((night * 7 + k) % 5 - 2));  // night-to-night noise
      if (after && k < kEnvSlowed) level *= 1.15;
      if (after && k == kEnvKernels - 1) level *= 1.25;
      Measurement d;
      d.metric = find_metric("duration")->info;
      for (int s = -3; s <= 3; ++s) d.samples.push_back(level * (1 + 0.001 * s));
      d.summary = summarize(d.samples);
      r.metrics.push_back(d);
      char fp[32];
      std::snprintf(fp, sizeof fp, "sass:%016x", k + (after && k == kEnvKernels - 1 ? 0x1000 : 0));
      r.code = CodeIdentity{fp, "grid=64x1x1 block=256x1x1 smem=0"};
      run.results.push_back(std::move(r));
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

// What `detect --format json` must say of environment_history(): one environment step (the driver, k00..k29, same
// code) and k69's change on its own ("code changed"), 31 regressions and nothing else.
inline void expect_environment_findings(const nlohmann::json& j) {
  ASSERT_EQ(j["environment_steps"].size(), 1u) << j["environment_steps"];
  const auto& step = j["environment_steps"][0];
  ASSERT_EQ(step["environment"].size(), 1u) << step;
  EXPECT_EQ(step["environment"][0]["field"], "driver");
  EXPECT_EQ(step["environment"][0]["before"], "580.159.04");
  EXPECT_EQ(step["environment"][0]["after"], "590.12");
  EXPECT_EQ(step["commit"], "c0ffee" + std::to_string(1000 + kEnvStepNight));
  ASSERT_EQ(step["kernels"].size(), static_cast<std::size_t>(kEnvSlowed));
  for (int k = 0; k < kEnvSlowed; ++k) {
    EXPECT_EQ(step["kernels"][k]["benchmark"], "suite/" + kernel_label(k));
    EXPECT_EQ(step["kernels"][k]["code"], "same code");
    EXPECT_EQ(step["kernels"][k]["kind"], "regression");
  }
  ASSERT_EQ(j["changes"].size(), static_cast<std::size_t>(kEnvSlowed + 1)) << j["changes"].dump(1);
  std::size_t in_step = 0;
  for (const auto& c : j["changes"]) {
    EXPECT_EQ(c["kind"], "regression");
    if (c["benchmark"] == "suite/" + kernel_label(kEnvKernels - 1)) {
      EXPECT_EQ(c["code"], "code changed");
      EXPECT_FALSE(c.contains("environment_step")) << c;
      EXPECT_EQ(c["environment"][0]["field"], "driver");
    } else {
      EXPECT_EQ(c["environment_step"], 1) << c;
      ++in_step;
    }
  }
  EXPECT_EQ(in_step, static_cast<std::size_t>(kEnvSlowed));
}

}  // namespace gpuperf::testing
