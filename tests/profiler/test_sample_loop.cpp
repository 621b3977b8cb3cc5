// The timing loop against a fake GPU: warm-up excluded, flushes and clock probes never counted, the
// stopping rule obeyed, cold and hot modes, throttled samples flagged, lost records reported.
#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "tests/profiler/fakes.hpp"

namespace gpuperf {
namespace {

using testing::FakeGpu;
using testing::FakeWorkload;

TimingOptions small_cold() {
  TimingOptions o;
  o.warmup_launches = 3;
  o.warmup_min_s = 0;  // the fake GPU is instant: count only
  o.stop.min_samples = 10;
  o.stop.max_samples = 200;
  o.stop.max_time_s = 60;
  o.stop.min_time_s = 0;
  return o;
}

TEST(SampleLoop, ColdSamplesAreTheKernelsOwnDurationsAfterWarmUp) {
  FakeGpu gpu;
  // The warm-up launches are slow (first touch); the rest run 50 us.
  FakeWorkload w(&gpu, [](std::size_t n) { return n < 3 ? 400000.0 : 50000.0; });
  SampleLoop loop(gpu, gpu);
  const TimingResult t = loop.time(w, nullptr, "fake/kernel", small_cold());
  ASSERT_EQ(t.duration_ns.size(), 10u);                         // identical samples: converged at the minimum
  for (double d : t.duration_ns) EXPECT_DOUBLE_EQ(d, 50000.0);  // no flush (30 us), no clock probe (20 us)
  EXPECT_EQ(t.stop_reason, StopReason::converged);
  EXPECT_EQ(t.warmup_launches, 3u);
  EXPECT_EQ(w.launches, 13u);
  EXPECT_EQ(gpu.flushes, 13);        // one before every launch, warm-up included
  EXPECT_EQ(gpu.clock_records, 10);  // one per sample
  EXPECT_EQ(t.sm_clock_mhz, std::vector<double>(10, 1980.0));
  EXPECT_EQ(t.throttled_count(), 0u);
  EXPECT_FALSE(gpu.enabled);  // tracing is off again for the collector
}

TEST(SampleLoop, HotModeLaunchesBackToBackWithoutFlushes) {
  FakeGpu gpu;
  FakeWorkload w(&gpu, [](std::size_t) { return 20000.0; });
  SampleLoop loop(gpu, gpu);
  TimingOptions o = small_cold();
  o.mode = TimingMode::hot;
  o.hot_batch = 16;
  const TimingResult t = loop.time(w, nullptr, "fake/kernel", o);
  EXPECT_EQ(gpu.flushes, 0);
  EXPECT_EQ(t.duration_ns.size(), 16u);  // one batch, already past the minimum of 10
  EXPECT_EQ(gpu.clock_records, 1);       // one clock reading per batch
  EXPECT_EQ(t.sm_clock_mhz.size(), 16u);
}

TEST(SampleLoop, NoisyInstanceRunsToTheSampleCap) {
  FakeGpu gpu;
  FakeWorkload w(&gpu, [](std::size_t n) { return n % 2 ? 100000.0 : 150000.0; });
  SampleLoop loop(gpu, gpu);
  TimingOptions o = small_cold();
  o.stop.max_samples = 90;
  const TimingResult t = loop.time(w, nullptr, "fake/noisy", o);
  EXPECT_EQ(t.duration_ns.size(), 90u);
  EXPECT_EQ(t.stop_reason, StopReason::max_samples);
  EXPECT_GT(gpu.syncs, 3);  // several batches: the rule is checked between them
}

TEST(SampleLoop, ConvergesWhenTheMedianSettles) {
  FakeGpu gpu;
  // +/-1% jitter: the median's interval falls below 0.5% after a few dozen samples.
  FakeWorkload w(&gpu, [](std::size_t n) {
    return 100000.0 * (1.0 + 0.01 * static_cast<double>(static_cast<int>(n * 7 % 11) - 5) / 5.0);
  });
  SampleLoop loop(gpu, gpu);
  const TimingResult t = loop.time(w, nullptr, "fake/jitter", small_cold());
  EXPECT_EQ(t.stop_reason, StopReason::converged);
  EXPECT_GT(t.duration_ns.size(), 10u);
  EXPECT_LT(t.duration_ns.size(), 200u);
  EXPECT_LT(median_relative_spread(t.duration_ns), 0.005);
}

TEST(SampleLoop, ThrottledSamplesAreFlaggedAgainstTheReferenceClock) {
  FakeGpu gpu;
  gpu.clock_script = {1980.0, 1410.0};
  FakeWorkload w(&gpu, [](std::size_t) { return 50000.0; });
  SampleLoop loop(gpu, gpu);
  const TimingResult t = loop.time(w, nullptr, "fake/kernel", small_cold());
  EXPECT_DOUBLE_EQ(t.reference_clock_mhz, 1980.0);
  EXPECT_EQ(t.throttled_count(), 5u);
  EXPECT_FALSE(t.throttled[0]);
  EXPECT_TRUE(t.throttled[1]);
}

TEST(SampleLoop, LostRecordsAreAnErrorNotAShortSample) {
  FakeGpu gpu;
  gpu.drop_bench_records = true;
  FakeWorkload w(&gpu, [](std::size_t) { return 50000.0; });
  SampleLoop loop(gpu, gpu);
  EXPECT_THROW(loop.time(w, nullptr, "fake/lost", small_cold()), EnvironmentError);
  EXPECT_FALSE(gpu.enabled);
}

TEST(NextWarmupChunk, AimsAtTheMinimumTimeWithinTwiceTheLastChunk) {
  TimingOptions o;
  o.warmup_launches = 3;
  o.warmup_min_s = 0.05;
  // 3 launches took 3 ms: 47 more would reach 50 ms, but a chunk at most doubles.
  EXPECT_EQ(next_warmup_chunk(3, 3, 0.003, o), 6u);
  // 24 launches in 30.1 ms: 16 more at 1.25 ms each reach 50 ms (doubling would launch 48).
  EXPECT_EQ(next_warmup_chunk(24, 24, 0.0301, o), 16u);
  // Past the minimum time with too few launches: the missing ones.
  o.warmup_launches = 10;
  EXPECT_EQ(next_warmup_chunk(8, 3, 0.2, o), 7u);
  // Never 0, never more than 1024.
  o.warmup_launches = 3;
  EXPECT_EQ(next_warmup_chunk(3, 3, 0.0499999, o), 1u);
  EXPECT_EQ(next_warmup_chunk(1024, 3000, 0.001, o), 1024u);
}

TEST(NextBatchSize, FirstReachesTheMinimumThenGrowsWithinBounds) {
  TimingOptions o = small_cold();
  o.stop.min_samples = 25;
  o.stop.max_samples = 100;
  EXPECT_EQ(next_batch_size(0, o, 256), 25u);
  EXPECT_EQ(next_batch_size(25, o, 256), 8u);   // a quarter of 25, at least 8
  EXPECT_EQ(next_batch_size(80, o, 256), 20u);  // a quarter of 80
  EXPECT_EQ(next_batch_size(95, o, 256), 5u);   // never past the maximum
  EXPECT_EQ(next_batch_size(100, o, 256), 0u);
  EXPECT_EQ(next_batch_size(0, o, 16), 16u);  // cold: one clock slot per sample
  o.stop.max_samples = 1000;
  EXPECT_EQ(next_batch_size(600, o, 256), 64u);
}

}  // namespace
}  // namespace gpuperf
