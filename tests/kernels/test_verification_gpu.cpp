// On a GPU: every instance of the default suite fails verification while its output is still poison and
// passes after one launch (twice: launches are idempotent); deliberately broken kernels are recorded as
// incorrect and never timed. Skips without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "kernels/benchmark.hpp"
#include "profiler/runner.hpp"
#include "tests/kernels/broken_kernels.hpp"

namespace gpuperf {
namespace {

bool gpu_available() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

class OnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU on this machine";
    ASSERT_EQ(cudaStreamCreate(&stream_), cudaSuccess);
  }
  void TearDown() override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  cudaStream_t stream_ = nullptr;
};

TEST_F(OnGpu, EveryDefaultSuiteInstanceVerifiesAndItsPoisonIsCaught) {
  Registry r;
  register_builtin_benchmarks(r);
  const auto instances = r.instances();
  ASSERT_EQ(instances.size(), 33u);
  for (const auto& ref : instances) {
    const std::string name = ref.instance().display_name();
    SCOPED_TRACE(name);
    auto w = ref.benchmark->make(ref.params, 20261122);
    ASSERT_NE(w, nullptr);
    w->poison_outputs(stream_);
    const Verification untouched = w->verify(stream_);
    EXPECT_FALSE(untouched.ok) << "verification passed on poisoned output";
    EXPECT_NE(untouched.message.find("nan"), std::string::npos) << untouched.message;
    for (int round = 0; round < 2; ++round) {
      w->poison_outputs(stream_);
      w->launch(stream_);
      const Verification v = w->verify(stream_);
      EXPECT_TRUE(v.ok) << "round " << round << ": " << v.message;
    }
    // Once verified (the runner frees the CPU reference then), it is still timed and profiled.
    w->verified();
    w->launch(stream_);
    EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    EXPECT_NE(w->kernel_function(), nullptr);
    EXPECT_GT(w->launch_shape().threads_per_block(), 0u);
  }
}

// A timer that must never run: an incorrect kernel is not timed.
class MustNotTime : public SampleTimer {
 public:
  int calls = 0;
  TimingResult time(Workload&, StreamHandle, const std::string&, const TimingOptions&) override {
    ++calls;
    TimingResult t;
    t.duration_ns = {1000.0};
    return t;
  }
};

TEST_F(OnGpu, BrokenKernelsAreRecordedIncorrectAndNeverTimed) {
  using testing::Bug;
  for (Bug bug : {Bug::skips_last, Bug::off_by_one, Bug::one_element_off}) {
    Benchmark b;
    b.name = "broken/copy";
    b.make = [bug](const Params&, std::uint64_t seed) { return testing::make_buggy_copy(bug, 1u << 20, seed); };
    const InstanceRef ref{&b, {}};
    MustNotTime timer;
    const Result r = measure_instance(ref, 7, stream_, timer, TimingOptions{});
    EXPECT_EQ(r.status, Status::incorrect) << static_cast<int>(bug);
    EXPECT_EQ(timer.calls, 0);
    EXPECT_TRUE(r.metrics.empty());
    EXPECT_NE(r.message.find("out["), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("input seed 7"), std::string::npos) << r.message;
  }
  // The control: the same workload without a bug verifies and is timed.
  Benchmark ok;
  ok.name = "broken/none";
  ok.make = [](const Params&, std::uint64_t seed) {
    return testing::make_buggy_copy(testing::Bug::none, 1u << 20, seed);
  };
  MustNotTime timer;
  const Result r = measure_instance(InstanceRef{&ok, {}}, 7, stream_, timer, TimingOptions{});
  EXPECT_EQ(r.status, Status::ok) << r.message;
  EXPECT_EQ(timer.calls, 1);
}

// A launch this chip cannot run is unsupported with the reason, never failed, and the context stays usable: a block
// of 2048 threads (every chip allows 1024; the runtime says only cudaErrorInvalidValue) and a kernel built for sm_75
// alone (no image on any later chip; on a Turing GPU it runs).
TEST_F(OnGpu, ALaunchTheChipCannotRunIsUnsupportedAndTheNextInstanceRuns) {
  Benchmark wide;
  wide.name = "limits/wide_block";
  wide.make = [](const Params&, std::uint64_t seed) { return testing::make_wide_copy(1u << 20, seed); };
  MustNotTime timer;
  Result r = measure_instance(InstanceRef{&wide, {}}, 7, stream_, timer, TimingOptions{});
  EXPECT_EQ(r.status, Status::unsupported) << r.message;
  // CUDA 13 answers the launch with cudaErrorInvalidValue; the runner reads the shape against the device's limits.
  EXPECT_NE(r.message.find("cannot run here: a block of 2048 threads: sm_"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find(" allows 1024: "), std::string::npos) << r.message;
  std::printf("[ limits   ] %s\n", r.message.c_str());
  EXPECT_EQ(timer.calls, 0);

  int device = 0, major = 0, minor = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), cudaSuccess);
  Benchmark turing;
  turing.name = "limits/turing_only";
  turing.make = [](const Params&, std::uint64_t seed) { return testing::make_turing_only_copy(1u << 20, seed); };
  r = measure_instance(InstanceRef{&turing, {}}, 7, stream_, timer, TimingOptions{});
  if (major * 10 + minor == 75) {
    EXPECT_EQ(r.status, Status::ok) << r.message;
  } else {
    EXPECT_EQ(r.status, Status::unsupported) << r.message;
    EXPECT_NE(r.message.find("the binary holds no code sm_" + std::to_string(major * 10 + minor) + " can run"),
              std::string::npos)
        << r.message;
    EXPECT_NE(r.message.find("cudaErrorNoKernelImageForDevice"), std::string::npos) << r.message;
  }
  std::printf("[ limits   ] %s\n", r.message.c_str());

  // Neither error is sticky: the next instance verifies and is timed.
  Benchmark ok;
  ok.name = "limits/control";
  ok.make = [](const Params&, std::uint64_t seed) {
    return testing::make_buggy_copy(testing::Bug::none, 1u << 20, seed);
  };
  const int before = timer.calls;
  r = measure_instance(InstanceRef{&ok, {}}, 7, stream_, timer, TimingOptions{});
  EXPECT_EQ(r.status, Status::ok) << r.message;
  EXPECT_EQ(timer.calls, before + 1);
}

}  // namespace
}  // namespace gpuperf
