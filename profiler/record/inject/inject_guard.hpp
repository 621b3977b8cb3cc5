// `record --metrics`: what keeps a profiled program from hanging (inject_metrics.cpp calls these hooks):
// communication kernels are never profiled (launch_policy.hpp), a profiled launch is watched
// (inject_watchdog.hpp), and the periodic flush skips CUPTI while one is in progress (flush_guard.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpuperf::record::inject {

// Takes the user's communication-kernel substrings (--communication-kernel) and the watchdog's bound in ms
// (--profile-watchdog-ms, default 30000: a profiled launch takes 0.1-1 s, docs/record-ends.md, so thirty times
// the worst seen is a hang; 0: no watchdog) and starts the watchdog. Once, from init_metrics.
void init_guard(const std::vector<std::string>& communication_kernels, std::uint64_t watchdog_ms);

// Whether a launch may be profiled at all: a single-kernel launch whose shape is known, of a kernel that is
// not communication, while profiling has not been given up. Cached per kernel name pointer (CUPTI hands the
// same one for every launch of a function).
bool launch_may_be_profiled(bool single_kernel, bool known, const char* symbol);

// Whether the kernel is a communication kernel (cached like launch_may_be_profiled).
bool communication_launch(const char* symbol);

// Profiling was given up in this process (a launch outlived the watchdog's bound).
bool profiling_stopped();

// A profiled launch begins (the gate held exclusively, before its L2 flush) and ends (after its session
// ended): the watchdog is armed and the periodic flush skips CUPTI in between.
void guard_begin(std::uint32_t correlation, const std::string& identity);
void guard_end();

}  // namespace gpuperf::record::inject
