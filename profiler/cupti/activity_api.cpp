#include "profiler/cupti/activity_api.hpp"

#include <cstdlib>
#include <new>

#include "profiler/cupti/monotonic_clock.hpp"

namespace gpuperf::cupti {
namespace {

ActivityApi* g_instance = nullptr;  // set once by instance(), read by CUPTI's buffer callbacks

}  // namespace

ActivityApi& ActivityApi::instance(const ActivityFunctions& functions) {
  // Never destroyed: a flush from an exit handler or CUPTI's own teardown may come after static destructors.
  static ActivityApi* api = g_instance = new ActivityApi(functions);
  return *api;
}

CUptiResult ActivityApi::start(ActivityHandler& handler, std::size_t buffer_bytes) {
  if (registered_) return started_;
  registered_ = true;
  handler_ = &handler;
  buffer_bytes_ = buffer_bytes;
  started_ = f_.register_callbacks(&ActivityApi::buffer_requested, &ActivityApi::buffer_completed);
  return started_;
}

CUptiResult ActivityApi::push_external(std::uint64_t external_id) {
  return f_.push_external(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, external_id);
}

CUptiResult ActivityApi::pop_external() {
  std::uint64_t last = 0;
  return f_.pop_external(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

CUptiResult ActivityApi::flush(bool forced) {
  // The check and the call under one lock: a flush that saw finish() not begun would otherwise call CUPTI
  // after the last flush, during the rest of the exit sequence, and hand over buffers that finish() has
  // already declared unread.
  std::lock_guard<std::mutex> lock(flush_mutex_);
  if (started_ != CUPTI_SUCCESS || finishing_.load()) return CUPTI_SUCCESS;
  return f_.flush_all(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

bool ActivityApi::finish() {
  bool expected = false;
  // Claimed before the lock, so a second finish() (a fatal signal's handler during the exit handler's) returns
  // at once instead of waiting for the first.
  if (!finishing_.compare_exchange_strong(expected, true)) return false;
  // Waits for a flush in flight (the injection library's periodic one): its buffers reach the handler before
  // the last flush, so before the caller closes its file. Later flush() calls see finishing_ and do nothing.
  std::lock_guard<std::mutex> lock(flush_mutex_);
  if (started_ == CUPTI_SUCCESS) f_.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  finished_.store(true);
  return true;
}

std::string ActivityApi::error_text(CUptiResult r) const {
  const char* s = nullptr;
  if (f_.result_string != nullptr && f_.result_string(r, &s) == CUPTI_SUCCESS && s != nullptr) return s;
  return "CUPTI error " + std::to_string(static_cast<int>(r));
}

void CUPTIAPI ActivityApi::buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  const std::uint64_t begin = monotonic_ns();  // one clock pair per buffer (about 4,000 launches)
  const std::size_t bytes = g_instance->buffer_bytes_;
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, bytes));  // CUPTI needs 8-byte alignment
  *size = *buffer != nullptr ? bytes : 0;
  *max_records = 0;  // as many as fit
  if (g_instance->handler_ != nullptr) g_instance->handler_->on_request(monotonic_ns() - begin);
}

void CUPTIAPI ActivityApi::buffer_completed(CUcontext context, std::uint32_t stream_id, std::uint8_t* buffer,
                                            std::size_t, std::size_t valid) {
  ActivityApi& api = *g_instance;
  if (!api.finished_.load()) {
    std::size_t dropped = 0;
    if (api.f_.dropped_records(context, stream_id, &dropped) != CUPTI_SUCCESS) dropped = 0;
    api.handler_->on_buffer(ActivityBuffer(api.f_.next_record, buffer, valid), dropped);
  }
  std::free(buffer);
}

}  // namespace gpuperf::cupti
