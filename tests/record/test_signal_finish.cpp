// FinishHandoff (profiler/record/inject/signal_finish.hpp): a fatal signal's last flush runs on the serving thread,
// and the handler's wait is bounded, so a signal that interrupts the thread holding the lock the flush needs
// no longer hangs the program (it did when the handler flushed itself). Real signals, real threads, no GPU.
#include "profiler/record/inject/signal_finish.hpp"

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <mutex>
#include <thread>

namespace {

using gpuperf::record::FinishHandoff;
using Clock = std::chrono::steady_clock;

FinishHandoff* g_handoff = nullptr;  // the one the SIGUSR1 handler asks
int g_timeout_ms = 0;
std::atomic<int> g_answered{-1};  // what the handler's request_and_wait returned

void on_usr1(int) { g_answered = g_handoff->request_and_wait(g_timeout_ms) ? 1 : 0; }

// Starts the serving thread as inject.cpp does: detached, every signal blocked.
void serve_in_thread(FinishHandoff& h, unsigned period_ms, std::function<bool()> on_period,
                     std::function<void()> on_finish) {
  sigset_t all{};
  sigset_t before{};
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  std::thread([&h, period_ms, on_period, on_finish] { h.serve(period_ms, on_period, on_finish); }).detach();
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

TEST(FinishHandoff, TheLastFlushRunsOnTheServingThreadAndTheHandlerWaitsForIt) {
  static FinishHandoff h;  // the detached thread serves it until the process ends
  ASSERT_TRUE(h.open());
  static std::atomic<int> finishes{0};
  static std::thread::id finished_on;
  serve_in_thread(
      h, 0, [] { return true; },
      [] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a flush takes a while
        finished_on = std::this_thread::get_id();
        ++finishes;
      });
  g_handoff = &h;
  g_timeout_ms = 5000;
  g_answered = -1;
  std::signal(SIGUSR1, on_usr1);
  std::raise(SIGUSR1);  // the handler runs on this thread, before raise returns
  EXPECT_EQ(g_answered.load(), 1);
  EXPECT_EQ(finishes.load(), 1);  // done before the handler returned
  EXPECT_NE(finished_on, std::this_thread::get_id());
}

TEST(FinishHandoff, ASignalOnTheThreadHoldingTheFlushsLockDoesNotHang) {
  static FinishHandoff h;
  ASSERT_TRUE(h.open());
  static std::mutex state;  // the library's state lock: the record writer takes it during the last flush
  static std::atomic<bool> flushed{false};
  serve_in_thread(
      h, 0, [] { return true; },
      [] {
        std::lock_guard<std::mutex> lock(state);
        flushed = true;
      });
  g_handoff = &h;
  g_timeout_ms = 300;
  g_answered = -1;
  std::signal(SIGUSR1, on_usr1);
  const auto t0 = Clock::now();
  {
    std::lock_guard<std::mutex> lock(state);  // interrupted while writing a record
    std::raise(SIGUSR1);
    // Flushing in the handler would now wait for this thread's own lock, for ever.
    EXPECT_EQ(g_answered.load(), 0);
    EXPECT_FALSE(flushed.load());
  }
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  EXPECT_GE(waited, 250);
  EXPECT_LT(waited, 3000);
  for (int i = 0; i < 200 && !flushed.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(flushed.load());  // the flush went on once the lock was free
}

TEST(FinishHandoff, FlushesEveryPeriodUntilAFlushFailsAndStillServesRequests) {
  static FinishHandoff h;
  ASSERT_TRUE(h.open());
  static std::atomic<int> periods{0};
  static std::atomic<int> finishes{0};
  serve_in_thread(
      h, 20, [] { return ++periods < 3; }, [] { ++finishes; });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(periods.load(), 3);  // the third returned false: no more
  g_handoff = &h;
  g_timeout_ms = 5000;
  g_answered = -1;
  std::signal(SIGUSR1, on_usr1);
  std::raise(SIGUSR1);
  EXPECT_EQ(g_answered.load(), 1);
  EXPECT_EQ(finishes.load(), 1);
}

}  // namespace
