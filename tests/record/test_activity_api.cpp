// ActivityApi's flush and finish() against a fake CUPTI (unit, no GPU): the injection library's periodic
// flush thread and the exit handler's last flush (profiler/record/inject/inject.cpp). Its own executable: the
// ActivityApi is one per process, made with the first functions it is given.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <thread>

#include "profiler/cupti/activity_api.hpp"

namespace {

using gpuperf::cupti::ActivityApi;

CUpti_BuffersCallbackRequestFunc g_requested = nullptr;
CUpti_BuffersCallbackCompleteFunc g_completed = nullptr;
std::atomic<bool> g_periodic_in_flight{false};
std::atomic<bool> g_forced_overlapped{false};
std::atomic<int> g_forced_calls{0};
std::atomic<int> g_periodic_calls{0};

CUptiResult CUPTIAPI fake_register(CUpti_BuffersCallbackRequestFunc requested,
                                   CUpti_BuffersCallbackCompleteFunc completed) {
  g_requested = requested;
  g_completed = completed;
  return CUPTI_SUCCESS;
}

// The periodic (not forced) flush takes a while, then completes one buffer of records; the forced one
// completes nothing (the periodic flush took the only buffer) and notes whether a periodic one was in flight.
CUptiResult CUPTIAPI fake_flush_all(uint32_t flag) {
  if (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) {
    ++g_forced_calls;
    if (g_periodic_in_flight.load()) g_forced_overlapped = true;
    return CUPTI_SUCCESS;
  }
  ++g_periodic_calls;
  g_periodic_in_flight = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::uint8_t* buffer = nullptr;
  std::size_t size = 0;
  std::size_t max_records = 0;
  g_requested(&buffer, &size, &max_records);
  g_completed(nullptr, 0, buffer, size, 8);
  g_periodic_in_flight = false;
  return CUPTI_SUCCESS;
}

// One record in any non-empty buffer.
CUptiResult CUPTIAPI fake_next_record(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  if (*record != nullptr || valid == 0) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(buffer);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI fake_dropped(CUcontext, uint32_t, size_t* dropped) {
  *dropped = 0;
  return CUPTI_SUCCESS;
}

struct CountingHandler : gpuperf::cupti::ActivityHandler {
  std::atomic<int> buffers{0};
  std::atomic<int> records{0};
  void on_buffer(const gpuperf::cupti::ActivityBuffer& b, std::size_t) override {
    ++buffers;
    b.for_each([this](const CUpti_Activity&) { ++records; });
  }
};

}  // namespace

// The exit race: the periodic flush is inside cuptiActivityFlushAll when the exit handler's finish() runs.
// finish() must wait for it, so that its buffer reaches the handler before finish() returns (the injection
// library then writes Z and closes its file), and no flush may reach CUPTI once finish() has begun. Before
// the fix, finish() flushed at once, declared later buffers unread, and the periodic flush's buffer (its
// records) was freed unwritten after finish() returned.
TEST(ActivityApiExit, FinishWaitsForAFlushInFlightAndNoFlushFollowsIt) {
  gpuperf::cupti::ActivityFunctions f;
  f.register_callbacks = &fake_register;
  f.flush_all = &fake_flush_all;
  f.next_record = &fake_next_record;
  f.dropped_records = &fake_dropped;
  ActivityApi& api = ActivityApi::instance(f);
  static CountingHandler* handler = new CountingHandler;  // outlives the api's callbacks
  ASSERT_EQ(api.start(*handler, 64), CUPTI_SUCCESS);

  std::thread periodic([&api] { api.flush(false); });
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!g_periodic_in_flight.load() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
  ASSERT_TRUE(g_periodic_in_flight.load());

  EXPECT_TRUE(api.finish());
  EXPECT_EQ(handler->buffers.load(), 1) << "the buffer of the flush in flight was not handed over before finish()";
  EXPECT_EQ(handler->records.load(), 1);
  EXPECT_FALSE(g_forced_overlapped.load()) << "the last flush ran while a periodic flush was in flight";
  EXPECT_EQ(g_forced_calls.load(), 1);
  periodic.join();
  EXPECT_EQ(handler->buffers.load(), 1);

  // After finish(): a flush does not reach CUPTI, and a second finish() does nothing.
  EXPECT_EQ(api.flush(false), CUPTI_SUCCESS);
  EXPECT_EQ(g_periodic_calls.load(), 1);
  EXPECT_FALSE(api.finish());
  EXPECT_EQ(g_forced_calls.load(), 1);
}
