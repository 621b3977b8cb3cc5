// The bound verdict from the speed-of-light pair, and the order it gives a finding's hints (core/bound.hpp).
#include "core/bound.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace gpuperf {
namespace {

TEST(Bound, TheBusierSideAboveSixtyPercentBoundsTheKernel) {
  const BoundVerdict compute = classify_bound({91.2, 60.0, 58.0});
  ASSERT_TRUE(compute.bound.has_value());
  EXPECT_EQ(*compute.bound, Bound::compute);
  EXPECT_EQ(bound_text(compute), "compute-bound 91% SM");

  const BoundVerdict dram = classify_bound({30.0, 82.4, 80.0});
  EXPECT_EQ(*dram.bound, Bound::memory);
  EXPECT_EQ(bound_text(dram), "memory-bound 82% DRAM");

  // The busiest memory unit is a cache, not DRAM.
  EXPECT_EQ(bound_text(classify_bound({30.0, 82.0, 20.0})), "memory-bound 82% L1/L2");
  // Both high: the larger decides; equal goes to compute.
  EXPECT_EQ(*classify_bound({75.0, 76.0, 76.0}).bound, Bound::memory);
  EXPECT_EQ(*classify_bound({76.0, 76.0, 76.0}).bound, Bound::compute);
  // Neither reaches 60%: latency.
  const BoundVerdict latency = classify_bound({55.0, 41.0, 40.0});
  EXPECT_EQ(*latency.bound, Bound::latency);
  EXPECT_EQ(bound_text(latency), "latency-bound (SM 55%, memory 41%)");
  EXPECT_EQ(*classify_bound({60.0, 10.0, 1.0}).bound, Bound::compute);
}

TEST(Bound, SaysWhatItCouldNotUse) {
  const BoundVerdict none = classify_bound({std::nullopt, 80.0, 80.0});
  EXPECT_FALSE(none.bound.has_value());
  EXPECT_EQ(bound_text(none), "bound unknown (no sm_throughput)");
  EXPECT_EQ(bound_text(classify_bound({})), "bound unknown (no sm_throughput, memory_throughput)");
  // Without DRAM a memory-bound kernel is still classified; the unit is not named.
  const BoundVerdict no_dram = classify_bound({20.0, 80.0, std::nullopt});
  EXPECT_EQ(*no_dram.bound, Bound::memory);
  EXPECT_EQ(bound_text(no_dram), "memory-bound 80% memory");
  EXPECT_EQ(no_dram.missing, "dram_throughput");
}

TEST(Bound, ChangeText) {
  const BoundVerdict mem = classify_bound({55.0, 82.0, 81.0}), comp = classify_bound({91.0, 80.0, 79.0});
  EXPECT_EQ(bound_change_text(mem, comp), "memory-bound 82% DRAM -> compute-bound 91% SM");
  EXPECT_EQ(bound_change_text(comp, classify_bound({93.0, 70.0, 69.0})), "compute-bound 93% SM");
  EXPECT_EQ(bound_change_text(BoundVerdict{}, comp), "compute-bound 91% SM");
  EXPECT_EQ(bound_change_text(BoundVerdict{}, BoundVerdict{}), "");
}

TEST(Bound, HintRankPutsTheExplainingCountersFirst) {
  // Compute-bound: instructions and the FMA pipe before the sector efficiency.
  EXPECT_LT(hint_rank("instructions", Bound::compute), hint_rank("inst_fma", Bound::compute));
  EXPECT_LT(hint_rank("inst_fma", Bound::compute), hint_rank("gld_efficiency", Bound::compute));
  // Memory-bound: the other way round.
  EXPECT_LT(hint_rank("gld_efficiency", Bound::memory), hint_rank("dram_bytes_read", Bound::memory));
  EXPECT_LT(hint_rank("dram_bytes_read", Bound::memory), hint_rank("instructions", Bound::memory));
  // Latency-bound: occupancy first.
  EXPECT_LT(hint_rank("achieved_occupancy", Bound::latency), hint_rank("instructions", Bound::latency));
  // No bound (a history without speed of light): the traits table's order, as before.
  EXPECT_LT(hint_rank("gld_efficiency", std::nullopt), hint_rank("registers", std::nullopt));
  EXPECT_LT(hint_rank("registers", std::nullopt), hint_rank("some__raw_counter.sum", std::nullopt));
  EXPECT_TRUE(is_work_metric("instructions"));
  EXPECT_TRUE(is_work_metric("inst_fma"));
  EXPECT_FALSE(is_work_metric("issue_active"));
}

}  // namespace
}  // namespace gpuperf

namespace gpuperf {
namespace {

// A GH100 run of the default set stores the TriageCompute speed of light (profiler/speed_of_light.hpp): the bound
// still classifies, its memory side the busiest of the L1, L2, DRAMC and DRAM throughputs.
TEST(Bound, TheTriageNamesGiveTheSpeedOfLight) {
  std::map<std::string, double> values = {{"sol_sm_triage", 6.0},
                                          {"sol_l1tex_triage", 26.9},
                                          {"sol_lts_triage", 47.5},
                                          {"sol_dramc_triage", 83.0},
                                          {"dram_throughput", 83.1}};
  const auto value = [&](const char* m) -> std::optional<double> {
    const auto it = values.find(m);
    return it == values.end() ? std::nullopt : std::optional<double>(it->second);
  };
  const SpeedOfLight sol = speed_of_light_from(value);
  EXPECT_EQ(sol.sm, 6.0);
  EXPECT_EQ(sol.memory, 83.1);
  EXPECT_EQ(classify_bound(sol).bound, Bound::memory);
  // Today's names win where both are stored; dram_throughput alone is no memory side.
  values = {{"sm_throughput", 94.7}, {"sol_sm_triage", 90.0}, {"dram_throughput", 1.0}};
  const SpeedOfLight today = speed_of_light_from(value);
  EXPECT_EQ(today.sm, 94.7);
  EXPECT_FALSE(today.memory.has_value());
}

}  // namespace
}  // namespace gpuperf
