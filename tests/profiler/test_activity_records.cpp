// Matching hand-built CUPTI records to the benchmark's own launches.
#include <gtest/gtest.h>

#include "profiler/cupti/activity_records.hpp"

namespace gpuperf::cupti {
namespace {

TEST(DurationsByExternalId, OnlyTaggedLaunchesCount) {
  ActivityBatch b;
  b.kernels = {
      {10, 1000, 1500, 7, "flush"},  // correlation 10: untagged (L2 flush)
      {11, 2000, 2600, 7, "bench"},  // tagged 1
      {12, 2700, 2720, 7, "clock"},  // untagged (clock probe)
      {13, 3000, 3550, 7, "bench"},  // tagged 2
      {14, 4000, 4100, 7, "bench"},  // tagged 99: not asked for
  };
  b.correlations = {{1, 11}, {2, 13}, {99, 14}};
  const auto d = durations_by_external_id(b, {1, 2});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_DOUBLE_EQ(d.at(1), 600.0);
  EXPECT_DOUBLE_EQ(d.at(2), 550.0);
}

TEST(DurationsByExternalId, SeveralKernelsOfOneLaunchSpanFirstStartToLastEnd) {
  ActivityBatch b;
  b.kernels = {{21, 100, 200, 1, "a"}, {22, 210, 400, 1, "b"}};
  b.correlations = {{5, 21}, {5, 22}};
  EXPECT_DOUBLE_EQ(durations_by_external_id(b, {5}).at(5), 300.0);
}

TEST(DurationsByExternalId, IncompleteAndMissingRecordsAreAbsent) {
  ActivityBatch b;
  b.kernels = {{31, 100, 0, 1, "no end yet"}};
  b.correlations = {{1, 31}, {2, 32}};
  EXPECT_TRUE(durations_by_external_id(b, {1, 2, 3}).empty());
}

// A sample's kernels for its code identity (sample_loop.cpp): the first tag that has any, in start order.
TEST(KernelsOfFirstTag, TheFirstSampleWithRecordsGivesItsKernelsInStartOrder) {
  ActivityBatch b;
  b.kernels = {{40, 100, 200, 1, "flush"}, {42, 900, 950, 1, "second"}, {41, 300, 400, 1, "first"}};
  b.kernels[2].grid[0] = 64;
  b.kernels[2].block[0] = 256;
  b.kernels[2].dynamic_smem = 1024;
  b.correlations = {{7, 41}, {7, 42}};
  const auto ks = kernels_of_first_tag(b, {6, 7, 8});  // 6 has no record: the next one answers
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].name, "first");
  EXPECT_EQ(ks[0].grid[0], 64u);
  EXPECT_EQ(ks[0].dynamic_smem, 1024u);
  EXPECT_EQ(ks[1].name, "second");
  EXPECT_TRUE(kernels_of_first_tag(b, {9}).empty());
}

}  // namespace
}  // namespace gpuperf::cupti
