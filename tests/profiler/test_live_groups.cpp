// Grouping live workloads for batched profiling (profiler/live_groups.hpp), with fake workloads: groups
// end at the size limit or when memory runs low, instances with nothing to keep form no group, and a
// group's workloads are destroyed before the next instance is made.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "profiler/live_groups.hpp"

namespace gpuperf {
namespace {

// Counts how many are alive, so a test can see when a group's workloads are freed.
struct Counted : Workload {
  explicit Counted(int& alive) : alive_(alive) { ++alive_; }
  ~Counted() override { --alive_; }
  void launch(StreamHandle) override {}
  void poison_outputs(StreamHandle) override {}
  Verification verify(StreamHandle) override { return {true, "", 0.0}; }
  const void* kernel_function() const override { return nullptr; }
  LaunchShape launch_shape() const override { return {}; }
  int& alive_;
};

std::vector<InstanceRef> instances(const Benchmark& b, std::size_t n) {
  return std::vector<InstanceRef>(n, InstanceRef{&b, {}});
}

struct Recorder {
  int alive = 0;
  std::vector<std::vector<std::size_t>> groups;
  std::vector<int> alive_at_group;
  std::vector<int> alive_at_prepare;
  GroupFn group_fn() {
    return [this](const std::vector<ProfileTarget>& t, const std::vector<std::size_t>& index) {
      EXPECT_EQ(t.size(), index.size());
      for (const auto& target : t) {
        EXPECT_NE(target.workload, nullptr);
        EXPECT_NE(target.ref, nullptr);
      }
      groups.push_back(index);
      alive_at_group.push_back(alive);
    };
  }
};

TEST(LiveGroups, GroupsEndAtTheSizeLimitAndTheRestFormTheLastGroup) {
  Benchmark b;
  Recorder rec;
  GroupLimits limits;
  limits.max_instances = 3;
  for_each_live_group(
      instances(b, 7), limits,
      [&](std::size_t) {
        rec.alive_at_prepare.push_back(rec.alive);
        return std::make_unique<Counted>(rec.alive);
      },
      rec.group_fn());
  ASSERT_EQ(rec.groups.size(), 3u);
  EXPECT_EQ(rec.groups[0], (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(rec.groups[1], (std::vector<std::size_t>{3, 4, 5}));
  EXPECT_EQ(rec.groups[2], (std::vector<std::size_t>{6}));
  EXPECT_EQ(rec.alive_at_group, (std::vector<int>{3, 3, 1}));  // the whole group is alive while profiled
  // ... and freed before the next instance is made.
  EXPECT_EQ(rec.alive_at_prepare, (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
  EXPECT_EQ(rec.alive, 0);
}

TEST(LiveGroups, LowMemoryEndsAGroupEarlyButEveryGroupHoldsOne) {
  Benchmark b;
  Recorder rec;
  GroupLimits limits;
  limits.max_instances = 64;
  // Memory is low once two workloads are alive.
  limits.memory_low = [&] { return rec.alive >= 2; };
  for_each_live_group(
      instances(b, 5), limits, [&](std::size_t) { return std::make_unique<Counted>(rec.alive); }, rec.group_fn());
  ASSERT_EQ(rec.groups.size(), 3u);
  EXPECT_EQ(rec.groups[0], (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(rec.groups[2], (std::vector<std::size_t>{4}));

  // Memory low from the start: each instance still gets a group of its own, none is dropped.
  Recorder always;
  limits.memory_low = [] { return true; };
  for_each_live_group(
      instances(b, 3), limits, [&](std::size_t) { return std::make_unique<Counted>(always.alive); }, always.group_fn());
  EXPECT_EQ(always.groups, (std::vector<std::vector<std::size_t>>{{0}, {1}, {2}}));
}

TEST(LiveGroups, InstancesWithNothingToKeepJoinNoGroup) {
  Benchmark b;
  Recorder rec;
  GroupLimits limits;
  limits.max_instances = 2;
  std::vector<std::size_t> prepared;
  // Odd instances "failed verification": nothing is kept alive for them.
  for_each_live_group(
      instances(b, 6), limits,
      [&](std::size_t i) -> std::unique_ptr<Workload> {
        prepared.push_back(i);
        if (i % 2 == 1) return nullptr;
        return std::make_unique<Counted>(rec.alive);
      },
      rec.group_fn());
  EXPECT_EQ(prepared, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(rec.groups, (std::vector<std::vector<std::size_t>>{{0, 2}, {4}}));

  // Timing only: nothing is ever kept, so no group is formed at all.
  Recorder none;
  for_each_live_group(
      instances(b, 4), limits, [](std::size_t) { return std::unique_ptr<Workload>(); }, none.group_fn());
  EXPECT_TRUE(none.groups.empty());
}

TEST(LiveGroups, AnExceptionPropagatesAndFreesTheLiveWorkloads) {
  Benchmark b;
  int alive = 0;
  GroupLimits limits;
  limits.max_instances = 8;
  EXPECT_THROW(for_each_live_group(
                   instances(b, 4), limits,
                   [&](std::size_t i) -> std::unique_ptr<Workload> {
                     if (i == 2) throw std::runtime_error("out of memory");
                     return std::make_unique<Counted>(alive);
                   },
                   [](const std::vector<ProfileTarget>&, const std::vector<std::size_t>&) {
                     ADD_FAILURE() << "no group completes";
                   }),
               std::runtime_error);
  EXPECT_EQ(alive, 0);
}

}  // namespace
}  // namespace gpuperf
