// `record --metrics`: the watchdog of profiled launches (inject_metrics.cpp). A profiled launch holds the
// program inside its launch call (the L2 flush's synchronize, the session's begin, the kernel replay's
// passes); one that has not finished within the bound (GPUPERF_RECORD_PROFILE_WATCHDOG_MS, `record
// --profile-watchdog-ms`, 30 s by default, 0: off) is given up: the watchdog's own thread calls `give_up`
// once (the library writes a G line and flushes its record file), and from then on stopped() is true, so
// no further launch of the process is profiled.
//
// What "given up" can and cannot do: a host thread cannot cancel a replay that spins on the GPU, nor a
// synchronize that waits for a kernel that waits for a peer. So the launch goes on where it is: if it ever
// returns, disarm() says it was given up, its values are discarded (no M or W line) and the program goes on
// unprofiled; if it never returns, the program stays where it would have without the watchdog, but the
// record file says which launch (identity, correlation) held it and for how long, the library's periodic
// flush keeps going (it skips CUPTI while a profiled launch is in progress, flush_guard.hpp), and a SIGTERM
// or SIGKILL leaves a run that `record` stores with the reason. docs/record-ends.md has the whole story.
//
// Plain C++ (a thread, a mutex, a condition variable); unit-tested with a fake slow launch
// (tests/record/test_inject_policy.cpp).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace gpuperf::record {

class ProfileWatchdog {
 public:
  // Called once, on the watchdog's thread, when a launch is given up: its correlation id, identity (as the
  // library keys it) and the milliseconds it had run. It must not wait for the profiling thread's locks.
  using GiveUp = std::function<void(std::uint32_t correlation, const std::string& identity, std::uint64_t ms)>;

  // bound_ms 0: never gives up (no thread is started). The thread blocks every asynchronous signal.
  ProfileWatchdog(std::uint64_t bound_ms, GiveUp give_up);
  ~ProfileWatchdog();  // the injection library never destroys its watchdog; tests do
  ProfileWatchdog(const ProfileWatchdog&) = delete;
  ProfileWatchdog& operator=(const ProfileWatchdog&) = delete;

  // A profiled launch began (the profiling thread, before its L2 flush).
  void arm(std::uint32_t correlation, const std::string& identity);
  // It ended: true when it had been given up (its values must be discarded).
  bool disarm();
  // Whether a launch was given up in this process: no launch is profiled any more.
  bool stopped() const { return stopped_.load(std::memory_order_acquire); }
  std::uint64_t bound_ms() const { return bound_ms_; }

  // The record file's line: "G <correlation> <ms> <identity>".
  static std::string line(std::uint32_t correlation, std::uint64_t ms, const std::string& identity);

 private:
  void run();

  const std::uint64_t bound_ms_;
  const GiveUp give_up_;
  std::mutex mutex_;  // the fields below; never held while give_up_ runs
  std::condition_variable changed_;
  bool armed_ = false;
  bool given_up_ = false;  // the armed launch was given up
  bool quit_ = false;
  std::uint64_t generation_ = 0;  // arms so far: a disarm and re-arm during the wait is a new launch
  std::uint32_t correlation_ = 0;
  std::string identity_;
  std::chrono::steady_clock::time_point began_;
  std::atomic<bool> stopped_{false};
  std::thread thread_;
};

}  // namespace gpuperf::record
