#include "profiler/record/inject/inject_watchdog.hpp"

#include <pthread.h>
#include <signal.h>

#include <chrono>

#include "profiler/record/record_codec.hpp"

namespace gpuperf::record {

ProfileWatchdog::ProfileWatchdog(std::uint64_t bound_ms, GiveUp give_up)
    : bound_ms_(bound_ms), give_up_(std::move(give_up)) {
  if (bound_ms_ == 0) return;
  // The thread takes no asynchronous signal: a program's handler must run on the program's threads.
  sigset_t all{};
  sigset_t before{};
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  thread_ = std::thread([this] { run(); });
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

ProfileWatchdog::~ProfileWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProfileWatchdog::arm(std::uint32_t correlation, const std::string& identity) {
  if (bound_ms_ == 0) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = true;
    given_up_ = false;
    ++generation_;
    correlation_ = correlation;
    identity_ = identity;
    began_ = std::chrono::steady_clock::now();
  }
  changed_.notify_all();
}

bool ProfileWatchdog::disarm() {
  if (bound_ms_ == 0) return false;
  bool given_up = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = false;
    given_up = given_up_;
    given_up_ = false;
  }
  changed_.notify_all();
  return given_up;
}

std::string ProfileWatchdog::line(std::uint32_t correlation, std::uint64_t ms, const std::string& identity) {
  return encode(GivenUp{correlation, ms, identity});
}

void ProfileWatchdog::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return quit_ || armed_; });
    if (quit_) return;
    const std::uint64_t generation = generation_;
    const auto deadline = began_ + std::chrono::milliseconds(bound_ms_);
    const bool over = !changed_.wait_until(
        lock, deadline, [this, generation] { return quit_ || !armed_ || generation_ != generation; });
    if (quit_) return;
    if (!over) continue;  // it ended in time (or another launch began)
    given_up_ = true;
    stopped_.store(true, std::memory_order_release);
    const std::uint32_t correlation = correlation_;
    const std::string identity = identity_;
    const auto ms = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began_).count());
    lock.unlock();
    if (give_up_) give_up_(correlation, identity, ms);
    lock.lock();
    // Once given up, nothing is profiled again: wait for the launch to end (or forever), then only for quit.
    changed_.wait(lock, [this, generation] { return quit_ || !armed_ || generation_ != generation; });
    if (quit_) return;
  }
}

}  // namespace gpuperf::record
