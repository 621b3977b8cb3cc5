#include "profiler/gpu/nvml.hpp"

#include <dlfcn.h>

#include <mutex>

namespace gpuperf::gpu {
namespace {

// NVML's ABI, declared here instead of including nvml.h (not every toolkit install has it).
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM

struct Nvml {
  bool ok = false;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned) = nullptr;
  nvmlReturn_t (*device_count)(unsigned*) = nullptr;
  nvmlReturn_t (*handle_by_uuid)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock_info)(nvmlDevice_t, int, unsigned*) = nullptr;
};

const Nvml& nvml() {
  static Nvml n;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return;
    n.init = reinterpret_cast<decltype(n.init)>(dlsym(lib, "nvmlInit_v2"));
    n.driver_version = reinterpret_cast<decltype(n.driver_version)>(dlsym(lib, "nvmlSystemGetDriverVersion"));
    n.device_count = reinterpret_cast<decltype(n.device_count)>(dlsym(lib, "nvmlDeviceGetCount_v2"));
    n.handle_by_uuid = reinterpret_cast<decltype(n.handle_by_uuid)>(dlsym(lib, "nvmlDeviceGetHandleByUUID"));
    n.clock_info = reinterpret_cast<decltype(n.clock_info)>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    // Initialised once and left so for the process: nvmlShutdown at exit buys nothing.
    n.ok = n.init != nullptr && n.init() == kNvmlSuccess;
  });
  return n;
}

}  // namespace

std::optional<unsigned> nvml_device_count() {
  const Nvml& n = nvml();
  unsigned count = 0;
  if (!n.ok || n.device_count == nullptr || n.device_count(&count) != kNvmlSuccess) return std::nullopt;
  return count;
}

std::optional<std::string> nvml_driver_version() {
  const Nvml& n = nvml();
  if (!n.ok || n.driver_version == nullptr) return std::nullopt;
  char buf[96] = {};
  if (n.driver_version(buf, sizeof buf) != kNvmlSuccess) return std::nullopt;
  return std::string(buf);
}

std::optional<unsigned> nvml_sm_clock_mhz(const std::string& gpu_uuid) {
  const Nvml& n = nvml();
  if (!n.ok || n.handle_by_uuid == nullptr || n.clock_info == nullptr) return std::nullopt;
  nvmlDevice_t dev = nullptr;
  if (n.handle_by_uuid(gpu_uuid.c_str(), &dev) != kNvmlSuccess) return std::nullopt;
  unsigned mhz = 0;
  if (n.clock_info(dev, kNvmlClockSm, &mhz) != kNvmlSuccess) return std::nullopt;
  return mhz;
}

}  // namespace gpuperf::gpu
