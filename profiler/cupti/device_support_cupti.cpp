#include "profiler/cupti/device_support_cupti.hpp"

#include <cuda.h>  // CUdevice (type only)
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include "profiler/cupti/cupti_check.hpp"

namespace gpuperf::cupti {
namespace {

SupportLevel level(CUpti_Profiler_Support_Level l) {
  switch (l) {
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return SupportLevel::supported;
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return SupportLevel::disabled;
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return SupportLevel::unsupported;
    default: return SupportLevel::unknown;
  }
}

}  // namespace

std::string supported_chip_name(int device, ProfilerApi api) {
  auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<std::size_t>(device);
  GPUPERF_CUPTI_CHECK(cuptiDeviceGetChipName(&chip));
  std::string chip_name = chip.pChipName != nullptr ? chip.pChipName : "";

  auto sup = params<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
  sup.cuDevice = static_cast<CUdevice>(device);
  sup.api = api == ProfilerApi::sass_metrics ? CUPTI_PROFILER_SASS_METRICS : CUPTI_PROFILER_RANGE_PROFILING;
  GPUPERF_CUPTI_CHECK(cuptiProfilerDeviceSupported(&sup));
  DeviceSupport s;
  s.overall = level(sup.isSupported);
  s.architecture = level(sup.architecture);
  s.sli = level(sup.sli);
  s.vgpu = level(sup.vGpu);
  s.confidential_compute = level(sup.confidentialCompute);
  s.cmp = level(sup.cmp);
  s.wsl = level(sup.wsl);
  if (std::string why = describe_unsupported(s, chip_name + " (device " + std::to_string(device) + ")", api);
      !why.empty()) {
    throw BackendError(FailureKind::unsupported_device, "cuptiProfilerDeviceSupported", 0, why);
  }
  return chip_name;
}

}  // namespace gpuperf::cupti
