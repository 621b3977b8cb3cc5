// The floor of what recording can cost: a bare CUPTI kernel tracer, loaded like gpuperf's injection library
// (CUDA_INJECTION64_PATH), that enables CONCURRENT_KERNEL activity records with 1 MB buffers and does
// nothing with them but count them. No NVTX, no launch-API records, no file. bench/record_overhead.py runs
// programs under it to separate what CUPTI's tracing costs from what gpuperf adds. At exit it prints
// "bare_tracer: N kernel records" on stderr, so a run shows it traced.
#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace {

std::atomic<unsigned long long> g_kernels{0};

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 1u << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  if (*buffer == nullptr) *size = 0;
  *max_records = 0;
}

void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  unsigned long long n = 0;
  while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ++n;
  }
  g_kernels += n;
  std::free(buffer);
}

void at_exit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::fprintf(stderr, "bare_tracer: %llu kernel records\n", g_kernels.load());
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  if (cuptiActivityRegisterCallbacks(requested, completed) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "bare_tracer: cannot enable kernel tracing\n");
    return 1;
  }
  std::atexit(at_exit);
  return 1;
}
