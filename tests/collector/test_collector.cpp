// The collector's logic against a fake CUPTI back end: pass loop, ranges, replay modes, evaluation,
// statuses and the environment failures that stop profiling.
#include <gtest/gtest.h>

#include <cmath>

#include <cstdlib>

#include "core/errors.hpp"
#include "profiler/collector.hpp"
#include "profiler/cupti/range_backend_loader.hpp"
#include "tests/collector/fakes.hpp"

namespace gpuperf {
namespace {

using testing::EventLog;
using testing::FakeBackend;
using testing::FakeDevice;
using testing::FakeWorkload;

Benchmark bench(const std::string& name, bool idempotent) {
  Benchmark b;
  b.name = name;
  b.idempotent = idempotent;
  return b;
}

struct Rig {
  std::shared_ptr<EventLog> log = std::make_shared<EventLog>();
  FakeBackend* backend = nullptr;  // owned by the collector
  FakeDevice* device = nullptr;
  std::unique_ptr<MetricCollector> collector;

  explicit Rig(CollectorOptions options = {}, std::function<void(FakeBackend&)> setup = {}) {
    auto b = std::make_unique<FakeBackend>(log);
    auto d = std::make_unique<FakeDevice>(log, b.get());
    backend = b.get();
    device = d.get();
    if (setup) setup(*b);
    collector = make_collector(std::move(b), std::move(d), options);
    log->events.clear();
  }
};

// The memory and shared-memory counters of the default set (before speed of light joined it): one
// configuration in user ranges, for the tests of how sessions run.
CollectorOptions memory_counters() {
  CollectorOptions o;
  o.metrics = {"gld_efficiency",        "gst_efficiency",     "shared_load_transactions", "shared_store_transactions",
               "shared_bank_conflicts", "achieved_occupancy", "dram_bytes_read",          "dram_bytes_written",
               "theoretical_occupancy", "registers",          "static_shared_bytes",      "local_bytes"};
  return o;
}

const Measurement& find(const std::vector<Measurement>& ms, const std::string& name) {
  for (const auto& m : ms) {
    if (m.metric.name == name) return m;
  }
  throw std::runtime_error("no measurement " + name);
}

TEST(Collector, DefaultMetricsConfigureOnceAndSumBankConflicts) {
  auto log = std::make_shared<EventLog>();
  auto b = std::make_unique<FakeBackend>(log);
  FakeBackend* backend = b.get();
  backend->value = [](const std::string&, const std::string& m) {
    if (m == "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum") return 7.0;
    if (m == "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum") return 5.0;
    if (m == "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct") return 12.5;
    return 1.0;
  };
  auto collector = make_collector(std::move(b), std::make_unique<FakeDevice>(log, backend), {});
  // 8 memory metrics (bank conflicts = 2 counters), then sm_throughput in kernel ranges of its own; the fake
  // chip lacks the other 11 counters of speed of light, instructions and stalls. Then all 10 in one, to ask
  // whether that needs fewer passes (the fake: no, as many as both apart), so it is not used.
  EXPECT_EQ(log->joined(), "configure:9 configure:1 configure:10");
  EXPECT_EQ(collector->passes(), 4u);
  ASSERT_EQ(collector->metric_names().size(), 24u);  // 20 profiler + 4 static

  Benchmark copy = bench("memory_access/strided", true);
  InstanceRef ref{&copy, {{"stride", std::int64_t{32}}}};
  FakeWorkload w(log, "strided", backend);
  auto ms = collector->collect(ref, w, nullptr);
  ASSERT_EQ(ms.size(), 24u);
  // A counter the chip lacks is unsupported, with the reason, in its place; the rest are measured.
  for (std::size_t i = 0; i < ms.size(); ++i) EXPECT_EQ(ms[i].metric.name, collector->metric_names()[i]);
  const Measurement& memory = find(ms, "memory_throughput");
  EXPECT_EQ(memory.status, Status::unsupported);
  EXPECT_EQ(memory.message, "not a metric of GH100: gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
  EXPECT_EQ(find(ms, "stall_barrier").status, Status::unsupported);
  EXPECT_EQ(find(ms, "sm_throughput").status, Status::ok);
  EXPECT_EQ(find(ms, "dram_bytes_read").status, Status::ok);
  EXPECT_EQ(ms[0].metric.name, "gld_efficiency");
  EXPECT_EQ(ms[0].metric.unit, "%");
  EXPECT_TRUE(ms[0].metric.higher_is_better);
  EXPECT_DOUBLE_EQ(ms[0].summary.median, 12.5);
  const Measurement& bank = find(ms, "shared_bank_conflicts");
  EXPECT_EQ(bank.status, Status::ok);
  ASSERT_EQ(bank.samples.size(), 1u);
  EXPECT_DOUBLE_EQ(bank.samples[0], 12.0);
  EXPECT_EQ(bank.summary.n, 1u);
  EXPECT_FALSE(bank.metric.higher_is_better);
}

TEST(Collector, UserReplayWarmsFlushesAndLaunchesEveryInstanceOncePerPassInNamedRanges) {
  Rig rig(memory_counters());
  rig.backend->value = [](const std::string& range, const std::string&) {
    return range == "copy/coalesced[n=16]" ? 16.0 : range == "copy/coalesced[n=32]" ? 32.0 : -1.0;
  };
  Benchmark a = bench("copy/coalesced", true);
  InstanceRef ra{&a, {{"n", std::int64_t{16}}}}, rb{&a, {{"n", std::int64_t{32}}}};
  FakeWorkload wa(rig.log, "a", rig.backend), wb(rig.log, "b", rig.backend);
  auto out = rig.collector->collect_batch({{&ra, &wa}, {&rb, &wb}}, nullptr);
  // Each profiled launch follows an unprofiled one of the same instance and an L2 flush, outside any range.
  const std::string pass =
      "start launch:a flush sync push:copy/coalesced[n=16] launch:a sync pop launch:b flush sync "
      "push:copy/coalesced[n=32] launch:b sync pop end_pass";
  EXPECT_EQ(rig.log->joined(), "begin:user:2 " + pass + " " + pass + " decode evaluate end_session");
  ASSERT_EQ(out.size(), 2u);
  // Each instance gets its own range's values.
  EXPECT_DOUBLE_EQ(find(out[0], "dram_bytes_read").samples.at(0), 16.0);
  EXPECT_DOUBLE_EQ(find(out[1], "dram_bytes_read").samples.at(0), 32.0);
  EXPECT_EQ(find(out[1], "dram_bytes_read").status, Status::ok);
}

TEST(Collector, WithoutWarmLaunchOrFlushUserReplayOnlyLaunchesInRanges) {
  CollectorOptions o;
  o.metrics = {"dram_bytes_read"};
  o.warm_launch = false;
  Rig rig(o);
  Benchmark a = bench("a/b", true);
  InstanceRef r{&a, {}};
  FakeWorkload w(rig.log, "w", rig.backend);
  rig.collector->collect(r, w, nullptr);
  EXPECT_EQ(rig.log->joined(),
            "begin:user:1 start flush sync push:a/b launch:w sync pop end_pass start flush sync "
            "push:a/b launch:w sync pop end_pass decode evaluate end_session");

  o.flush_l2 = false;
  Rig bare(o);
  FakeWorkload w2(bare.log, "w", bare.backend);
  bare.collector->collect(r, w2, nullptr);
  EXPECT_EQ(bare.log->joined(),
            "begin:user:1 start push:a/b launch:w sync pop end_pass start push:a/b launch:w sync "
            "pop end_pass decode evaluate end_session");
}

TEST(Collector, NotIdempotentBenchmarksUseKernelReplayOneSessionEach) {
  Rig rig(memory_counters());
  Benchmark safe = bench("a/safe", true), unsafe = bench("a/inplace", false);
  InstanceRef r1{&safe, {}}, r2{&unsafe, {}}, r3{&unsafe, {{"n", std::int64_t{2}}}};
  FakeWorkload w1(rig.log, "1", rig.backend), w2(rig.log, "2", rig.backend), w3(rig.log, "3", rig.backend);
  auto out = rig.collector->collect_batch({{&r1, &w1}, {&r2, &w2}, {&r3, &w3}}, nullptr);
  // No warm launch under kernel replay: it would change a non-idempotent kernel's input.
  const std::string user_pass = "start launch:1 flush sync push:a/safe launch:1 sync pop end_pass";
  EXPECT_EQ(rig.log->joined(),
            "begin:user:1 " + user_pass + " " + user_pass + " decode evaluate end_session " +
                "begin:kernel:1 flush sync start launch:2 sync end_pass decode evaluate end_session " +
                "begin:kernel:1 flush sync start launch:3 sync end_pass decode evaluate end_session");
  for (const auto& ms : out) {
    for (const auto& m : ms) EXPECT_EQ(m.status, Status::ok) << m.metric.name << ": " << m.message;
  }
}

TEST(Collector, ReplayModeKernelForcesKernelReplay) {
  CollectorOptions o;
  o.replay = ReplayMode::kernel;
  o.metrics = {"dram_bytes_read"};
  Rig rig(o);
  Benchmark a = bench("a/b", true);
  InstanceRef r{&a, {}};
  FakeWorkload w(rig.log, "w", rig.backend);
  auto ms = rig.collector->collect(r, w, nullptr);
  EXPECT_EQ(rig.log->count("begin:kernel:1"), 1u);
  EXPECT_EQ(rig.log->count("push:a/b"), 0u);
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(ms[0].status, Status::ok);
}

TEST(Collector, BatchesLargerThanTheSessionLimitAreSplit) {
  CollectorOptions o;
  o.metrics = {"dram_bytes_read"};
  o.max_ranges_per_session = 2;
  Rig rig(o);
  Benchmark a = bench("a/b", true);
  std::vector<InstanceRef> refs;
  std::vector<std::unique_ptr<FakeWorkload>> ws;
  for (int i = 0; i < 5; ++i) refs.push_back(InstanceRef{&a, {{"i", std::int64_t{i}}}});
  std::vector<ProfileTarget> targets;
  for (int i = 0; i < 5; ++i) {
    ws.push_back(std::make_unique<FakeWorkload>(rig.log, std::to_string(i), rig.backend));
    targets.push_back({&refs[static_cast<std::size_t>(i)], ws.back().get()});
  }
  auto out = rig.collector->collect_batch(targets, nullptr);
  EXPECT_EQ(rig.log->count("begin:user:2"), 2u);
  EXPECT_EQ(rig.log->count("begin:user:1"), 1u);
  ASSERT_EQ(out.size(), 5u);
  for (const auto& ms : out) EXPECT_EQ(ms.at(0).status, Status::ok);
}

TEST(Collector, MissingPermissionStopsProfilingWithTheRemedy) {
  Rig rig({}, [](FakeBackend& b) { b.fail = std::make_pair(std::string("begin_session"), 35); });
  Benchmark a = bench("a/b", true);
  InstanceRef r{&a, {}};
  FakeWorkload w(rig.log, "w", rig.backend);
  auto ms = rig.collector->collect(r, w, nullptr);
  EXPECT_NE(rig.collector->environment_error().find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
  EXPECT_NE(rig.collector->environment_error().find("root"), std::string::npos);
  const Measurement& gld = find(ms, "gld_efficiency");
  EXPECT_EQ(gld.status, Status::failed);
  EXPECT_TRUE(gld.samples.empty());
  EXPECT_EQ(gld.message, rig.collector->environment_error());
  // Static attributes do not need the counters.
  EXPECT_EQ(find(ms, "registers").status, Status::ok);
  EXPECT_DOUBLE_EQ(find(ms, "registers").samples.at(0), 40);

  // Later instances fail at once, without touching CUPTI again.
  rig.log->events.clear();
  auto again = rig.collector->collect(r, w, nullptr);
  EXPECT_EQ(rig.log->joined(), "");
  EXPECT_EQ(find(again, "dram_bytes_read").status, Status::failed);
}

TEST(Collector, AnotherProfilerHoldingTheCountersIsAnEnvironmentFailure) {
  Rig rig({}, [](FakeBackend& b) { b.fail = std::make_pair(std::string("start_pass"), 39); });
  Benchmark a = bench("a/b", true);
  InstanceRef r{&a, {}};
  FakeWorkload w(rig.log, "w", rig.backend);
  rig.collector->collect(r, w, nullptr);
  EXPECT_NE(rig.collector->environment_error().find("another profiler"), std::string::npos);
  EXPECT_EQ(rig.log->count("end_session"), 1u);  // the session is closed even though it failed
}

TEST(Collector, OtherCuptiFailuresFailOnlyThatSession) {
  Rig rig(memory_counters(), [](FakeBackend& b) { b.fail = std::make_pair(std::string("decode"), 999); });
  Benchmark a = bench("a/b", true);
  InstanceRef r{&a, {}};
  FakeWorkload w(rig.log, "w", rig.backend);
  auto ms = rig.collector->collect(r, w, nullptr);
  EXPECT_EQ(rig.collector->environment_error(), "");
  EXPECT_EQ(find(ms, "dram_bytes_read").status, Status::failed);
  EXPECT_NE(find(ms, "dram_bytes_read").message.find("decode"), std::string::npos);
  EXPECT_EQ(rig.log->count("end_session"), 1u);
  rig.backend->fail.reset();
  auto ok = rig.collector->collect(r, w, nullptr);
  EXPECT_EQ(find(ok, "dram_bytes_read").status, Status::ok);
}

TEST(Collector, AFailingLaunchFailsItsSessionAndClosesIt) {
  Rig rig(memory_counters());
  Benchmark a = bench("a/b", true);
  InstanceRef r{&a, {}};
  FakeWorkload w(rig.log, "w", rig.backend);
  w.throw_on_launch = true;
  auto ms = rig.collector->collect(r, w, nullptr);
  EXPECT_EQ(find(ms, "gld_efficiency").status, Status::failed);
  EXPECT_NE(find(ms, "gld_efficiency").message.find("illegal memory access"), std::string::npos);
  EXPECT_EQ(rig.log->count("end_session"), 1u);
  EXPECT_EQ(rig.collector->environment_error(), "");
}

TEST(Collector, DroppedRangesFailOnlyTheirInstances) {
  CollectorOptions o;
  o.metrics = {"dram_bytes_read"};
  Rig rig(o, [](FakeBackend& b) { b.drop_last_ranges = 1; });
  Benchmark a = bench("a/b", true);
  InstanceRef r1{&a, {{"i", std::int64_t{1}}}}, r2{&a, {{"i", std::int64_t{2}}}};
  FakeWorkload w1(rig.log, "1", rig.backend), w2(rig.log, "2", rig.backend);
  auto out = rig.collector->collect_batch({{&r1, &w1}, {&r2, &w2}}, nullptr);
  EXPECT_EQ(out[0][0].status, Status::ok);
  EXPECT_EQ(out[1][0].status, Status::failed);
  EXPECT_NE(out[1][0].message.find("1 range(s) dropped"), std::string::npos) << out[1][0].message;
}

TEST(Collector, UndefinedRatiosAreSkippedNotZero) {
  CollectorOptions o;
  o.metrics = {"gst_efficiency", "dram_bytes_written"};
  Rig rig(o, [](FakeBackend& b) {
    b.value = [](const std::string&, const std::string& m) {
      return m.find("global_op_st") != std::string::npos ? std::nan("") : 4096.0;
    };
  });
  Benchmark a = bench("a/b", true);
  InstanceRef r{&a, {}};
  FakeWorkload w(rig.log, "w", rig.backend);
  auto ms = rig.collector->collect(r, w, nullptr);
  EXPECT_EQ(ms[0].status, Status::skipped);
  EXPECT_NE(ms[0].message.find("not applicable"), std::string::npos);
  EXPECT_EQ(ms[1].status, Status::ok);
  EXPECT_DOUBLE_EQ(ms[1].samples.at(0), 4096.0);
}

TEST(Collector, ACounterSumThatIsNotANumberIsAFailureNotAnUndefinedRatio) {
  CollectorOptions o;
  o.metrics = {"dram_bytes_read", "gld_efficiency"};
  Rig rig(o, [](FakeBackend& b) { b.value = [](const std::string&, const std::string&) { return std::nan(""); }; });
  Benchmark a = bench("a/b", true);
  InstanceRef r{&a, {}};
  FakeWorkload w(rig.log, "w", rig.backend);
  auto ms = rig.collector->collect(r, w, nullptr);
  // dram__bytes_read.sum: events counted are 0 when none happened; NaN means nothing was collected.
  EXPECT_EQ(ms[0].status, Status::failed);
  EXPECT_NE(ms[0].message.find("dram__bytes_read.sum = nan"), std::string::npos) << ms[0].message;
  EXPECT_NE(ms[0].message.find("its range collected nothing"), std::string::npos) << ms[0].message;
  // A ratio (.pct) with nothing to divide stays "not applicable".
  EXPECT_EQ(ms[1].status, Status::skipped);
  EXPECT_NE(ms[1].message.find("not applicable"), std::string::npos);
}

TEST(Collector, StaticMetricsComeFromTheDeviceWithoutCupti) {
  CollectorOptions o;
  o.metrics = {"registers", "static_shared_bytes", "local_bytes", "theoretical_occupancy"};
  auto log = std::make_shared<EventLog>();
  auto collector = make_collector(nullptr, std::make_unique<FakeDevice>(log), o);
  EXPECT_EQ(collector->passes(), 0u);
  Benchmark a = bench("a/b", true);
  InstanceRef r{&a, {}};
  FakeWorkload w(log, "w", nullptr);
  auto ms = collector->collect(r, w, nullptr);
  ASSERT_EQ(ms.size(), 4u);
  EXPECT_DOUBLE_EQ(ms[0].samples.at(0), 40);
  EXPECT_EQ(ms[0].metric.unit, "count");
  EXPECT_DOUBLE_EQ(ms[1].samples.at(0), 2048);
  EXPECT_EQ(ms[1].metric.unit, "bytes");
  EXPECT_DOUBLE_EQ(ms[2].samples.at(0), 0);
  // 6 blocks of 256 threads = 48 warps of 64.
  EXPECT_DOUBLE_EQ(ms[3].samples.at(0), 75.0);
  EXPECT_TRUE(ms[3].metric.deterministic);
  EXPECT_EQ(log->joined(), "");  // neither a launch nor CUPTI is needed for static attributes
}

TEST(Collector, StaticAttributeFailureIsRecordedPerMetric) {
  CollectorOptions o;
  o.metrics = {"registers", "dram_bytes_read"};
  auto log = std::make_shared<EventLog>();
  auto backend = std::make_unique<FakeBackend>(log);
  FakeBackend* b = backend.get();
  auto device = std::make_unique<FakeDevice>(log);
  device->fail_static = true;
  auto collector = make_collector(std::move(backend), std::move(device), o);
  Benchmark a = bench("a/b", true);
  InstanceRef r{&a, {}};
  FakeWorkload w(log, "w", b);
  auto ms = collector->collect(r, w, nullptr);
  EXPECT_EQ(ms[0].status, Status::failed);
  EXPECT_NE(ms[0].message.find("cudaErrorInvalidDeviceFunction"), std::string::npos);
  EXPECT_EQ(ms[1].status, Status::ok);
}

TEST(Collector, RawPerfworksNamesAreCheckedAgainstTheChip) {
  CollectorOptions o;
  o.metrics = {"dram__bytes_read.sum", "sm__warps_active.avg.pct_of_peak_sustained_active"};
  Rig rig(o);
  EXPECT_EQ(rig.collector->metric_names(), o.metrics);
  EXPECT_EQ(rig.backend->configured, o.metrics);

  o.metrics = {"dram__bytes_red.sum"};
  auto log = std::make_shared<EventLog>();
  try {
    make_collector(std::make_unique<FakeBackend>(log), std::make_unique<FakeDevice>(log), o);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dram__bytes_read.sum"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("GH100"), std::string::npos) << e.what();
  }
}

TEST(Collector, SeparateSassRunsOneSessionPerConfigurationAndMergesTheValues) {
  CollectorOptions o;
  o.metrics = {"gld_efficiency", "dram_bytes_read", "gst_efficiency"};
  o.separate_sass = true;
  Rig rig(o, [](FakeBackend& b) {
    b.value = [](const std::string&, const std::string& m) {
      return m.find("_op_ld.pct") != std::string::npos   ? 50.0
             : m.find("_op_st.pct") != std::string::npos ? 75.0
                                                         : 1024.0;
    };
  });
  ASSERT_EQ(rig.backend->configurations.size(), 2u);
  EXPECT_EQ(rig.backend->configurations[0], std::vector<std::string>{"dram__bytes_read.sum"});
  EXPECT_EQ(rig.backend->configurations[1].size(), 2u);
  EXPECT_EQ(rig.collector->passes(), 4u);  // 2 per configuration in the fake
  Benchmark a = bench("a/b", true);
  InstanceRef r{&a, {}};
  FakeWorkload w(rig.log, "w", rig.backend);
  auto ms = rig.collector->collect(r, w, nullptr);
  EXPECT_EQ(rig.log->count("begin:0:user:1"), 1u);
  EXPECT_EQ(rig.log->count("begin:1:user:1"), 1u);
  EXPECT_EQ(rig.log->count("launch:w"), 8u);  // 4 passes, a warm launch and a profiled one each
  EXPECT_DOUBLE_EQ(ms[0].samples.at(0), 50.0);
  EXPECT_DOUBLE_EQ(ms[1].samples.at(0), 1024.0);
  EXPECT_DOUBLE_EQ(ms[2].samples.at(0), 75.0);
}

TEST(Collector, SpeedOfLightIsProfiledInKernelRangesOfItsOwn) {
  CollectorOptions o;
  o.metrics = {"dram_bytes_read", "sm_throughput"};
  Rig rig(o, [](FakeBackend& b) {
    b.value = [](const std::string&, const std::string& m) { return m.rfind("sm__", 0) == 0 ? 91.0 : 4096.0; };
  });
  ASSERT_EQ(rig.backend->configurations.size(), 3u);  // the third, both in one, needs no fewer passes
  EXPECT_EQ(rig.backend->configurations[1],
            std::vector<std::string>{"sm__throughput.avg.pct_of_peak_sustained_elapsed"});
  EXPECT_EQ(rig.collector->passes(), 4u);
  Benchmark a = bench("a/b", true);
  InstanceRef r{&a, {}};
  FakeWorkload w(rig.log, "w", rig.backend);
  auto ms = rig.collector->collect(r, w, nullptr);
  // An idempotent benchmark: user ranges for the counters, auto ranges with user replay for the elapsed
  // rate (4 kernels per pass: the warm launch, the two flush kernels, the profiled launch).
  EXPECT_EQ(rig.log->count("begin:0:user:1"), 1u);
  EXPECT_EQ(rig.log->count("begin:1:auto:4"), 1u);
  EXPECT_EQ(rig.log->count("begin:1:kernel:1"), 0u);
  EXPECT_DOUBLE_EQ(find(ms, "dram_bytes_read").samples.at(0), 4096.0);
  EXPECT_DOUBLE_EQ(find(ms, "sm_throughput").samples.at(0), 91.0);

  // A user who asks for user replay gets it for every configuration.
  o.replay = ReplayMode::user;
  Rig user(o);
  FakeWorkload w2(user.log, "w", user.backend);
  user.collector->collect(r, w2, nullptr);
  EXPECT_EQ(user.log->count("begin:1:user:1"), 1u);
  EXPECT_EQ(user.log->count("begin:1:auto:4"), 0u);
  // Kernel replay when asked for, or for a benchmark that is not idempotent: one session per instance.
  o.replay = ReplayMode::kernel;
  Rig kernel(o);
  FakeWorkload w3(kernel.log, "w", kernel.backend);
  kernel.collector->collect(r, w3, nullptr);
  EXPECT_EQ(kernel.log->count("begin:1:kernel:1"), 1u);
}

TEST(Collector, OneConfigurationOfEveryMetricWhenItNeedsFewerPasses) {
  // As on GH100: the counters 4 passes, speed of light 9, both in one configuration 11 (CUPTI packs the
  // counters into the passes speed of light takes).
  const auto chip = [](FakeBackend& b) {
    b.passes_for = [](const std::vector<std::string>& metrics) -> std::size_t {
      const bool sol = std::any_of(metrics.begin(), metrics.end(),
                                   [](const std::string& m) { return m.find("_elapsed") != std::string::npos; });
      return sol && metrics.size() > 1 ? 11 : sol ? 9 : 4;
    };
    b.value = [](const std::string& range, const std::string& m) {
      if (range != "2") return -1.0;  // auto ranges by launch order: 0 the warm launch, 1 the flush, 2 it
      return m.rfind("sm__", 0) == 0 ? 91.0 : 4096.0;
    };
  };
  CollectorOptions o;
  o.metrics = {"dram_bytes_read", "sm_throughput"};
  Rig rig(o, [&](FakeBackend& b) { chip(b); });
  rig.device->flush_kernels = 1;
  ASSERT_EQ(rig.backend->configurations.size(), 3u);
  EXPECT_EQ(rig.backend->configurations[2],
            (std::vector<std::string>{"dram__bytes_read.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed"}));
  EXPECT_EQ(rig.collector->passes(), 11u);
  Benchmark a = bench("a/b", true);
  InstanceRef r{&a, {}};
  FakeWorkload w(rig.log, "w", rig.backend);
  auto ms = rig.collector->collect(r, w, nullptr);
  // One session, the merged configuration (the back end's third), in auto ranges: 11 passes of the warm
  // launch, the flush and the profiled launch; no user ranges.
  EXPECT_EQ(rig.log->count("begin:2:auto:3"), 1u) << rig.log->joined();
  EXPECT_EQ(rig.log->count("begin:0:user:1"), 0u);
  EXPECT_EQ(rig.log->count("begin:1:auto:3"), 0u);
  EXPECT_EQ(rig.log->count("end_pass"), 11u);
  EXPECT_EQ(rig.log->count("push:a/b"), 0u);
  EXPECT_DOUBLE_EQ(find(ms, "dram_bytes_read").samples.at(0), 4096.0);
  EXPECT_DOUBLE_EQ(find(ms, "sm_throughput").samples.at(0), 91.0);

  // SASS metrics kept apart by the user are never merged.
  o.metrics = {"dram_bytes_read", "gld_efficiency", "sm_throughput"};
  o.separate_sass = true;
  Rig apart(o, [&](FakeBackend& b) { chip(b); });
  EXPECT_EQ(apart.backend->configurations.size(), 3u);  // hardware, SASS, speed of light; no merged one
  EXPECT_EQ(apart.collector->passes(), 4u + 4u + 9u);
}

TEST(Collector, SpeedOfLightOfABatchIsOneAutoRangeSessionThatSkipsWarmAndFlushKernels) {
  CollectorOptions o;
  o.metrics = {"sm_throughput"};
  Rig rig(o, [](FakeBackend& b) {
    // Auto ranges are named by launch order: 0 warm, 1-2 flush, 3 profiled; then 4 warm, ..., 7 profiled.
    b.value = [](const std::string& range, const std::string&) {
      return range == "3" ? 40.0 : range == "7" ? 70.0 : -1.0;
    };
  });
  Benchmark a = bench("copy/coalesced", true);
  Benchmark in_place = bench("copy/in_place", false);
  InstanceRef ra{&a, {{"n", std::int64_t{16}}}}, rb{&a, {{"n", std::int64_t{32}}}}, rc{&in_place, {}};
  FakeWorkload wa(rig.log, "a", rig.backend), wb(rig.log, "b", rig.backend), wc(rig.log, "c", rig.backend);
  auto out = rig.collector->collect_batch({{&ra, &wa}, {&rc, &wc}, {&rb, &wb}}, nullptr);
  // One session for both idempotent instances, every pass flushing L2 before each profiled launch; no
  // named ranges. The one that is not idempotent gets kernel replay, alone.
  const std::string pass = "start launch:a flush sync launch:a sync launch:b flush sync launch:b sync end_pass";
  EXPECT_EQ(rig.log->joined(),
            "begin:auto:8 " + pass + " " + pass + " decode evaluate end_session " +
                "begin:kernel:1 flush sync start launch:c sync end_pass decode evaluate end_session");
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].at(0).status, Status::ok);
  EXPECT_DOUBLE_EQ(out[0].at(0).samples.at(0), 40.0);
  EXPECT_DOUBLE_EQ(out[2].at(0).samples.at(0), 70.0);
  EXPECT_EQ(out[1].at(0).status, Status::ok) << out[1].at(0).message;

  // A launch that starts two kernels shifts every range after it: the session's values are failed, not
  // given to the wrong instance.
  Rig two(o);
  FakeWorkload wa2(two.log, "a", two.backend), wb2(two.log, "b", two.backend);
  wa2.kernels_per_launch = 2;
  auto bad = two.collector->collect_batch({{&ra, &wa2}, {&rb, &wb2}}, nullptr);
  for (const auto& ms : bad) {
    EXPECT_EQ(ms.at(0).status, Status::failed);
    EXPECT_NE(ms.at(0).message.find("CUPTI returned 10 kernel range(s) for 8 kernel launches"), std::string::npos)
        << ms.at(0).message;
  }
}

TEST(Collector, WhereTheFlushWarmsAnInstancesMemoryItReplacesTheWarmLaunchInAutoRanges) {
  CollectorOptions o;
  o.metrics = {"sm_throughput", "dram_bytes_read"};
  Rig rig(o, [](FakeBackend& b) {
    // Auto ranges by launch order: 0 a's flush (warming its memory), 1 a; 2 b's warm launch (b's memory is
    // unknown), 3 b's flush, 4 b. In user ranges, by name.
    b.value = [](const std::string& range, const std::string&) {
      return range == "1" ? 40.0 : range == "4" ? 70.0 : range == "a/x" ? 1.0 : range == "a/y" ? 2.0 : -1.0;
    };
  });
  rig.device->flush_kernels = 1;
  rig.device->warm_lists = true;
  Benchmark x = bench("a/x", true), y = bench("a/y", true);
  InstanceRef rx{&x, {}}, ry{&y, {}};
  FakeWorkload wa(rig.log, "a", rig.backend), wb(rig.log, "b", rig.backend);
  wa.device_memory = {{&wa, 1024}, {&wb, 4096}};
  auto out = rig.collector->collect_batch({{&rx, &wa}, {&ry, &wb}}, nullptr);
  const std::string log = rig.log->joined();
  // Speed of light: a's warm launch is gone (its flush warms 5120 bytes), b keeps its own.
  EXPECT_NE(
      log.find("begin:1:auto:5 start flush+warm:5120 sync launch:a sync launch:b flush sync launch:b sync end_pass"),
      std::string::npos)
      << log;
  // User ranges keep the warm launch (it costs no range there).
  EXPECT_NE(log.find("start launch:a flush sync push:a/x launch:a sync pop"), std::string::npos) << log;
  ASSERT_EQ(out.size(), 2u);
  EXPECT_DOUBLE_EQ(find(out[0], "sm_throughput").samples.at(0), 40.0);
  EXPECT_DOUBLE_EQ(find(out[1], "sm_throughput").samples.at(0), 70.0);
  EXPECT_DOUBLE_EQ(find(out[0], "dram_bytes_read").samples.at(0), 1.0);
  EXPECT_DOUBLE_EQ(find(out[1], "dram_bytes_read").samples.at(0), 2.0);
}

TEST(Collector, AFailureInOneConfigurationFailsTheInstancesProfilerMetrics) {
  CollectorOptions o;
  o.metrics = {"gld_efficiency", "dram_bytes_read", "registers"};
  o.separate_sass = true;
  Rig rig(o);
  Benchmark a = bench("a/b", true);
  InstanceRef r{&a, {}};
  FakeWorkload w(rig.log, "w", rig.backend);
  rig.backend->fail = std::make_pair(std::string("decode"), 999);
  auto ms = rig.collector->collect(r, w, nullptr);
  EXPECT_EQ(ms[0].status, Status::failed);
  EXPECT_EQ(ms[1].status, Status::failed);
  EXPECT_EQ(ms[2].status, Status::ok);
}

TEST(BackendLoader, AMissingModuleIsAnEnvironmentErrorNamingWhereItLooked) {
  // The only test of this executable that loads the module: load_backend() remembers its first answer.
  ::setenv("GPUPERF_CUPTI_MODULE", "/nonexistent/libgpuperf_cupti.so", 1);
  EXPECT_EQ(cupti::backend_module_candidates(), std::vector<std::string>{"/nonexistent/libgpuperf_cupti.so"});
  try {
    cupti::load_backend();
    FAIL() << "expected EnvironmentError";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/libgpuperf_cupti.so: not found"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("GPUPERF_CUPTI_MODULE"), std::string::npos) << e.what();
    EXPECT_EQ(e.exit_code(), kExitEnvironment);
  }
  ::unsetenv("GPUPERF_CUPTI_MODULE");
  EXPECT_GE(cupti::backend_module_candidates().size(), 2u);  // next to the executable, ../lib, ...
}

TEST(Collector, SharedCountersAreConfiguredOnce) {
  CollectorOptions o;
  o.metrics = {"shared_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"};
  Rig rig(o);
  EXPECT_EQ(rig.backend->configured.size(), 2u);
}

}  // namespace
}  // namespace gpuperf
