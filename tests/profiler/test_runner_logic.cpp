// The runner's per-instance logic with fake workloads and a scripted timer (no GPU): wrong answers are
// never timed, failures are recorded with their stage, derived metrics come from the median duration.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "kernels/cuda_check.hpp"
#include "profiler/runner.hpp"
#include "tests/profiler/fakes.hpp"

namespace gpuperf {
namespace {

using testing::FakeWorkload;

class ScriptedTimer : public SampleTimer {
 public:
  TimingResult script;
  int calls = 0;
  std::string last_range;
  TimingResult time(Workload&, StreamHandle, const std::string& range, const TimingOptions&) override {
    ++calls;
    last_range = range;
    return script;
  }
};

Benchmark fake_benchmark(std::function<std::unique_ptr<Workload>(const Params&, std::uint64_t)> make) {
  Benchmark b;
  b.name = "fake/variant";
  b.baseline = "fake/base";
  b.axes = {Axis{"n", {ParamValue{std::int64_t{4}}}}};
  b.make = std::move(make);
  b.bytes = [](const Params&) { return 2e6; };  // 2 MB
  b.flops = [](const Params&) { return 1e6; };
  return b;
}

TimingResult timing(std::vector<double> ns) {
  TimingResult t;
  t.duration_ns = std::move(ns);
  t.sm_clock_mhz.assign(t.duration_ns.size(), 1980.0);
  t.throttled.assign(t.duration_ns.size(), false);
  t.reference_clock_mhz = 1980.0;
  return t;
}

TEST(MeasureInstance, VerifiedInstanceGetsDurationAndDerivedRates) {
  const Benchmark b = fake_benchmark([](const Params&, std::uint64_t) {
    return std::make_unique<FakeWorkload>(nullptr, [](std::size_t) { return 0.0; });
  });
  ScriptedTimer timer;
  timer.script = timing({1000, 3000, 2000, 2000, 5000});  // median 2000 ns
  const Result r = measure_instance(InstanceRef{&b, {{"n", std::int64_t{4}}}}, 1, nullptr, timer, TimingOptions{});
  EXPECT_EQ(r.status, Status::ok) << r.message;
  EXPECT_EQ(r.instance.display_name(), "fake/variant[n=4]");
  EXPECT_EQ(r.baseline, "fake/base");
  EXPECT_EQ(timer.last_range, "fake/variant[n=4]");  // the NVTX range name
  const Measurement* d = r.find("duration");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->metric.unit, "ns");
  EXPECT_EQ(d->samples, (std::vector<double>{1000, 3000, 2000, 2000, 5000}));  // raw, in order
  EXPECT_EQ(d->sm_clock_mhz.size(), 5u);
  EXPECT_DOUBLE_EQ(d->summary.median, 2000);
  EXPECT_DOUBLE_EQ(d->summary.min, 1000);
  EXPECT_DOUBLE_EQ(d->summary.max, 5000);
  EXPECT_DOUBLE_EQ(r.find("gbps")->summary.median, 1000.0);   // 2e6 B / 2000 ns
  EXPECT_DOUBLE_EQ(r.find("gflops")->summary.median, 500.0);  // 1e6 FLOP / 2000 ns
  EXPECT_EQ(r.find("gflops")->samples.size(), 1u);
}

TEST(MeasureInstance, WrongAnswerIsIncorrectAndNeverTimed) {
  const Benchmark b = fake_benchmark([](const Params&, std::uint64_t) {
    return std::make_unique<FakeWorkload>(
        nullptr, [](std::size_t) { return 0.0; }, /*correct=*/false);
  });
  ScriptedTimer timer;
  const Result r = measure_instance(InstanceRef{&b, {}}, 77, nullptr, timer, TimingOptions{});
  EXPECT_EQ(r.status, Status::incorrect);
  EXPECT_EQ(timer.calls, 0);
  EXPECT_TRUE(r.metrics.empty());
  EXPECT_EQ(r.message, "out[3] = nan, expected 1.5 (input seed 77)");
}

TEST(MeasureInstance, OutputsArePoisonedBeforeTheVerificationLaunch) {
  FakeWorkload* seen = nullptr;
  const Benchmark b = fake_benchmark([&seen](const Params&, std::uint64_t) {
    auto w = std::make_unique<FakeWorkload>(nullptr, [](std::size_t) { return 0.0; });
    seen = w.get();
    return w;
  });
  ScriptedTimer timer;
  timer.script = timing({1000});
  // The fake verifies only after a launch, so a runner that skipped the launch would be caught too.
  const Result r = measure_instance(InstanceRef{&b, {}}, 1, nullptr, timer, TimingOptions{});
  EXPECT_EQ(r.status, Status::ok);
  ASSERT_NE(seen, nullptr);
}

TEST(MeasureInstance, FailuresNameTheirStage) {
  ScriptedTimer timer;
  const Benchmark bad_setup = fake_benchmark(
      [](const Params&, std::uint64_t) -> std::unique_ptr<Workload> { throw InputError("tile must be 16 or 32"); });
  Result r = measure_instance(InstanceRef{&bad_setup, {}}, 1, nullptr, timer, TimingOptions{});
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_EQ(r.message, "setting up the workload failed: tile must be 16 or 32");

  const Benchmark bad_launch = fake_benchmark([](const Params&, std::uint64_t) {
    return std::make_unique<FakeWorkload>(nullptr, [](std::size_t) -> double {
      throw std::runtime_error("cudaLaunchKernel failed: cudaErrorInvalidConfiguration");
    });
  });
  r = measure_instance(InstanceRef{&bad_launch, {}}, 1, nullptr, timer, TimingOptions{});
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_EQ(r.message, "the verification launch failed: cudaLaunchKernel failed: cudaErrorInvalidConfiguration");

  const Benchmark null_factory = fake_benchmark([](const Params&, std::uint64_t) { return nullptr; });
  r = measure_instance(InstanceRef{&null_factory, {}}, 1, nullptr, timer, TimingOptions{});
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_EQ(timer.calls, 0);
}

// A chip that lacks what the code needs (no image for its architecture, a block beyond its limits) makes the
// instance unsupported with the reason; any other CUDA error still fails it.
TEST(MeasureInstance, ALaunchThisChipCannotRunIsUnsupportedWithTheReason) {
  ScriptedTimer timer;
  const auto throwing = [](cudaError_t code, const char* text) {
    return fake_benchmark([code, text](const Params&, std::uint64_t) {
      return std::make_unique<FakeWorkload>(nullptr, [code, text](std::size_t) -> double {
        throw CudaError(std::string("cudaGetLastError() failed at kernels/x.cu:9: ") + text, code);
      });
    });
  };
  const Benchmark no_image = throwing(cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice");
  Result r = measure_instance(InstanceRef{&no_image, {}}, 1, nullptr, timer, TimingOptions{});
  EXPECT_EQ(r.status, Status::unsupported);
  EXPECT_EQ(r.message.rfind("the verification launch cannot run here: the binary holds no code ", 0), 0u) << r.message;
  EXPECT_NE(r.message.find("CMAKE_CUDA_ARCHITECTURES"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("kernels/x.cu:9: cudaErrorNoKernelImageForDevice"), std::string::npos) << r.message;
  EXPECT_TRUE(r.metrics.empty());

  const Benchmark too_big = throwing(cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration");
  r = measure_instance(InstanceRef{&too_big, {}}, 1, nullptr, timer, TimingOptions{});
  EXPECT_EQ(r.status, Status::unsupported);
  EXPECT_NE(r.message.find("the launch shape is beyond what "), std::string::npos) << r.message;

  const Benchmark registers = throwing(cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources");
  r = measure_instance(InstanceRef{&registers, {}}, 1, nullptr, timer, TimingOptions{});
  EXPECT_EQ(r.status, Status::unsupported);

  const Benchmark out_of_memory = throwing(cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation");
  r = measure_instance(InstanceRef{&out_of_memory, {}}, 1, nullptr, timer, TimingOptions{});
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_EQ(r.message.rfind("the verification launch failed: ", 0), 0u) << r.message;
  EXPECT_EQ(timer.calls, 0);
}

TEST(MeasureInstance, TimingFailureIsRecordedWithoutMetrics) {
  class Throwing : public SampleTimer {
    TimingResult time(Workload&, StreamHandle, const std::string&, const TimingOptions&) override {
      throw EnvironmentError("CUPTI dropped 12 activity records");
    }
  } timer;
  const Benchmark b = fake_benchmark([](const Params&, std::uint64_t) {
    return std::make_unique<FakeWorkload>(nullptr, [](std::size_t) { return 0.0; });
  });
  const Result r = measure_instance(InstanceRef{&b, {}}, 1, nullptr, timer, TimingOptions{});
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_EQ(r.message, "timing failed: CUPTI dropped 12 activity records");
  EXPECT_TRUE(r.metrics.empty());
}

Measurement gld(double value) { return single_value(MetricInfo{"gld_efficiency", "%", true, true}, value); }

TEST(MeasureInstance, CollectorRunsAfterTimingAndItsFailureKeepsTheTiming) {
  const Benchmark b = fake_benchmark([](const Params&, std::uint64_t) {
    return std::make_unique<FakeWorkload>(nullptr, [](std::size_t) { return 0.0; });
  });
  ScriptedTimer timer;
  timer.script = timing({1000, 1000, 1000});
  int collected = 0;
  MetricBatchFn collect = [&](const std::vector<ProfileTarget>& targets, StreamHandle) {
    ++collected;
    EXPECT_EQ(timer.calls, 1);  // after timing, on the same live workload
    EXPECT_EQ(targets.size(), 1u);
    EXPECT_GT(static_cast<FakeWorkload&>(*targets.at(0).workload).launches, 0u);
    return std::vector<std::vector<Measurement>>{{gld(100.0)}};
  };
  Result r = measure_instance(InstanceRef{&b, {}}, 1, nullptr, timer, TimingOptions{}, collect);
  EXPECT_EQ(collected, 1);
  ASSERT_NE(r.find("gld_efficiency"), nullptr);
  EXPECT_NE(r.find("duration"), nullptr);

  MetricBatchFn failing = [](const std::vector<ProfileTarget>&, StreamHandle) -> std::vector<std::vector<Measurement>> {
    throw std::runtime_error("counters busy");
  };
  r = measure_instance(InstanceRef{&b, {}}, 1, nullptr, timer, TimingOptions{}, failing);
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_NE(r.find("duration"), nullptr);
  EXPECT_EQ(r.message, "profiling failed: counters busy");
}

TEST(MeasureInstance, AWrongAnswerIsNeitherTimedNorProfiled) {
  const Benchmark b = fake_benchmark([](const Params&, std::uint64_t) {
    return std::make_unique<FakeWorkload>(
        nullptr, [](std::size_t) { return 0.0; }, /*correct=*/false);
  });
  ScriptedTimer timer;
  timer.script = timing({1000});
  int collected = 0;
  MetricBatchFn collect = [&](const std::vector<ProfileTarget>& t, StreamHandle) {
    ++collected;
    return std::vector<std::vector<Measurement>>(t.size());
  };
  const Result r = measure_instance(InstanceRef{&b, {}}, 5, nullptr, timer, TimingOptions{}, collect);
  EXPECT_EQ(r.status, Status::incorrect);
  EXPECT_EQ(timer.calls, 0);
  EXPECT_EQ(collected, 0);
  EXPECT_TRUE(r.metrics.empty());
}

TEST(AddGroupMetrics, EachResultGetsItsOwnTargetsMetricsAfterItsTimings) {
  std::vector<Result> results(3);
  for (auto& r : results) r.metrics = timing_measurements(timing({1000}), 0, 0);
  std::vector<ProfileTarget> targets(3);
  MetricBatchFn collect = [](const std::vector<ProfileTarget>& t, StreamHandle) {
    std::vector<std::vector<Measurement>> out;
    for (std::size_t k = 0; k < t.size(); ++k) out.push_back({gld(10.0 * static_cast<double>(k + 1))});
    return out;
  };
  add_group_metrics(targets, nullptr, collect, {&results[0], &results[1], &results[2]});
  for (std::size_t k = 0; k < 3; ++k) {
    ASSERT_EQ(results[k].metrics.size(), 2u);
    EXPECT_EQ(results[k].metrics[0].metric.name, "duration");
    EXPECT_DOUBLE_EQ(results[k].metrics[1].samples.at(0), 10.0 * static_cast<double>(k + 1));
  }
}

TEST(AddGroupMetrics, ACollectorThatAnswersForTheWrongNumberOfInstancesFailsTheGroupKeepingTimings) {
  std::vector<Result> results(2);
  results[1].message = "3 of 40 samples throttled";
  for (auto& r : results) r.metrics = timing_measurements(timing({1000}), 0, 0);
  std::vector<ProfileTarget> targets(2);
  MetricBatchFn short_answer = [](const std::vector<ProfileTarget>&, StreamHandle) {
    return std::vector<std::vector<Measurement>>{{gld(1.0)}};
  };
  add_group_metrics(targets, nullptr, short_answer, {&results[0], &results[1]});
  EXPECT_EQ(results[0].metrics.size(), 1u);  // nothing half-attached
  EXPECT_EQ(results[1].metrics.size(), 1u);
  EXPECT_EQ(results[0].message, "profiling failed: the collector returned 1 results for 2 instances");
  EXPECT_EQ(results[1].message,
            "3 of 40 samples throttled; profiling failed: the collector returned 1 results for 2 instances");
}

TEST(MeasureInstance, ThrottledSamplesAreNoted) {
  const Benchmark b = fake_benchmark([](const Params&, std::uint64_t) {
    return std::make_unique<FakeWorkload>(nullptr, [](std::size_t) { return 0.0; });
  });
  ScriptedTimer timer;
  timer.script = timing({1000, 1000, 1000, 1000});
  timer.script.throttled = {false, true, false, true};
  const Result r = measure_instance(InstanceRef{&b, {}}, 1, nullptr, timer, TimingOptions{});
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.message, "2 of 4 samples throttled (SM clock below 1782 MHz)");
}

TEST(TimingMeasurements, NoFlopsNoGflopsAndNoSamplesFails) {
  auto m = timing_measurements(timing({4000}), 8000, 0);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[1].metric.name, "gbps");
  EXPECT_DOUBLE_EQ(m[1].samples[0], 2.0);
  m = timing_measurements(TimingResult{}, 8000, 100);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].status, Status::failed);
}

TEST(RunStatus, WorstStatusAndExitCode) {
  gpuperf::Run run;
  run.results.resize(3);
  EXPECT_EQ(worst_status(run.results), Status::ok);
  EXPECT_EQ(exit_code_for(run), kExitOk);
  run.results[1].status = Status::failed;
  EXPECT_EQ(worst_status(run.results), Status::failed);
  EXPECT_EQ(exit_code_for(run), kExitOk);  // failures are reported, only wrong answers exit 4
  run.results[2].status = Status::incorrect;
  EXPECT_EQ(worst_status(run.results), Status::incorrect);
  EXPECT_EQ(exit_code_for(run), kExitIncorrect);
}

}  // namespace
}  // namespace gpuperf

namespace gpuperf {
namespace {

// The runner's join of each result's kernels (from its timing) with the fingerprints of the loaded functions.
TEST(CodeFingerprints, EachResultGetsItsKernelsFingerprintOrNone) {
  std::vector<Result> results(4);
  const std::vector<std::vector<std::string>> kernels{{"_Z3onePf"}, {"_Z3onePf", "_Z3twoPf"}, {"_Z6unseenPf"}, {}};
  const std::map<std::string, std::string> fingerprints{{"_Z3onePf", "sass:00000000000000aa"},
                                                        {"_Z3twoPf", "sass:00000000000000bb"}};
  add_code_fingerprints(fingerprints, kernels, results);
  EXPECT_EQ(results[0].code.fingerprint, "sass:00000000000000aa");
  // Two kernels a sample: the hash of theirs in launch order, neither's own.
  EXPECT_EQ(results[1].code.fingerprint.rfind("sass:", 0), 0u);
  EXPECT_NE(results[1].code.fingerprint, results[0].code.fingerprint);
  EXPECT_EQ(results[2].code.fingerprint, "");  // its cubin was not seen
  EXPECT_EQ(results[3].code.fingerprint, "");  // no record named its kernels
}

}  // namespace
}  // namespace gpuperf
