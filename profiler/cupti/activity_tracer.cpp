#include "profiler/cupti/activity_tracer.hpp"

#include <cupti_activity.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "profiler/cupti/activity_api.hpp"

#ifndef GPUPERF_CUPTI_LIBRARY
#define GPUPERF_CUPTI_LIBRARY ""
#endif

namespace gpuperf::cupti {
namespace {

// CUDA 13.0's kernel record; CUPTI fills the version matching the header the client was built with.
using KernelActivity = CUpti_ActivityKernel10;
constexpr std::size_t kBufferBytes = 8u << 20;  // per CUPTI buffer; a sample batch needs a few KB

template <typename F>
void resolve(void* lib, F& fn, const char* name, std::string& missing) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (fn == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
}

ActivityFunctions load_functions() {
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
  ActivityFunctions f;
  std::string missing;
  resolve(lib, f.enable, "cuptiActivityEnable", missing);
  resolve(lib, f.disable, "cuptiActivityDisable", missing);
  resolve(lib, f.enable_runtime_api, "cuptiActivityEnableRuntimeApi", missing);
  resolve(lib, f.enable_driver_api, "cuptiActivityEnableDriverApi", missing);
  resolve(lib, f.register_callbacks, "cuptiActivityRegisterCallbacks", missing);
  resolve(lib, f.flush_all, "cuptiActivityFlushAll", missing);
  resolve(lib, f.next_record, "cuptiActivityGetNextRecord", missing);
  resolve(lib, f.dropped_records, "cuptiActivityGetNumDroppedRecords", missing);
  resolve(lib, f.push_external, "cuptiActivityPushExternalCorrelationId", missing);
  resolve(lib, f.pop_external, "cuptiActivityPopExternalCorrelationId", missing);
  resolve(lib, f.result_string, "cuptiGetResultString", missing);
  if (!missing.empty()) throw EnvironmentError("libcupti lacks the Activity API functions " + missing);
  return f;
}

// Completed records, filled from CUPTI's buffer callback (possibly on a CUPTI thread). Never destroyed,
// like the ActivityApi that calls it.
class Sink : public ActivityHandler {
 public:
  void on_buffer(const ActivityBuffer& records, std::size_t dropped) override {
    ActivityBatch got;  // read outside the lock, then appended under it
    records.for_each([&](const CUpti_Activity& record) {
      if (record.kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record.kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        const auto& k = reinterpret_cast<const KernelActivity&>(record);
        KernelRecord r{k.correlationId, k.start, k.end, k.streamId, k.name != nullptr ? k.name : ""};
        r.grid[0] = static_cast<std::uint32_t>(k.gridX);
        r.grid[1] = static_cast<std::uint32_t>(k.gridY);
        r.grid[2] = static_cast<std::uint32_t>(k.gridZ);
        r.block[0] = static_cast<std::uint32_t>(k.blockX);
        r.block[1] = static_cast<std::uint32_t>(k.blockY);
        r.block[2] = static_cast<std::uint32_t>(k.blockZ);
        r.dynamic_smem = static_cast<std::uint64_t>(k.dynamicSharedMemory);
        got.kernels.push_back(std::move(r));
      } else if (record.kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
        const auto& e = reinterpret_cast<const CUpti_ActivityExternalCorrelation&>(record);
        if (e.externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
          got.correlations.push_back(ExternalCorrelation{e.externalId, e.correlationId});
        }
      }
    });
    std::lock_guard<std::mutex> lock(mutex_);
    if (!accepting_) return;
    batch_.kernels.insert(batch_.kernels.end(), got.kernels.begin(), got.kernels.end());
    batch_.correlations.insert(batch_.correlations.end(), got.correlations.begin(), got.correlations.end());
    batch_.dropped += dropped;
  }
  void accept(bool on) {
    std::lock_guard<std::mutex> lock(mutex_);
    batch_ = ActivityBatch{};
    accepting_ = on;
  }
  ActivityBatch take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(batch_, ActivityBatch{});
  }

 private:
  std::mutex mutex_;  // guards the two below
  ActivityBatch batch_;
  bool accepting_ = false;
};

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME,
                                         CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

Sink& sink() {
  static Sink* s = new Sink;
  return *s;
}

ActivityApi& activity_api() {
  static ActivityApi& a = ActivityApi::instance(load_functions());
  return a;
}

void check(CUptiResult r, const char* call) {
  if (r != CUPTI_SUCCESS) {
    throw EnvironmentError(std::string("CUPTI Activity API: ") + call + " failed: " + activity_api().error_text(r));
  }
}

}  // namespace

CuptiActivitySource::CuptiActivitySource() {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    try {
      check(activity_api().start(sink(), kBufferBytes), "cuptiActivityRegisterCallbacks");
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
  sink().accept(true);
  // CONCURRENT_KERNEL, unlike KERNEL, does not serialise kernels. External correlation records are
  // emitted alongside API records, hence RUNTIME.
  check(activity_api().enable(kKinds), "cuptiActivityEnable");
  enabled_ = true;
}

void CuptiActivitySource::disable() {
  if (!enabled_) return;
  enabled_ = false;
  check(activity_api().disable(kKinds), "cuptiActivityDisable");
  check(activity_api().flush(true), "cuptiActivityFlushAll");
  sink().accept(false);
}

void CuptiActivitySource::push_external_id(std::uint64_t external_id) {
  check(activity_api().push_external(external_id), "cuptiActivityPushExternalCorrelationId");
}

void CuptiActivitySource::pop_external_id() {
  check(activity_api().pop_external(), "cuptiActivityPopExternalCorrelationId");
}

ActivityBatch CuptiActivitySource::collect() {
  // Forced: also the buffers CUPTI is still filling. The stream was synchronised, so our kernels' records
  // are complete; an incomplete one (no end timestamp) is skipped by the matcher and the caller retries.
  check(activity_api().flush(true), "cuptiActivityFlushAll");
  return sink().take();
}

}  // namespace gpuperf::cupti
