// What keeps `record --metrics` from hanging a program (profiler/record/inject/inject_guard.hpp), without a GPU: the
// library's decision of which launches may be profiled (communication kernels never), the watchdog of a
// profiled launch (a fake slow launch with a short bound), and the periodic flush that never waits on the
// profiler (a fake CUPTI whose flush would block). Its own executable: the ActivityApi is one per process.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "profiler/cupti/activity_api.hpp"
#include "profiler/record/inject/communication_wait.hpp"
#include "profiler/record/inject/flush_guard.hpp"
#include "profiler/record/inject/inject_guard.hpp"
#include "profiler/record/inject/inject_watchdog.hpp"
#include "profiler/record/launch_policy.hpp"

// The record file of the library (inject.cpp), here a list of lines.
namespace {
std::mutex g_lines_mutex;
std::vector<std::string> g_lines;
std::vector<std::string> lines() {
  std::lock_guard<std::mutex> lock(g_lines_mutex);
  return g_lines;
}
}  // namespace
namespace gpuperf::record::inject {
void write_line_and_flush(const std::string& line) {
  std::lock_guard<std::mutex> lock(g_lines_mutex);
  g_lines.push_back(line);
}
}  // namespace gpuperf::record::inject

namespace gpuperf::record {
namespace {

using Clock = std::chrono::steady_clock;

TEST(LaunchPolicy, CommunicationKernelsAreNeverCandidates) {
  const std::vector<std::string> none;
  EXPECT_EQ(classify_launch(true, true, "_Z4gemmPf", none, false), LaunchClass::candidate);
  // NCCL's kernels, by their mangled and plain names, whatever the launch API.
  EXPECT_EQ(classify_launch(true, true, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", none, false),
            LaunchClass::communication);
  EXPECT_EQ(classify_launch(true, true, "_Z28ncclKernel_AllGather_RING_LLP11ncclDevComm", none, false),
            LaunchClass::communication);
  EXPECT_EQ(classify_launch(false, true, "ncclDevKernel_SendRecv", none, false), LaunchClass::communication);
  // The program's own, named by --communication-kernel; an empty substring names nothing.
  const std::vector<std::string> mine = {"my_allreduce", ""};
  EXPECT_EQ(classify_launch(true, true, "_Z12my_allreducePfi", mine, false), LaunchClass::communication);
  EXPECT_EQ(classify_launch(true, true, "_Z12my_allreducePfi", none, false), LaunchClass::candidate);
  EXPECT_EQ(classify_launch(true, true, "_Z4gemmPf", mine, false), LaunchClass::candidate);
  // Given up: nothing is a candidate any more; cooperative and graph launches and unknown shapes never were.
  EXPECT_EQ(classify_launch(true, true, "_Z4gemmPf", none, true), LaunchClass::stopped);
  EXPECT_EQ(classify_launch(false, true, "_Z4gemmPf", none, false), LaunchClass::other);
  EXPECT_EQ(classify_launch(true, false, "_Z4gemmPf", none, false), LaunchClass::other);
  EXPECT_EQ(classify_launch(true, true, nullptr, none, false), LaunchClass::other);
}

TEST(LaunchPolicy, SubstringsTravelOneALine) {
  const std::vector<std::string> given = {"my_allreduce<float, 4>", "", "peer wait"};
  const std::string value = communication_kernels_value(given);
  EXPECT_EQ(value, "my_allreduce<float, 4>\npeer wait");
  EXPECT_EQ(parse_communication_kernels(value.c_str()),
            (std::vector<std::string>{"my_allreduce<float, 4>", "peer wait"}));
  EXPECT_TRUE(parse_communication_kernels(nullptr).empty());
  EXPECT_TRUE(parse_communication_kernels("\n\n").empty());
}

// The library's own decision, as inject_metrics.cpp asks it (with its cache of the last name per thread).
TEST(LaunchPolicy, ARankOfADistributedJobIsReplayedOnePassALaunchUnlessForced) {
  const auto env = [](std::map<std::string, std::string> vars) {
    return [vars](const char* name) -> const char* {
      const auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  };
  EXPECT_TRUE(distributed_job(env({{"WORLD_SIZE", "2"}})));                     // torchrun
  EXPECT_TRUE(distributed_job(env({{"OMPI_COMM_WORLD_SIZE", "8"}})));           // Open MPI
  EXPECT_TRUE(distributed_job(env({{"PMI_SIZE", "4"}, {"WORLD_SIZE", "1"}})));  // MPICH, Slurm
  EXPECT_FALSE(distributed_job(env({{"WORLD_SIZE", "1"}})));                    // one process: nothing to race
  EXPECT_FALSE(distributed_job(env({{"WORLD_SIZE", "x"}, {"RANK", "3"}})));
  EXPECT_FALSE(distributed_job(env({})));
  constexpr ReplayChoice automatic = ReplayChoice::automatic;
  EXPECT_EQ(replay_mode(automatic, false, false), ReplayMode::every_pass);
  EXPECT_EQ(replay_mode(automatic, true, false),
            ReplayMode::one_pass);  // a rank: a peer may write while memory is restored
  EXPECT_EQ(replay_mode(automatic, true, true), ReplayMode::one_pass);  // ... before and after its first collective
  EXPECT_EQ(replay_mode(automatic, false, true), ReplayMode::none);     // one process driving a collective
  EXPECT_EQ(replay_mode(ReplayChoice::kernel, true, true), ReplayMode::every_pass);  // --profile-replay kernel
  // --profile-replay one-pass: one pass a launch in any process, before and after a collective (nothing restored).
  EXPECT_EQ(replay_mode(ReplayChoice::one_pass, false, false), ReplayMode::one_pass);
  EXPECT_EQ(replay_mode(ReplayChoice::one_pass, false, true), ReplayMode::one_pass);
}

TEST(LaunchPolicy, ARankKeepsItsSessionsOnlyWithoutSourceLines) {
  EXPECT_TRUE(keep_sessions_by_default(ReplayMode::every_pass, true));  // a single process, lines or not
  EXPECT_TRUE(keep_sessions_by_default(ReplayMode::every_pass, false));
  EXPECT_FALSE(keep_sessions_by_default(ReplayMode::one_pass, true));  // a rank with lines: a session a launch
  EXPECT_TRUE(keep_sessions_by_default(ReplayMode::one_pass, false));  // --no-source-lines: kept
}

TEST(LaunchPolicy, PastHalfTheTimeBudgetOnlyIdentitiesNotProfiledYetAre) {
  EXPECT_TRUE(time_budget_allows(0, 60000, true));
  EXPECT_TRUE(time_budget_allows(29'999'999'999ull, 60000, true));   // half of 60 s is left: any launch
  EXPECT_FALSE(time_budget_allows(30'000'000'000ull, 60000, true));  // past half: not an identity's later launch
  EXPECT_TRUE(time_budget_allows(30'000'000'000ull, 60000, false));  // ... but its first
  EXPECT_TRUE(time_budget_allows(59'999'999'999ull, 60000, false));
  EXPECT_FALSE(time_budget_allows(60'000'000'000ull, 60000, false));  // spent: none
  EXPECT_TRUE(time_budget_allows(1ull << 60, 0, true));               // no budget
}

TEST(LaunchPolicy, AnIdentityTheTimeBudgetsSecondHalfStoppedIsDoneWithRangesAndGetsItsSourceLines) {
  EXPECT_TRUE(range_profiling_over(true, 3, 0, 60000));                    // its share of launches
  EXPECT_FALSE(range_profiling_over(false, 1, 29'999'999'999ull, 60000));  // more to come
  EXPECT_TRUE(range_profiling_over(false, 1, 30'000'000'000ull, 60000));   // past half: no more of its launches
  EXPECT_FALSE(range_profiling_over(false, 0, 30'000'000'000ull, 60000));  // never profiled: its first comes
  EXPECT_FALSE(range_profiling_over(false, 2, 1ull << 60, 0));             // no budget: its share comes
}

TEST(InjectGuard, TheLibraryNeverProfilesACommunicationKernel) {
  inject::init_guard({"peer_exchange", "my_allreduce"}, 0);
  static const char gemm[] = "_Z4gemmPf";
  static const char nccl[] = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
  static const char mine[] = "_Z13peer_exchangePf";
  for (int twice = 0; twice < 2; ++twice) {  // the second time from the cache
    EXPECT_TRUE(inject::launch_may_be_profiled(true, true, gemm));
    EXPECT_FALSE(inject::launch_may_be_profiled(true, true, nccl));
    EXPECT_FALSE(inject::launch_may_be_profiled(true, true, mine));
    EXPECT_FALSE(inject::launch_may_be_profiled(false, true, gemm));  // a graph or cooperative launch
  }
  EXPECT_FALSE(inject::profiling_stopped());  // no watchdog (0): never stopped
}

// A profiled launch that outlives the bound: the G line names it and how long it had run, later launches are
// not profiled, and the launching thread goes on once its call returns.
TEST(InjectGuard, TheWatchdogGivesUpASlowLaunchAndProfilingStops) {
  inject::init_guard({}, 100);
  static const char gemm[] = "_Z5gemm2Pf";
  ASSERT_TRUE(inject::launch_may_be_profiled(true, true, gemm));
  const std::size_t before = lines().size();

  std::atomic<bool> returned{false};
  std::thread program([&] {  // the fake profiled launch: 2 s inside its launch call
    inject::guard_begin(4242, "_Z5gemm2Pf 8 1 1 128 1 1 3");
    EXPECT_TRUE(profiled_launch_in_progress());
    std::this_thread::sleep_for(std::chrono::milliseconds(2000));
    inject::guard_end();
    returned = true;
  });
  const auto give_up = Clock::now() + std::chrono::seconds(5);
  while (lines().size() == before && Clock::now() < give_up) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::vector<std::string> written = lines();
  ASSERT_EQ(written.size(), before + 1) << "no G line within 5 s";
  EXPECT_FALSE(returned.load()) << "the G line came only after the launch returned";
  const std::string& g = written.back();
  EXPECT_EQ(g.rfind("G 4242 ", 0), 0u) << g;
  EXPECT_NE(g.find(" _Z5gemm2Pf 8 1 1 128 1 1 3"), std::string::npos) << g;
  const unsigned long ms = std::stoul(g.substr(7));
  EXPECT_GE(ms, 100u);
  EXPECT_LT(ms, 2000u);
  EXPECT_TRUE(inject::profiling_stopped());
  EXPECT_FALSE(inject::launch_may_be_profiled(true, true, gemm)) << "a launch was profiled after the give-up";
  program.join();  // the program's thread went on
  EXPECT_TRUE(returned.load());
  EXPECT_FALSE(profiled_launch_in_progress());
  EXPECT_TRUE(inject::profiling_stopped());
  EXPECT_EQ(lines().size(), before + 1);  // one G line, once
}

TEST(ProfileWatchdog, ALaunchWithinTheBoundIsNotGivenUp) {
  std::atomic<int> calls{0};
  // A bound far above the launches' 50 ms, so that a loaded machine's scheduling cannot reach it.
  ProfileWatchdog dog(1000, [&](std::uint32_t, const std::string&, std::uint64_t) { ++calls; });
  for (std::uint32_t c = 1; c <= 30; ++c) {  // 30 launches of 50 ms: each alone under the bound, together over it
    dog.arm(c, "k");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(dog.disarm());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  EXPECT_EQ(calls.load(), 0);
  EXPECT_FALSE(dog.stopped());

  dog.arm(6, "k2 1 1 1 32 1 1 0");
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(calls.load(), 1);
  EXPECT_TRUE(dog.stopped());
  EXPECT_TRUE(dog.disarm()) << "the late launch must learn that it was given up (its values are discarded)";
  EXPECT_EQ(ProfileWatchdog::line(6, 201, "k2 1 1 1 32 1 1 0"), "G 6 201 k2 1 1 1 32 1 1 0");
}

TEST(ProfileWatchdog, ABoundOfZeroNeverGivesUp) {
  std::atomic<int> calls{0};
  ProfileWatchdog dog(0, [&](std::uint32_t, const std::string&, std::uint64_t) { ++calls; });
  dog.arm(1, "k");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(dog.disarm());
  EXPECT_EQ(calls.load(), 0);
}

// ---- the periodic flush against a profiled launch, with a fake CUPTI ----

CUpti_BuffersCallbackRequestFunc g_requested = nullptr;
CUpti_BuffersCallbackCompleteFunc g_completed = nullptr;
std::atomic<int> g_flush_calls{0};
std::atomic<bool> g_in_flush{false};
std::atomic<int> g_flush_ms{0};  // how long a flush stays inside "CUPTI"

CUptiResult CUPTIAPI fake_register(CUpti_BuffersCallbackRequestFunc requested,
                                   CUpti_BuffersCallbackCompleteFunc completed) {
  g_requested = requested;
  g_completed = completed;
  return CUPTI_SUCCESS;
}

// A flush that would block (as cuptiActivityFlushAll did while a replay hung) for g_flush_ms.
CUptiResult CUPTIAPI fake_flush_all(uint32_t) {
  ++g_flush_calls;
  g_in_flush = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(g_flush_ms.load()));
  g_in_flush = false;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI fake_next_record(uint8_t*, size_t, CUpti_Activity**) { return CUPTI_ERROR_MAX_LIMIT_REACHED; }

struct NoHandler : cupti::ActivityHandler {
  void on_buffer(const cupti::ActivityBuffer&, std::size_t) override {}
};

cupti::ActivityApi& fake_api() {
  cupti::ActivityFunctions f;
  f.register_callbacks = &fake_register;
  f.flush_all = &fake_flush_all;
  f.next_record = &fake_next_record;
  cupti::ActivityApi& api = cupti::ActivityApi::instance(f);
  static NoHandler* handler = new NoHandler;
  api.start(*handler, 64);
  return api;
}

TEST(FlushGuard, APeriodicFlushDuringAProfiledLaunchSkipsWithoutCallingCupti) {
  cupti::ActivityApi& api = fake_api();
  g_flush_ms = 10000;  // were CUPTI called, the test would wait 10 s
  const int calls = g_flush_calls.load();
  const std::uint64_t skipped = periodic_flushes_skipped();
  ASSERT_TRUE(begin_profiled_launch());
  const auto t0 = Clock::now();
  EXPECT_EQ(periodic_flush(api), PeriodicFlush::skipped);
  EXPECT_EQ(periodic_flush(api), PeriodicFlush::skipped);
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));  // not the 10 s of a flush inside "CUPTI"
  EXPECT_EQ(g_flush_calls.load(), calls);
  EXPECT_EQ(periodic_flushes_skipped(), skipped + 2);
  end_profiled_launch();

  g_flush_ms = 0;  // no launch profiled: the flush reaches CUPTI again
  EXPECT_EQ(periodic_flush(api), PeriodicFlush::flushed);
  EXPECT_EQ(g_flush_calls.load(), calls + 1);
}

TEST(FlushGuard, AProfiledLaunchWaitsForAFlushAlreadyInsideCupti) {
  cupti::ActivityApi& api = fake_api();
  g_flush_ms = 200;
  std::thread flusher([&api] { EXPECT_EQ(periodic_flush(api), PeriodicFlush::flushed); });
  const auto give_up = Clock::now() + std::chrono::seconds(5);
  while (!g_in_flush.load() && Clock::now() < give_up) std::this_thread::yield();
  ASSERT_TRUE(g_in_flush.load());
  EXPECT_TRUE(begin_profiled_launch());
  EXPECT_FALSE(g_in_flush.load()) << "profiling began while a flush was inside CUPTI";
  flusher.join();
  end_profiled_launch();

  // A flush that does not come back within the wait: the launch goes on (false), it does not hang.
  g_flush_ms = 1000;
  std::thread stuck([&api] { periodic_flush(api); });
  while (!g_in_flush.load()) std::this_thread::yield();
  const auto t0 = Clock::now();
  EXPECT_FALSE(begin_profiled_launch(50));
  EXPECT_LT(Clock::now() - t0, std::chrono::milliseconds(500));
  end_profiled_launch();
  stuck.join();
}

// ---- a profiled launch against the program's communication kernels in flight, with fake events ----

// Fake events: a stream's kernels "finish" when the test says so; an event is done when every launch recorded
// before it on its stream has finished.
struct FakeStreams {
  std::mutex mutex;
  std::map<void*, int> launched, finished;        // per stream
  std::map<void*, std::pair<void*, int>> events;  // event -> (stream, launches before it)
  int created = 0;
  CommunicationInFlight::Ops ops() {
    return {[this](void* stream, void* event) -> void* {
              std::lock_guard<std::mutex> lock(mutex);
              if (event == nullptr) event = reinterpret_cast<void*>(static_cast<std::uintptr_t>(0x1000 + ++created));
              events[event] = {stream, launched[stream]};
              return event;
            },
            [this](void* event) {
              std::lock_guard<std::mutex> lock(mutex);
              const auto& [stream, before] = events.at(event);
              return finished[stream] >= before ? 1 : 0;
            }};
  }
  void launch(void* stream) {
    std::lock_guard<std::mutex> lock(mutex);
    ++launched[stream];
  }
  void finish_all(void* stream) {
    std::lock_guard<std::mutex> lock(mutex);
    finished[stream] = launched[stream];
  }
};

TEST(CommunicationWait, AProfiledLaunchWaitsForCollectivesInFlightButOnlySoLong) {
  FakeStreams cuda;
  CommunicationInFlight in_flight(cuda.ops());
  void* ctx = reinterpret_cast<void*>(0x10);
  void* other_ctx = reinterpret_cast<void*>(0x20);
  void* nccl_stream = reinterpret_cast<void*>(0x1);
  void* side_stream = reinterpret_cast<void*>(0x2);
  EXPECT_TRUE(in_flight.wait_idle(ctx, 0));  // nothing launched

  // Two collectives on one stream (one event, re-recorded), one on another stream, one on another context.
  for (void* s : {nccl_stream, nccl_stream, side_stream}) {
    cuda.launch(s);
    in_flight.launched(ctx, s);
  }
  cuda.launch(nccl_stream);
  in_flight.launched(other_ctx, nccl_stream);
  EXPECT_EQ(cuda.created, 3);  // one event per (context, stream)

  // Still running: the wait ends at its bound, false (the launch is left unprofiled, the program goes on).
  auto t0 = Clock::now();
  EXPECT_FALSE(in_flight.wait_idle(ctx, 100));
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(100));
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));

  // They finish while it waits: true as soon as the last one does.
  std::thread peer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cuda.finish_all(side_stream);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cuda.finish_all(nccl_stream);
  });
  t0 = Clock::now();
  EXPECT_TRUE(in_flight.wait_idle(ctx, 5000));
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(150));
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  peer.join();
  // The other context's collective (also on "nccl_stream" there) counted for itself alone: finished with it.
  EXPECT_TRUE(in_flight.wait_idle(other_ctx, 0));

  // A new collective: busy again until it finishes.
  cuda.launch(nccl_stream);
  in_flight.launched(ctx, nccl_stream);
  EXPECT_FALSE(in_flight.wait_idle(ctx, 0));
  cuda.finish_all(nccl_stream);
  EXPECT_TRUE(in_flight.wait_idle(ctx, 0));
}

TEST(CommunicationWait, AnEventCudaRefusesOrCannotAnswerNeverStopsProfiling) {
  CommunicationInFlight refused({[](void*, void*) -> void* { return nullptr; }, [](void*) { return 0; }});
  refused.launched(reinterpret_cast<void*>(0x10), nullptr);
  EXPECT_TRUE(refused.wait_idle(reinterpret_cast<void*>(0x10), 0));
  static int dummy = 0;
  CommunicationInFlight broken({[](void*, void*) -> void* { return &dummy; }, [](void*) { return -1; }});
  broken.launched(reinterpret_cast<void*>(0x10), nullptr);
  EXPECT_TRUE(broken.wait_idle(reinterpret_cast<void*>(0x10), 0));
}

}  // namespace
}  // namespace gpuperf::record
