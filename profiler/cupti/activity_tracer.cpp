#include "profiler/cupti/activity_tracer.hpp"

#include <cupti_activity.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "core/errors.hpp"

#ifndef GPUPERF_CUPTI_LIBRARY
#define GPUPERF_CUPTI_LIBRARY ""
#endif

namespace gpuperf::cupti {
namespace {

// CUDA 13.0's kernel record; CUPTI fills the version matching the header the client was built with.
using KernelActivity = CUpti_ActivityKernel10;
constexpr std::size_t kBufferBytes = 8u << 20;  // per CUPTI buffer; a sample batch needs a few KB

// The Activity API entry points we use, resolved from libcupti at run time.
struct Api {
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) dropped_records = nullptr;
  decltype(&cuptiActivityPushExternalCorrelationId) push_external = nullptr;
  decltype(&cuptiActivityPopExternalCorrelationId) pop_external = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
};

Api& api() {
  static Api a;
  return a;
}

std::string result_text(CUptiResult r) {
  const char* s = nullptr;
  if (api().result_string != nullptr && api().result_string(r, &s) == CUPTI_SUCCESS && s != nullptr) return s;
  return "CUPTI error " + std::to_string(static_cast<int>(r));
}

void check(CUptiResult r, const char* call) {
  if (r != CUPTI_SUCCESS) {
    throw EnvironmentError(std::string("CUPTI Activity API: ") + call + " failed: " + result_text(r));
  }
}

template <typename F>
void resolve(void* lib, F& fn, const char* name, std::string& missing) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (fn == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
}

void load_api() {
  std::vector<std::string> candidates{"libcupti.so.13", "libcupti.so"};
  if (const char* env = std::getenv("GPUPERF_CUPTI_LIBRARY"); env != nullptr && *env != '\0') {
    candidates.insert(candidates.begin(), env);
  }
  if (std::string(GPUPERF_CUPTI_LIBRARY).size() > 0) candidates.emplace_back(GPUPERF_CUPTI_LIBRARY);
  void* lib = nullptr;
  std::string tried;
  for (const auto& c : candidates) {
    lib = dlopen(c.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (lib != nullptr) break;
    const char* why = dlerror();
    tried += "\n  " + c + ": " + (why != nullptr ? why : "not found");
  }
  if (lib == nullptr) {
    throw EnvironmentError(
        "timing needs CUPTI (libcupti.so from the CUDA toolkit), which could not be loaded:" + tried +
        "\nInstall the toolkit's CUPTI component, add its lib folder to LD_LIBRARY_PATH, or set "
        "GPUPERF_CUPTI_LIBRARY to the file.");
  }
  Api& a = api();
  std::string missing;
  resolve(lib, a.enable, "cuptiActivityEnable", missing);
  resolve(lib, a.disable, "cuptiActivityDisable", missing);
  resolve(lib, a.register_callbacks, "cuptiActivityRegisterCallbacks", missing);
  resolve(lib, a.flush_all, "cuptiActivityFlushAll", missing);
  resolve(lib, a.next_record, "cuptiActivityGetNextRecord", missing);
  resolve(lib, a.dropped_records, "cuptiActivityGetNumDroppedRecords", missing);
  resolve(lib, a.push_external, "cuptiActivityPushExternalCorrelationId", missing);
  resolve(lib, a.pop_external, "cuptiActivityPopExternalCorrelationId", missing);
  resolve(lib, a.result_string, "cuptiGetResultString", missing);
  if (!missing.empty()) throw EnvironmentError("libcupti lacks the Activity API functions " + missing);
}

// Completed records, filled by CUPTI's buffer callback (possibly on a CUPTI thread).
std::mutex sink_mutex;
ActivityBatch sink;
bool sink_accepting = false;

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t /*size*/,
                                  size_t valid_size) {
  ActivityBatch got;
  CUpti_Activity* record = nullptr;
  while (valid_size > 0 && api().next_record(buffer, valid_size, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* k = reinterpret_cast<const KernelActivity*>(record);
      got.kernels.push_back(KernelRecord{k->correlationId, k->start, k->end, k->streamId,
                                         k->name != nullptr ? k->name : ""});
    } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
      const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
        got.correlations.push_back(ExternalCorrelation{e->externalId, e->correlationId});
      }
    }
  }
  size_t dropped = 0;
  if (api().dropped_records(context, stream_id, &dropped) == CUPTI_SUCCESS) got.dropped = dropped;
  std::free(buffer);
  std::lock_guard<std::mutex> lock(sink_mutex);
  if (!sink_accepting) return;
  sink.kernels.insert(sink.kernels.end(), got.kernels.begin(), got.kernels.end());
  sink.correlations.insert(sink.correlations.end(), got.correlations.begin(), got.correlations.end());
  sink.dropped += got.dropped;
}

const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME,
                                     CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

}  // namespace

CuptiActivitySource::CuptiActivitySource() {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    try {
      load_api();
      check(api().register_callbacks(on_buffer_requested, on_buffer_completed), "cuptiActivityRegisterCallbacks");
    } catch (const Error& e) {
      failure = e.what();
    }
  });
  if (!failure.empty()) throw EnvironmentError(failure);
}

CuptiActivitySource::~CuptiActivitySource() {
  try {
    disable();
  } catch (...) {  // nothing to do about a failure while shutting down
  }
}

void CuptiActivitySource::enable() {
  if (enabled_) return;
  {
    std::lock_guard<std::mutex> lock(sink_mutex);
    sink = ActivityBatch{};
    sink_accepting = true;
  }
  // CONCURRENT_KERNEL, unlike KERNEL, does not serialise kernels. External correlation records are
  // emitted alongside API records, hence RUNTIME.
  for (CUpti_ActivityKind kind : kKinds) check(api().enable(kind), "cuptiActivityEnable");
  enabled_ = true;
}

void CuptiActivitySource::disable() {
  if (!enabled_) return;
  enabled_ = false;
  for (CUpti_ActivityKind kind : kKinds) check(api().disable(kind), "cuptiActivityDisable");
  check(api().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  std::lock_guard<std::mutex> lock(sink_mutex);
  sink = ActivityBatch{};
  sink_accepting = false;
}

void CuptiActivitySource::push_external_id(std::uint64_t external_id) {
  check(api().push_external(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, external_id),
        "cuptiActivityPushExternalCorrelationId");
}

void CuptiActivitySource::pop_external_id() {
  uint64_t last = 0;
  check(api().pop_external(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last), "cuptiActivityPopExternalCorrelationId");
}

ActivityBatch CuptiActivitySource::collect() {
  // Forced: also the buffers CUPTI is still filling. The stream was synchronised, so our kernels' records
  // are complete; an incomplete one (no end timestamp) is skipped by the matcher and the caller retries.
  check(api().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  std::lock_guard<std::mutex> lock(sink_mutex);
  ActivityBatch out = std::move(sink);
  sink = ActivityBatch{};
  return out;
}

}  // namespace gpuperf::cupti
