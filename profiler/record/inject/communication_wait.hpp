// `record --metrics`: a profiled launch does not wait unboundedly for the program's communication kernels.
//
// Profiling a launch begins with a synchronize (the L2 flush), which waits for every kernel the process has in
// flight, an NCCL collective included; a collective waits for its peers. When every rank issues its
// collectives in one order that wait ends, but a rank that waits for this one on the host first (a gloo or
// TCPStore barrier, a socket) before launching its part would never come: the two processes would deadlock,
// where without profiling this host would have gone on (docs/record-ends.md). So the library remembers, per
// context and stream, an event recorded after each communication launch, and before profiling a launch it
// polls them (never blocking inside CUDA) for at most a bound (GPUPERF_RECORD_COMMUNICATION_WAIT_MS, 10 s by
// default): if one is still running then, that launch is not profiled (a V line says so) and the program
// goes on; a later launch of its identity may be profiled.
//
// Plain C++: CUDA's part (recording and querying an event) comes in as functions, so the logic is unit-tested
// with fakes (tests/record/test_inject_guard.cpp); inject_comm.cpp gives the real ones.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <utility>

namespace gpuperf::record {

class CommunicationInFlight {
 public:
  struct Ops {
    // Records `event` (created first when null) on `stream` of the current context; returns it, or null when
    // CUDA refused (then nothing is remembered for that launch).
    std::function<void*(void* stream, void* event)> record;
    // 1: everything before the event has finished; 0: not yet; -1: an error (counted as finished: a broken
    // event must not stop profiling for good).
    std::function<int(void* event)> query;
  };

  explicit CommunicationInFlight(Ops ops) : ops_(std::move(ops)) {}

  // After a communication launch on `stream` of `context` (its launch call has returned). One event per
  // stream, re-recorded: in stream order, its completion implies every earlier launch's.
  void launched(void* context, void* stream);

  // Whether every communication launch of `context` so far has finished, polling for at most `bound_ms`
  // (0: one look).
  bool wait_idle(void* context, std::uint64_t bound_ms);

 private:
  bool idle_locked(void* context);

  Ops ops_;
  std::mutex mutex_;
  std::map<std::pair<void*, void*>, void*> events_;  // (context, stream) -> its last communication event
};

}  // namespace gpuperf::record
