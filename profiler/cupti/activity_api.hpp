// The one wrapper of CUPTI's Activity API (cupti_activity.h), shared by the timing loop
// (activity_tracer.cpp, libcupti opened at run time) and `gpuperf record`'s injection library (inject.cpp,
// linked to libcupti). Every cuptiActivity* call in gpuperf goes through it, so the rules of their order live
// here:
//   1. register the buffer callbacks once per process, before any kind is enabled (CUPTI keeps one pair);
//   2. enable kinds (and, for external correlation, the API records of the launch calls alone);
//   3. flush while running as needed; at the end, finish(): one forced flush, exactly once, after which the
//      buffer callback is not handed to anything that may be gone.
// Buffers handed to CUPTI are allocated and freed here; the caller's completed-buffer handler only reads
// records. The wrapper owns nothing with a destructor that could run before a late flush (exit handlers,
// static destructors of the program and of CUPTI itself run in an order no library controls).
#pragma once

#include <cupti_activity.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

namespace gpuperf::cupti {

// The entry points, either from a libcupti opened at run time (dlsym) or linked (activity_api_linked.hpp).
struct ActivityFunctions {
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityEnableRuntimeApi) enable_runtime_api = nullptr;
  decltype(&cuptiActivityEnableDriverApi) enable_driver_api = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) dropped_records = nullptr;
  decltype(&cuptiActivityPushExternalCorrelationId) push_external = nullptr;
  decltype(&cuptiActivityPopExternalCorrelationId) pop_external = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
};

// One completed buffer's records, read in order with for_each (valid only during the handler's call).
class ActivityBuffer {
 public:
  ActivityBuffer(decltype(&cuptiActivityGetNextRecord) next, std::uint8_t* buffer, std::size_t valid)
      : next_(next), buffer_(buffer), valid_(valid) {}
  template <typename F>
  void for_each(F&& f) const {
    CUpti_Activity* record = nullptr;
    while (valid_ > 0 && next_(buffer_, valid_, &record) == CUPTI_SUCCESS) f(*record);
  }

 private:
  decltype(&cuptiActivityGetNextRecord) next_;
  std::uint8_t* buffer_;
  std::size_t valid_;
};

// Called with each completed buffer, on whichever thread CUPTI completes it (its worker thread, or the one
// that flushes). `dropped` counts records CUPTI could not fit.
class ActivityHandler {
 public:
  virtual void on_buffer(const ActivityBuffer& records, std::size_t dropped) = 0;
  // After each buffer handed to CUPTI, on the thread that asked for it: how long allocating it took (ns,
  // monotonic clock), for a handler that accounts its own cost (the injection library's O lines).
  virtual void on_request(std::uint64_t /*ns*/) {}

 protected:
  ~ActivityHandler() = default;  // handlers outlive the process's tracing; never deleted through this
};

class ActivityApi {
 public:
  // The process's one instance, created on first use and never destroyed (see above). `functions` is used on
  // the first call only.
  static ActivityApi& instance(const ActivityFunctions& functions);

  // Rule 1: registers CUPTI's buffer callbacks, routing completed buffers to `handler`. Once per process;
  // a later call returns the first call's result.
  CUptiResult start(ActivityHandler& handler, std::size_t buffer_bytes);

  // Rule 2.
  template <typename Kinds>
  CUptiResult enable(const Kinds& kinds) {
    if (started_ != CUPTI_SUCCESS) return started_;  // rule 1 first: records would have nowhere to go
    for (CUpti_ActivityKind kind : kinds) {
      if (CUptiResult r = f_.enable(kind); r != CUPTI_SUCCESS) return r;
    }
    return CUPTI_SUCCESS;
  }
  template <typename Kinds>
  CUptiResult disable(const Kinds& kinds) {
    for (CUpti_ActivityKind kind : kinds) {
      if (CUptiResult r = f_.disable(kind); r != CUPTI_SUCCESS) return r;
    }
    return CUPTI_SUCCESS;
  }
  // Activity records for these runtime and driver API calls only (external correlation records come with
  // API records; tracing every call would cost the program on each one).
  template <typename Runtime, typename Driver>
  CUptiResult enable_api_records(const Runtime& runtime_cbids, const Driver& driver_cbids) {
    CUptiResult r = CUPTI_SUCCESS;
    for (CUpti_CallbackId cbid : runtime_cbids) {
      if (r == CUPTI_SUCCESS) r = f_.enable_runtime_api(cbid, 1);
    }
    for (CUpti_CallbackId cbid : driver_cbids) {
      if (r == CUPTI_SUCCESS) r = f_.enable_driver_api(cbid, 1);
    }
    return r;
  }

  // Every launch this thread makes until the matching pop carries `external_id` (CUSTOM0).
  CUptiResult push_external(std::uint64_t external_id);
  CUptiResult pop_external();

  // Rule 3: completed buffers and, forced, the ones still being filled. Nothing once finish() has begun: a
  // flush and finish() exclude each other, so no flush reaches CUPTI after the last one. A thread that may
  // run finish() from a signal handler must not take that signal while it flushes (it would wait for itself).
  CUptiResult flush(bool forced);
  // The last flush (forced), exactly once however often and from however many threads it is called; it
  // waits for a flush in flight on another thread, whose buffers are handed over first. Buffers completed
  // after it are freed unread. Returns true for the call that flushed.
  bool finish();

  std::string error_text(CUptiResult r) const;

 private:
  explicit ActivityApi(const ActivityFunctions& functions) : f_(functions) {}
  static void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records);
  static void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream_id, std::uint8_t* buffer,
                                        std::size_t size, std::size_t valid);

  ActivityFunctions f_;
  ActivityHandler* handler_ = nullptr;
  std::size_t buffer_bytes_ = 0;
  CUptiResult started_ = CUPTI_ERROR_NOT_INITIALIZED;
  bool registered_ = false;
  std::mutex flush_mutex_;              // held by flush() and finish() around their CUPTI flush
  std::atomic<bool> finishing_{false};  // a finish() has begun
  std::atomic<bool> finished_{false};   // the last flush has returned
};

}  // namespace gpuperf::cupti
