// On a GPU: CUPTI activity durations agree with CUDA events around the same launches, the clock probe reads
// a plausible SM clock, and a whole (small) run carries its machine metadata. Skips without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <regex>

#include "core/stats.hpp"
#include "kernels/benchmark.hpp"
#include "profiler/cupti/activity_tracer.hpp"
#include "profiler/gpu/cuda_timing_device.hpp"
#include "profiler/runner.hpp"
#include "profiler/sample_loop.hpp"
#include "tests/kernels/broken_kernels.hpp"

namespace gpuperf {
namespace {

bool gpu_available() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

class TimingOnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
    register_builtin_benchmarks(registry_);
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  InstanceRef instance(const std::string& display_name) {
    for (auto& ref : registry_.instances(".")) {
      if (ref.instance().display_name() == display_name) return ref;
    }
    ADD_FAILURE() << "no instance " << display_name;
    return {};
  }
  Registry registry_;
  cudaStream_t stream_ = nullptr;
};

// Median of CUDA-event timings of `count` cold launches (L2 flushed before each, as the loop does).
double event_median_ns(Workload& w, gpu::CudaTimingDevice& device, cudaStream_t stream, int count) {
  cudaEvent_t start, stop;
  EXPECT_EQ(cudaEventCreate(&start), cudaSuccess);
  EXPECT_EQ(cudaEventCreate(&stop), cudaSuccess);
  std::vector<double> ns;
  for (int i = 0; i < count; ++i) {
    device.flush_l2(stream);
    EXPECT_EQ(cudaEventRecord(start, stream), cudaSuccess);
    w.launch(stream);
    EXPECT_EQ(cudaEventRecord(stop, stream), cudaSuccess);
    EXPECT_EQ(cudaEventSynchronize(stop), cudaSuccess);
    float ms = 0;
    EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
    ns.push_back(1e6 * ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return median(ns);
}

TEST_F(TimingOnGpu, CuptiDurationsAgreeWithCudaEvents) {
  cupti::CuptiActivitySource activity;
  gpu::CudaTimingDevice device;
  SampleLoop loop(activity, device);
  for (const char* name : {"memory/coalesced", "memory/strided[stride=32]", "matmul/naive[n=1024]",
                           "transpose/shared[n=4096]"}) {
    SCOPED_TRACE(name);
    const InstanceRef ref = instance(name);
    auto w = ref.benchmark->make(ref.params, 3);
    const TimingResult t = loop.time(*w, stream_, name, TimingOptions{});
    const double cupti_ns = median(t.duration_ns);
    const double events_ns = event_median_ns(*w, device, stream_, 41);
    // The same events with CUPTI's kernel tracing on: shows what the tracing itself adds to a kernel.
    activity.enable();
    const double traced_events_ns = event_median_ns(*w, device, stream_, 41);
    activity.disable();
    std::printf("%-28s CUPTI %10.0f ns  events %10.0f ns (%+.2f%%)  events while tracing %10.0f ns  n=%zu  "
                "clock %.0f MHz\n",
                name, cupti_ns, events_ns, 100.0 * (cupti_ns / events_ns - 1.0), traced_events_ns,
                t.duration_ns.size(), t.sm_clock_mhz.empty() ? 0.0 : median(t.sm_clock_mhz));
    // Events also count the launch's own start-up on the GPU (a few us at most).
    EXPECT_NEAR(cupti_ns, events_ns, 0.03 * events_ns + 3000.0);
    EXPECT_GE(t.duration_ns.size(), TimingOptions{}.stop.min_samples);
  }
}

// Cold really is cold: a 4 MB copy that fits in L2 runs clearly slower after a flush than back to back,
// with either flush method. Also prints what the two methods give for suite kernels.
TEST_F(TimingOnGpu, FlushEvictsTheWorkingSet) {
  cupti::CuptiActivitySource activity;
  for (gpu::FlushMethod method : {gpu::FlushMethod::read, gpu::FlushMethod::write}) {
    const char* label = method == gpu::FlushMethod::read ? "read flush" : "write flush";
    gpu::CudaTimingDevice device(256, method);
    SampleLoop loop(activity, device);
    auto small = testing::make_buggy_copy(testing::Bug::none, 1u << 20, 5);
    TimingOptions cold;
    TimingOptions hot;
    hot.mode = TimingMode::hot;
    const double cold_ns = median(loop.time(*small, stream_, "small", cold).duration_ns);
    const double hot_ns = median(loop.time(*small, stream_, "small", hot).duration_ns);
    std::printf("%s: 4 MB copy cold %.0f ns, hot %.0f ns\n", label, cold_ns, hot_ns);
    EXPECT_GT(cold_ns, 1.2 * hot_ns) << label;
    for (const char* name : {"memory/coalesced", "memory/broadcast", "memory/strided[stride=8]",
                             "transpose/shared[n=4096]", "matmul/tiled[n=1024,tile=16]"}) {
      const InstanceRef ref = instance(name);
      auto w = ref.benchmark->make(ref.params, 3);
      const TimingResult t = loop.time(*w, stream_, name, TimingOptions{});
      std::printf("%s: %-28s median %10.0f ns  spread %.2f%%  n=%zu\n", label, name, median(t.duration_ns),
                  100.0 * median_relative_spread(t.duration_ns), t.duration_ns.size());
    }
  }
}

TEST_F(TimingOnGpu, ClockProbeReadsAPlausibleSmClock) {
  gpu::CudaTimingDevice device(4);
  for (std::size_t s = 0; s < 4; ++s) device.record_clock(stream_, s);
  device.synchronize(stream_);
  const auto mhz = device.read_clocks_mhz(4);
  ASSERT_EQ(mhz.size(), 4u);
  std::printf("clock probe: %.0f %.0f %.0f %.0f MHz (reference %.0f MHz), flush buffer %zu MB\n", mhz[0], mhz[1],
              mhz[2], mhz[3], device.reference_clock_mhz(), device.flush_bytes() >> 20);
  for (double m : mhz) {
    EXPECT_GT(m, 200.0);
    EXPECT_LT(m, 1.1 * device.reference_clock_mhz());
  }
  EXPECT_GT(device.flush_bytes(), 0u);
}

TEST_F(TimingOnGpu, HotSamplesComeFromBackToBackLaunches) {
  cupti::CuptiActivitySource activity;
  gpu::CudaTimingDevice device;
  SampleLoop loop(activity, device);
  const InstanceRef ref = instance("vector_add/add[block=256]");
  auto w = ref.benchmark->make(ref.params, 3);
  TimingOptions o;
  o.mode = TimingMode::hot;
  const TimingResult t = loop.time(*w, stream_, "hot", o);
  EXPECT_GE(t.duration_ns.size(), o.stop.min_samples);
  EXPECT_GT(median(t.duration_ns), 10000.0);  // 201 MB cannot move in under 10 us
}

TEST_F(TimingOnGpu, ARunCarriesMachineMetadataAndVerifiedTimings) {
  RunOptions o;
  o.timing = TimingOptions::quick();
  o.label = "gpu-test";
  o.commit = "0123456789abcdef0123456789abcdef01234567";
  o.branch = "test";
  const gpuperf::Run run = run_benchmarks(registry_.instances("vector_add/add\\[block=256\\]|transpose/padded"), o);
  ASSERT_EQ(run.results.size(), 2u);
  EXPECT_EQ(run.status, Status::ok);
  EXPECT_TRUE(std::regex_match(run.machine.gpu_uuid,
                               std::regex("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")))
      << run.machine.gpu_uuid;
  EXPECT_GT(run.machine.sm_count, 0);
  EXPECT_FALSE(run.machine.gpu_name.empty());
  EXPECT_FALSE(run.machine.driver.empty());
  EXPECT_TRUE(std::regex_match(run.machine.cc, std::regex("[0-9]+\\.[0-9]+")));
  EXPECT_FALSE(run.machine.hostname.empty());
  EXPECT_EQ(run.label, "gpu-test");
  EXPECT_FALSE(run.started_at.empty());
  EXPECT_FALSE(run.finished_at.empty());
  std::printf("machine: %s %s cc %s, %lld SMs, driver %s, CUDA %s, host %s\n", run.machine.gpu_name.c_str(),
              run.machine.gpu_uuid.c_str(), run.machine.cc.c_str(), static_cast<long long>(run.machine.sm_count),
              run.machine.driver.c_str(), run.machine.cuda.c_str(), run.machine.hostname.c_str());
  for (const Result& r : run.results) {
    EXPECT_EQ(r.status, Status::ok) << r.message;
    const Measurement* d = r.find("duration");
    ASSERT_NE(d, nullptr);
    EXPECT_GE(d->samples.size(), 5u);
    EXPECT_EQ(d->sm_clock_mhz.size(), d->samples.size());
    EXPECT_GT(r.find("gbps")->samples[0], 100.0);
  }
}

}  // namespace
}  // namespace gpuperf
