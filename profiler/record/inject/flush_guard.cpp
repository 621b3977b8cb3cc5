#include "profiler/record/inject/flush_guard.hpp"

#include <atomic>
#include <chrono>
#include <thread>

namespace gpuperf::record {
namespace {

std::atomic<int> g_profiling{0};  // profiled launches in progress (one at a time: the launch gate)
std::atomic<bool> g_flushing{false};
std::atomic<std::uint64_t> g_skipped{0};

}  // namespace

bool begin_profiled_launch(unsigned wait_ms) {
  g_profiling.fetch_add(1);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  while (g_flushing.load()) {  // a flush that saw no profiling: let it leave CUPTI first (milliseconds)
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

void end_profiled_launch() { g_profiling.fetch_sub(1); }

bool profiled_launch_in_progress() { return g_profiling.load() > 0; }

PeriodicFlush periodic_flush(cupti::ActivityApi& api) {
  g_flushing.store(true);
  if (g_profiling.load() > 0) {
    g_flushing.store(false);
    g_skipped.fetch_add(1, std::memory_order_relaxed);
    return PeriodicFlush::skipped;
  }
  const bool ok = api.flush(false) == CUPTI_SUCCESS;
  g_flushing.store(false);
  return ok ? PeriodicFlush::flushed : PeriodicFlush::refused;
}

std::uint64_t periodic_flushes_skipped() { return g_skipped.load(std::memory_order_relaxed); }

}  // namespace gpuperf::record
