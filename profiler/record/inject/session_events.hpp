// `record --metrics`: the API calls at whose entry a range-profiler session kept enabled between profiled
// launches is ended (profiler/record/inject/profile_session.hpp): a stream capture's beginning (disabling the profiler
// inside a capture breaks it: `cudaStreamEndCapture: operation failed due to a previous error during capture`
// on every run of the CUDA graph program, docs/record-ends.md) and a context's destruction or reset.
// Kernel launches end it through the launch callbacks themselves.
#pragma once

#include <cupti.h>

#include <algorithm>
#include <iterator>

#include "profiler/record/inject/profile_session.hpp"

namespace gpuperf::record::inject {

inline constexpr CUpti_CallbackId kRuntimeCaptureBegins[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000, CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030};
inline constexpr CUpti_CallbackId kDriverCaptureBegins[] = {
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,     CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz};
inline constexpr CUpti_CallbackId kDriverContextEnds[] = {CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy,
                                                          CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2,
                                                          CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRelease,
                                                          CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRelease_v2,
                                                          CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset,
                                                          CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2};

// Why a callback ends the kept session, or false when it is not one of the calls above.
inline bool session_event(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, SessionEnd& why) {
  const auto in = [cbid](const auto& list) {
    return std::find(std::begin(list), std::end(list), cbid) != std::end(list);
  };
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && in(kRuntimeCaptureBegins)) {
    why = SessionEnd::capture_begin;
    return true;
  }
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return false;
  if (in(kDriverCaptureBegins)) {
    why = SessionEnd::capture_begin;
    return true;
  }
  if (in(kDriverContextEnds)) {
    why = SessionEnd::context_destroy;
    return true;
  }
  return false;
}

}  // namespace gpuperf::record::inject
