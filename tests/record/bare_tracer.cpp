// The floors of what recording can cost: a bare CUPTI kernel tracer, loaded like gpuperf's injection library
// (CUDA_INJECTION64_PATH), that enables CONCURRENT_KERNEL activity records with 1 MB buffers and does
// nothing with them but count them. No NVTX, no launch-API records, no file. bench/record/record_overhead.py runs
// programs under it to separate what CUPTI's tracing costs from what gpuperf adds ("bare tracer", the floor
// of `record --no-nvtx`).
//
// BARE_TRACER_API=1 adds what `record` with NVTX paths asks of CUPTI besides (profiler/record/inject/inject.cpp,
// InitializeInjection): EXTERNAL_CORRELATION records, activity records of the launch APIs alone (the same
// runtime and driver callback ids, inject_shared.hpp), and the NVTX callback domain, whose push and pop push
// and pop an external correlation id (a counter, not a path) as `record` does; records still only counted
// ("bare tracer + launch API", the floor of `record`). NVTX reaches CUPTI through NVTX_INJECTION64_PATH,
// set here to the libcupti this tracer runs with, as inject.cpp sets it.
//
// At exit it prints "bare_tracer: N kernel records[, M API records (R runtime, D driver), P external ids, Q
// NVTX pushes]" on stderr, so a run shows it traced (and how many API records a launch gives).
#include <cupti.h>
#include <dlfcn.h>
#include <generated_nvtx_meta.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "profiler/record/inject/inject_shared.hpp"

namespace {

std::atomic<unsigned long long> g_kernels{0}, g_runtime{0}, g_driver{0}, g_external{0}, g_pushes{0};
bool g_with_api = false;

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 1u << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  if (*buffer == nullptr) *size = 0;
  *max_records = 0;
}

void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  unsigned long long kernels = 0, runtime = 0, driver = 0, external = 0;
  while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ++kernels;
    if (record->kind == CUPTI_ACTIVITY_KIND_RUNTIME) ++runtime;
    if (record->kind == CUPTI_ACTIVITY_KIND_DRIVER) ++driver;
    if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) ++external;
  }
  g_kernels += kernels;
  g_runtime += runtime;
  g_driver += driver;
  g_external += external;
  std::free(buffer);
}

// NVTX push/pop: an external id per push, as `record` pushes one naming the range path.
thread_local unsigned long long t_depth = 0;
void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void*) {
  if (domain != CUPTI_CB_DOMAIN_NVTX) return;
  if (gpuperf::record::inject::is_nvtx_push(cbid)) {
    ++t_depth;
    ++g_pushes;
    cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, t_depth);
  } else if (gpuperf::record::inject::is_nvtx_pop(cbid) && t_depth > 0) {
    --t_depth;
    std::uint64_t last = 0;
    cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
  }
}

void at_exit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (g_with_api) {
    std::fprintf(stderr,
                 "bare_tracer: %llu kernel records, %llu API records (%llu runtime, %llu driver), %llu external ids, "
                 "%llu NVTX pushes\n",
                 g_kernels.load(), g_runtime.load() + g_driver.load(), g_runtime.load(), g_driver.load(),
                 g_external.load(), g_pushes.load());
  } else {
    std::fprintf(stderr, "bare_tracer: %llu kernel records\n", g_kernels.load());
  }
}

// What `record` enables beyond kernel records (inject.cpp): CUPTI_SUCCESS or the first failure.
CUptiResult enable_launch_api() {
  using namespace gpuperf::record::inject;
  CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  for (CUpti_CallbackId cbid : kRuntimeKernelLaunches)
    if (r == CUPTI_SUCCESS) r = cuptiActivityEnableRuntimeApi(cbid, 1);
  for (CUpti_CallbackId cbid : kRuntimeOtherLaunches)
    if (r == CUPTI_SUCCESS) r = cuptiActivityEnableRuntimeApi(cbid, 1);
  for (CUpti_CallbackId cbid : kDriverKernelLaunches)
    if (r == CUPTI_SUCCESS) r = cuptiActivityEnableDriverApi(cbid, 1);
  for (CUpti_CallbackId cbid : kDriverOtherLaunches)
    if (r == CUPTI_SUCCESS) r = cuptiActivityEnableDriverApi(cbid, 1);
  CUpti_SubscriberHandle subscriber = nullptr;
  if (r == CUPTI_SUCCESS) r = cuptiSubscribe(&subscriber, on_callback, nullptr);
  if (r == CUPTI_SUCCESS) r = cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_NVTX);
  return r;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  const char* api = std::getenv("BARE_TRACER_API");
  g_with_api = api != nullptr && std::strcmp(api, "1") == 0;
  Dl_info cupti_info{};
  if (g_with_api && std::getenv("NVTX_INJECTION64_PATH") == nullptr &&
      dladdr(reinterpret_cast<void*>(&cuptiSubscribe), &cupti_info) != 0 && cupti_info.dli_fname != nullptr) {
    setenv("NVTX_INJECTION64_PATH", cupti_info.dli_fname, 0);
  }
  if (cuptiActivityRegisterCallbacks(requested, completed) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS ||
      (g_with_api && enable_launch_api() != CUPTI_SUCCESS)) {
    std::fprintf(stderr, "bare_tracer: cannot enable kernel tracing\n");
    return 1;
  }
  std::atexit(at_exit);
  return 1;
}
