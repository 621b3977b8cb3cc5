// Plain functions of the back-end seam: what a CUPTI result code means, why a device cannot be profiled.
// Compiled into both the collector and the CUPTI module; includes no CUPTI header (codes from
// cupti_result.h, CUDA 13.0, written out so the logic stays testable without CUPTI).
#include "profiler/cupti/range_backend.hpp"

#include <vector>

namespace gpuperf::cupti {

const char* to_string(FailureKind k) {
  switch (k) {
    case FailureKind::insufficient_privileges: return "insufficient_privileges";
    case FailureKind::profiler_busy: return "profiler_busy";
    case FailureKind::unsupported_device: return "unsupported_device";
    case FailureKind::invalid_metric: return "invalid_metric";
    case FailureKind::no_device: return "no_device";
    case FailureKind::other: return "other";
  }
  return "other";
}

FailureKind classify_cupti_result(int r) {
  switch (r) {
    case 35:  // CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
    case 40:  // CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES
      return FailureKind::insufficient_privileges;
    case 26:  // CUPTI_ERROR_HARDWARE_BUSY
    case 36:  // CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED
    case 39:  // CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
      return FailureKind::profiler_busy;
    case 27:  // CUPTI_ERROR_NOT_SUPPORTED
    case 33:  // CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED
    case 38:  // CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED
    case 41:  // CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED
    case 42:  // CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED
    case 43:  // CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED
    case 44:  // CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED
    case 45:  // CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED
    case 46:  // CUPTI_ERROR_INVALID_CHIP_NAME (a chip this CUPTI does not know)
      return FailureKind::unsupported_device;
    case 17:  // CUPTI_ERROR_INVALID_METRIC_NAME
      return FailureKind::invalid_metric;
    case 2:  // CUPTI_ERROR_INVALID_DEVICE
    case 3:  // CUPTI_ERROR_INVALID_CONTEXT
      return FailureKind::no_device;
    default: return FailureKind::other;
  }
}

std::string describe_unsupported(const DeviceSupport& s, const std::string& device_name, ProfilerApi api) {
  if (s.overall == SupportLevel::supported) return "";
  const bool sass = api == ProfilerApi::sass_metrics;
  std::vector<std::string> why;
  auto off = [](SupportLevel l) { return l == SupportLevel::unsupported || l == SupportLevel::disabled; };
  if (off(s.architecture)) {
    why.push_back(sass ? "its architecture has no SASS metrics (source lines) in CUPTI"
                       : "its architecture is too old for the Range Profiler (compute capability 7.0 or newer is "
                         "needed)");
  }
  if (s.vgpu == SupportLevel::disabled) {
    why.push_back("it is a vGPU with profiling disabled (the host must enable profiling for this VM)");
  } else if (s.vgpu == SupportLevel::unsupported) {
    why.push_back("profiling is not supported on this vGPU");
  }
  if (off(s.sli)) why.push_back("SLI is enabled");
  if (off(s.confidential_compute)) why.push_back("confidential computing is enabled");
  if (off(s.cmp)) why.push_back("it is a crypto-mining processor (CMP), which cannot be profiled");
  if (off(s.wsl)) why.push_back("profiling is not supported under this WSL configuration");
  std::string out = "GPU '" + device_name + "' cannot be profiled by CUPTI" + (sass ? "'s SASS metrics" : "");
  if (why.empty()) return out + " (cuptiProfilerDeviceSupported gave no reason)";
  out += ": ";
  for (std::size_t i = 0; i < why.size(); ++i) out += (i ? "; " : "") + why[i];
  return out;
}

}  // namespace gpuperf::cupti
