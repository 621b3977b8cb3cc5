// PM sampling's host object (cupti_profiler_host.h with CUPTI_PROFILER_TYPE_PM_SAMPLING): a chip's configuration
// image for a list of metrics and the passes it needs. One sequence for both binaries that ask it: the injected
// library (record --pm-sampling, with the device's counter availability) and the CUPTI module (`gpuperf metrics
// --chip`, from the chip name alone, no GPU). Includes CUPTI's headers: those two only.
#pragma once

#include <cupti_profiler_host.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpuperf::cupti {

// Frees a host object; null is fine.
void host_free(CUpti_Profiler_Host_Object* h);

// A PM-sampling host object of `chip` with `metrics` added, its configuration image in `image` and the passes it
// needs in `*passes`; null with `*error` when CUPTI refuses (a name the chip lacks). `avail`: the device's counter
// availability image, or null to ask of the chip alone. A host object takes metrics once: a fresh one a question.
CUpti_Profiler_Host_Object* pm_host_object(const char* chip, const std::uint8_t* avail,
                                           const std::vector<const char*>& metrics, std::vector<std::uint8_t>& image,
                                           std::size_t* passes, std::string* error);

// The passes PM sampling needs for `metrics` on `chip`, asked of the chip alone; 0 when the chip refuses them.
std::size_t pm_sampling_passes(const std::string& chip, const std::vector<std::string>& metrics);

}  // namespace gpuperf::cupti
