#include "profiler/record/inject/inject_comm.hpp"

#include <cstdlib>

#include "profiler/record/inject/communication_wait.hpp"
#include "profiler/record/inject/inject_shared.hpp"

namespace gpuperf::record::inject {
namespace {

// 10 s: a collective whose peers are busy being profiled themselves may take seconds (each of their profiled
// launches holds them 0.1-1 s); one that has not finished after 10 s waits for something this process's
// synchronize would hold back.
constexpr std::uint64_t kDefaultWaitMs = 10000;

std::uint64_t g_wait_ms = kDefaultWaitMs;
CommunicationInFlight* g_in_flight = nullptr;  // never destroyed, like the rest of the library's state

void* record_event(void* stream, void* event) {
  CUevent e = static_cast<CUevent>(event);
  if (e == nullptr && cuEventCreate(&e, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) return nullptr;
  if (cuEventRecord(e, static_cast<CUstream>(stream)) == CUDA_SUCCESS) return e;
  if (event == nullptr) cuEventDestroy(e);
  return nullptr;  // the stream keeps its last event, if any
}

int query_event(void* event) {
  const CUresult r = cuEventQuery(static_cast<CUevent>(event));
  if (r == CUDA_SUCCESS) return 1;
  return r == CUDA_ERROR_NOT_READY ? 0 : -1;
}

}  // namespace

void init_communication_wait() {
  if (config().communication_wait_ms) g_wait_ms = *config().communication_wait_ms;
  g_in_flight = new CommunicationInFlight({record_event, query_event});
}

void communication_launched(CUcontext context, CUstream stream) {
  if (g_in_flight == nullptr) return;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (cuStreamIsCapturing(stream, &status) != CUDA_SUCCESS || status != CU_STREAM_CAPTURE_STATUS_NONE) return;
  g_in_flight->launched(context, stream);
}

bool communication_idle(CUcontext context) {
  return g_in_flight == nullptr || g_in_flight->wait_idle(context, g_wait_ms);
}

std::uint64_t communication_wait_ms() { return g_wait_ms; }

}  // namespace gpuperf::record::inject
