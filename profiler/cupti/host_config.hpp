// The CUPTI profiler host sequence (cupti_profiler_host.h), once for both profilers that use it: initialize a host
// object for a profiler type and a chip, add metrics, take the configuration image and the passes it needs, and
// later evaluate counter data to values. The range profiler (range_backend_cupti.cpp: the suite's collector and
// `record --metrics`) and PM sampling (record/inject/pm_sampler.cpp, and `gpuperf metrics --chip` from the chip
// name alone) each call these and nothing of the host API's configuration themselves. Includes CUPTI's headers:
// the CUPTI module and the injected library only.
#pragma once

#include <cupti_profiler_host.h>
#include <cupti_result.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpuperf::cupti {

// A CUPTI call that failed: its result and the call's name ("cuptiProfilerHostConfigAddMetrics"); `call` is null
// when every call succeeded. For callers that report failures as text rather than throw (the injected library).
struct CuptiFailure {
  CUptiResult result = CUPTI_SUCCESS;
  const char* call = nullptr;
  explicit operator bool() const { return call != nullptr; }
  // "cuptiProfilerHostInitialize: CUPTI_ERROR_INVALID_PARAMETER" (CUPTI's name of the result).
  std::string text() const;
};

// A host object of `type` for `chip`, into `*host`. `avail`: the device's counter availability image, or null
// to ask of the chip alone (CUPTI then takes every counter as free).
CuptiFailure host_initialize(CUpti_ProfilerType type, const char* chip, const std::uint8_t* avail,
                             CUpti_Profiler_Host_Object** host);

// Frees a host object; null is fine. A teardown: a failure leaves nothing to undo.
void host_free(CUpti_Profiler_Host_Object* h);

// A configuration: its host object (which evaluates the counter data the configuration collects; the caller
// frees it with host_free), its image and the passes the image needs.
struct HostConfiguration {
  CUpti_Profiler_Host_Object* host = nullptr;
  std::vector<std::uint8_t> image;
  std::size_t passes = 0;
};

// A fresh host object of `type` for `chip` with `metrics` added (a host object takes metrics once: a fresh one a
// configuration), its image and passes into `out`. On a failure `out.host` is null and nothing is left to free.
CuptiFailure host_configure(CUpti_ProfilerType type, const char* chip, const std::uint8_t* avail,
                            const std::vector<const char*>& metrics, HostConfiguration& out);

// Range (or sample) `index` of a counter data image evaluated by the configuration's host object: `values` gets
// one value per name of `metrics`, which must be those the configuration was made with, in any order.
CuptiFailure host_evaluate(CUpti_Profiler_Host_Object* host, const std::vector<std::uint8_t>& counter_data,
                           std::size_t index, const std::vector<const char*>& metrics, std::vector<double>& values);

// The passes PM sampling needs for `metrics` on `chip` (with the device's availability image `avail`, or from
// the chip alone); 0 when the chip refuses them.
std::size_t pm_sampling_passes(const std::string& chip, const std::vector<std::string>& metrics,
                               const std::uint8_t* avail = nullptr);

}  // namespace gpuperf::cupti
