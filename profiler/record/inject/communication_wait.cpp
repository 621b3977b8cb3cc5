#include "profiler/record/inject/communication_wait.hpp"

#include <chrono>
#include <thread>

namespace gpuperf::record {

void CommunicationInFlight::launched(void* context, void* stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  void*& event = events_[{context, stream}];
  if (void* recorded = ops_.record(stream, event); recorded != nullptr) event = recorded;
}

bool CommunicationInFlight::idle_locked(void* context) {
  for (const auto& [key, event] : events_) {  // a few streams per context
    if (key.first == context && event != nullptr && ops_.query(event) == 0) return false;
  }
  return true;
}

bool CommunicationInFlight::wait_idle(void* context, std::uint64_t bound_ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(bound_ms);
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (idle_locked(context)) return true;
    }
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // a collective takes microseconds to seconds
  }
}

}  // namespace gpuperf::record
