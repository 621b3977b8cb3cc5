// `record --metrics`: the range profiler's session kept enabled from one profiled launch to the next, and the
// rules that end it. Plain C++ over the back-end seam (profiler/cupti/range_backend.hpp), tested with a fake.
//
// Why: beginning a session (cuptiRangeProfilerEnable, counter data, SetConfig) took 150 ms of a profiled
// launch's 0.35 s on an H100 and ending it 11 ms; restarting an enabled one (a fresh counter-data image and
// SetConfig) 0.2 ms (docs/record-ends.md). Two ways of keeping it failed on real programs before, and the rules
// below are what those failures asked for:
//   - kept enabled while other kernels ran, it crashed JAX inside CUPTI (a kernel launched while the profiler
//     was enabled with no range started): so any launch that is not profiled ends the kept session first, in
//     its API call's entry callback, before the kernel is launched;
//   - ended by the first launch captured into a CUDA graph, it broke the capture (disabling the profiler is
//     not allowed inside one): so a capture's beginning ends it (cuStreamBeginCapture and its variants, entry
//     callback), and a launch into a stream being captured is never profiled and ends nothing;
//   - a context's destruction and the process's exit end it too;
//   - restarted with another configuration (metric group), every value of the new one read NaN: so only a
//     launch of the kept session's own group restarts it, and another group begins a session anew.
// The caller serialises every call (inject_metrics.cpp holds its state mutex, and the launch gate keeps a
// profiled launch alone on the GPU from its entry to its exit).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "profiler/cupti/range_backend.hpp"

namespace gpuperf::record::inject {

// Why a kept session ended (counted, for the trace and the tests).
enum class SessionEnd {
  other_launch,
  capture_begin,
  context_destroy,
  process_exit,
  another_context,
  not_kept,
  another_configuration,  // the next profiled launch collects another metric group
  source_lines,           // a launch instrumented for source lines (inject_lines.hpp) is next
  kEnds
};
const char* to_string(SessionEnd why);

// What a launch's entry callback does about the profiler.
enum class LaunchAction {
  profile,  // open a session (restart the kept one, or begin one) and profile the launch
  pass,     // launch it unprofiled (a kept session was ended first)
};

class KeptSession {
 public:
  // `keep` false: every session ends right after its launch, as before (GPUPERF_RECORD_PROFILE_KEEP=0).
  explicit KeptSession(bool keep = true) : keep_(keep) {}
  void set_keep(bool keep) { keep_ = keep; }  // before the first session

  // A launch's entry. `wanted`: the launch is a single kernel whose identity still has launches to profile
  // within the budgets; `captured`: it goes into a stream being captured into a graph (no kernel runs now, and
  // the profiler must not be enabled or disabled inside the capture). Ends the kept session before a launch
  // that runs unprofiled (its failure, if any, in `error`); leaves it alone for a captured one.
  LaunchAction on_launch(bool wanted, bool captured, std::string* error = nullptr);

  // Opens the session of a profiled launch on `context`'s back end with `configuration`: restarts the kept one
  // when it is this context's and has this configuration, else ends any kept one and begins a session. True
  // when it restarted. Throws what the back end throws (the session is then not kept).
  bool open(const void* context, cupti::RangeProfilerBackend& backend, std::size_t configuration);

  // The profiled launch's passes were decoded and evaluated: keeps its session enabled for the next profiled
  // launch, or (keeping off) ends it. Throws what end_session throws.
  void done();

  // Ends the kept session, if any (a capture begins, a context is destroyed, the process exits). Never throws:
  // returns the back end's error, or "" (the session is gone either way).
  std::string end(SessionEnd why);

  // Whether a session is kept: read without the caller's lock on the launch path (a launch that finds none
  // need not take it), written under it.
  bool kept() const { return kept_.load(std::memory_order_acquire); }
  // The configuration of the session kept on `context`, if one is (under the caller's lock): a launch that
  // collects it restarts the session instead of beginning one (pass_groups.hpp, next_group).
  std::optional<std::size_t> kept_configuration(const void* context) const {
    if (!kept() || context_ != context) return std::nullopt;
    return configuration_;
  }
  // Of a forgotten back end (its context is being torn down): drops it without calling it.
  void forget(const cupti::RangeProfilerBackend* backend);

  std::uint64_t restarts() const { return restarts_; }
  std::uint64_t begins() const { return begins_; }
  std::uint64_t ends(SessionEnd why) const { return ends_[static_cast<int>(why)]; }

 private:
  bool keep_;
  std::atomic<bool> kept_{false};
  const void* context_ = nullptr;  // of the open or kept session
  cupti::RangeProfilerBackend* backend_ = nullptr;
  std::size_t configuration_ = 0;  // of the open or kept session
  std::uint64_t restarts_ = 0, begins_ = 0;
  std::uint64_t ends_[static_cast<int>(SessionEnd::kEnds)] = {};
};

}  // namespace gpuperf::record::inject
