#include "profiler/record/inject/inject_guard.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "profiler/record/inject/flush_guard.hpp"
#include "profiler/record/inject/inject_shared.hpp"
#include "profiler/record/inject/inject_watchdog.hpp"
#include "profiler/record/launch_policy.hpp"

namespace gpuperf::record::inject {
namespace {

std::vector<std::string>* g_communication = nullptr;  // never destroyed, like the rest of the library's state
ProfileWatchdog* g_watchdog = nullptr;
thread_local const char* t_last_symbol = nullptr;  // the last kernel name classified on this thread
thread_local bool t_last_communication = false;
thread_local bool t_begun = false;

void on_give_up(std::uint32_t correlation, const std::string& identity, std::uint64_t ms) {
  write_line_and_flush(ProfileWatchdog::line(correlation, ms, identity));
  std::fprintf(stderr,
               "gpuperf: profiling of launch %u (%s) has not finished after %.1f s: given up; no further launch of "
               "this process is profiled (--profile-watchdog-ms)\n",
               correlation, identity.c_str(), static_cast<double>(ms) * 1e-3);
}

}  // namespace

void init_guard(const std::vector<std::string>& communication_kernels, std::uint64_t watchdog_ms) {
  g_communication = new std::vector<std::string>(communication_kernels);
  const std::uint64_t bound = watchdog_ms;
  g_watchdog = new ProfileWatchdog(bound, on_give_up);
}

bool launch_may_be_profiled(bool single_kernel, bool known, const char* symbol) {
  if (g_watchdog == nullptr) return false;
  if (symbol != nullptr && symbol == t_last_symbol) {  // classify_launch's answer for this name, kept
    return !t_last_communication && single_kernel && known && !profiling_stopped();
  }
  const LaunchClass c = classify_launch(single_kernel, known, symbol, *g_communication, profiling_stopped());
  t_last_symbol = symbol;
  t_last_communication = c == LaunchClass::communication;
  return c == LaunchClass::candidate;
}

bool communication_launch(const char* symbol) {
  if (g_communication == nullptr || symbol == nullptr) return false;
  if (symbol == t_last_symbol) return t_last_communication;
  t_last_symbol = symbol;
  t_last_communication = classify_launch(true, true, symbol, *g_communication, false) == LaunchClass::communication;
  return t_last_communication;
}

bool profiling_stopped() { return g_watchdog != nullptr && g_watchdog->stopped(); }

void guard_begin(std::uint32_t correlation, const std::string& identity) {
  begin_profiled_launch();
  g_watchdog->arm(correlation, identity);
  t_begun = true;
}

void guard_end() {
  if (!t_begun) return;
  t_begun = false;
  g_watchdog->disarm();  // a given-up launch's M and W lines are dropped by the reader (record_file.hpp)
  end_profiled_launch();
}

}  // namespace gpuperf::record::inject
