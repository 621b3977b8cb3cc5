#include "profiler/gpu/nvml.hpp"

#include <dlfcn.h>

#include <mutex>

#include "core/environment.hpp"

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
  nvmlReturn_t (*app_clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*power_limit)(nvmlDevice_t, unsigned*) = nullptr;  // milliwatts
  nvmlReturn_t (*ecc_mode)(nvmlDevice_t, int*, int*) = nullptr;    // current, pending
  nvmlReturn_t (*mig_mode)(nvmlDevice_t, unsigned*, unsigned*) = nullptr;
  nvmlReturn_t (*persistence)(nvmlDevice_t, int*) = nullptr;
  nvmlReturn_t (*part_number)(nvmlDevice_t, char*, unsigned) = nullptr;
};

constexpr int kNvmlClockMem = 2;  // NVML_CLOCK_MEM

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
    n.app_clock = reinterpret_cast<decltype(n.app_clock)>(dlsym(lib, "nvmlDeviceGetApplicationsClock"));
    n.power_limit = reinterpret_cast<decltype(n.power_limit)>(dlsym(lib, "nvmlDeviceGetEnforcedPowerLimit"));
    n.ecc_mode = reinterpret_cast<decltype(n.ecc_mode)>(dlsym(lib, "nvmlDeviceGetEccMode"));
    n.mig_mode = reinterpret_cast<decltype(n.mig_mode)>(dlsym(lib, "nvmlDeviceGetMigMode"));
    n.persistence = reinterpret_cast<decltype(n.persistence)>(dlsym(lib, "nvmlDeviceGetPersistenceMode"));
    n.part_number = reinterpret_cast<decltype(n.part_number)>(dlsym(lib, "nvmlDeviceGetBoardPartNumber"));
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

namespace {

const char* on_off(bool on) { return on ? "on" : "off"; }

}  // namespace

std::map<std::string, std::string> nvml_settings(const std::string& gpu_uuid) {
  std::map<std::string, std::string> out;
  const Nvml& n = nvml();
  nvmlDevice_t dev = nullptr;
  if (!n.ok || n.handle_by_uuid == nullptr || n.handle_by_uuid(gpu_uuid.c_str(), &dev) != kNvmlSuccess) return out;
  unsigned mhz = 0;
  if (n.app_clock && n.app_clock(dev, kNvmlClockSm, &mhz) == kNvmlSuccess) out[env::kAppSmClock] = std::to_string(mhz);
  if (n.app_clock && n.app_clock(dev, kNvmlClockMem, &mhz) == kNvmlSuccess)
    out[env::kAppMemClock] = std::to_string(mhz);
  unsigned milliwatts = 0;
  if (n.power_limit && n.power_limit(dev, &milliwatts) == kNvmlSuccess) {
    out[env::kPowerLimit] = std::to_string(milliwatts / 1000);
  }
  int current = 0, pending = 0;
  if (n.ecc_mode && n.ecc_mode(dev, &current, &pending) == kNvmlSuccess) out[env::kEcc] = on_off(current != 0);
  unsigned mig = 0, mig_pending = 0;
  if (n.mig_mode && n.mig_mode(dev, &mig, &mig_pending) == kNvmlSuccess) out[env::kMig] = on_off(mig != 0);
  int persistent = 0;
  if (n.persistence && n.persistence(dev, &persistent) == kNvmlSuccess)
    out[env::kPersistence] = on_off(persistent != 0);
  char part[96] = {};
  if (n.part_number && n.part_number(dev, part, sizeof part) == kNvmlSuccess && part[0] != 0)
    out[env::kGpuBoard] = part;
  return out;
}

}  // namespace gpuperf::gpu
