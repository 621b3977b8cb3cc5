// What the injection library's two parts share (inject.cpp: tracing; inject_metrics.cpp: hardware metrics).
#pragma once

#include <cupti.h>

#include <cstdint>
#include <string>

#include "profiler/record/record_config.hpp"

namespace gpuperf::record::inject {

// The APIs that launch one kernel (<<<>>> is __cudaLaunchKernel in CUDA 13): tracing ties their activity
// records to the kernel's, and `--metrics` profiles from their callbacks.
inline constexpr CUpti_CallbackId kRuntimeKernelLaunches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000};
inline constexpr CUpti_CallbackId kDriverKernelLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz};
// The other launching APIs (cooperative kernels, graphs): traced too, not profiled.
inline constexpr CUpti_CallbackId kRuntimeOtherLaunches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000};
inline constexpr CUpti_CallbackId kDriverOtherLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz};

// Enables `subscriber`'s callbacks of `cbids` in `domain`, while `r` is CUPTI_SUCCESS (the first failure stays in
// it): the launch APIs alone, every other API call runs without a callback.
template <typename List>
void enable_callbacks(CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain, const List& cbids,
                      CUptiResult& r) {
  for (CUpti_CallbackId cbid : cbids) {
    if (r == CUPTI_SUCCESS) r = cuptiEnableCallback(1, subscriber, domain, cbid);
  }
}

// The four lists above: every launch API's callback (--metrics and --pm-sampling).
inline CUptiResult enable_launch_callbacks(CUpti_SubscriberHandle subscriber) {
  CUptiResult r = CUPTI_SUCCESS;
  enable_callbacks(subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeKernelLaunches, r);
  enable_callbacks(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, kDriverKernelLaunches, r);
  enable_callbacks(subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeOtherLaunches, r);
  enable_callbacks(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, kDriverOtherLaunches, r);
  return r;
}

// The NVTX callbacks that open and close a range (the path `record` names launches by, the external id the
// bare tracer pushes in its place).
constexpr bool is_nvtx_push(CUpti_CallbackId cbid) {
  return cbid == CUPTI_CBID_NVTX_nvtxRangePushA || cbid == CUPTI_CBID_NVTX_nvtxRangePushEx ||
         cbid == CUPTI_CBID_NVTX_nvtxDomainRangePushEx;
}
constexpr bool is_nvtx_pop(CUpti_CallbackId cbid) {
  return cbid == CUPTI_CBID_NVTX_nvtxRangePop || cbid == CUPTI_CBID_NVTX_nvtxDomainRangePop;
}

// Appends one line to this process's record file (thread-safe; dropped once the file is finished).
// The configuration `gpuperf record` gave the program (record_config.hpp), read once at InitializeInjection.
const RecordConfig& config();

void write_line(const std::string& line);

// The same, then the file's buffer is handed to the kernel (fflush): what a later SIGKILL cannot take back.
void write_line_and_flush(const std::string& line);

// The id (its R line) of the NVTX range path the calling thread is in; 0 outside any range or with --no-nvtx.
std::uint64_t current_range_id();

// The launching thread's NVTX path ("outer/inner"; "" outside any range), as `record` stores it.
std::string current_range_path();

// Pauses (false) and resumes (true) the tracing of kernels (source lines' "quiet" way, inject_lines.cpp).
void set_kernel_tracing(bool on);

// A forced flush of CUPTI's activity buffers, right after a replayed (--metrics) or instrumented (source lines)
// launch, on its thread, which still holds the launch gate exclusively: the context was synchronized before
// that launch and nothing else was launched since, so every record in the buffers is complete but that
// launch's own, which CUPTI never completes (no timestamps under kernel replay; tracing paused around an
// instrumented launch) and which holds its whole buffer back from every periodic (non-forced) flush. Without
// it, a --metrics program killed while hanging kept nothing: no buffer had reached its file (H100,
// bench/record/record_gpu41.sh's hang-metrics case). Not with several contexts in the process (another GPU's
// kernels may be running: their records would be handed over unfinished).
void flush_records_after_exclusive_launch();

}  // namespace gpuperf::record::inject
