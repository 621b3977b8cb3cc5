#include "profiler/gpu/device_info.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstdio>

#include "core/environment.hpp"
#include "kernels/cuda_check.hpp"
#include "profiler/gpu/nvml.hpp"

namespace gpuperf::gpu {

std::string format_gpu_uuid(const unsigned char b[16]) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return buf;
}

std::string format_cuda_version(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

int device_count() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver || (err == cudaSuccess && count == 0)) {
    throw EnvironmentError(std::string("no CUDA GPU is available (cudaGetDeviceCount: ") +
                           (err == cudaSuccess ? "0 devices" : cudaGetErrorName(err)) +
                           "). Measuring needs an NVIDIA GPU and its driver; list, report, compare and the "
                           "database commands work without one.");
  }
  if (err != cudaSuccess) {
    throw EnvironmentError(std::string("the CUDA runtime cannot reach a GPU: cudaGetDeviceCount failed with ") +
                           cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
  }
  return count;
}

void select_device(int device) {
  const int count = device_count();
  if (device < 0 || device >= count) {
    throw InputError("--device " + std::to_string(device) + ": this machine has " + std::to_string(count) +
                     " CUDA device" + (count == 1 ? "" : "s") + " (0.." + std::to_string(count - 1) + ")");
  }
  GPUPERF_CUDA_CHECK(cudaSetDevice(device));
  GPUPERF_CUDA_CHECK(cudaFree(nullptr));  // create the context now, not inside the first measurement
}

Machine describe_machine(int device) {
  cudaDeviceProp prop{};
  GPUPERF_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  Machine m;
  m.gpu_name = prop.name;
  m.gpu_uuid = format_gpu_uuid(reinterpret_cast<const unsigned char*>(prop.uuid.bytes));
  m.sm_count = prop.multiProcessorCount;
  m.cc = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  int runtime = 0, driver = 0;
  GPUPERF_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  GPUPERF_CUDA_CHECK(cudaDriverGetVersion(&driver));
  m.cuda = format_cuda_version(runtime);
  if (auto v = nvml_driver_version()) {
    m.driver = *v;
  } else {
    m.driver = "CUDA " + format_cuda_version(driver) + " driver";  // NVML unavailable: the driver API level
  }
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) m.hostname = host;
  return m;
}

std::map<std::string, std::string> describe_environment(int device, const Machine& machine) {
  std::map<std::string, std::string> out = nvml_settings(machine.gpu_uuid);
  if (!machine.driver.empty()) out[env::kDriver] = machine.driver;
  if (!machine.cuda.empty()) out[env::kCudaRuntime] = machine.cuda;
  if (!machine.gpu_name.empty()) out[env::kGpuName] = machine.gpu_name;
  int driver = 0;
  if (cudaSetDevice(device) == cudaSuccess && cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) {
    out[env::kCudaDriverApi] = format_cuda_version(driver);
  }
#ifdef GPUPERF_CUDA_TOOLKIT_VERSION
  out[env::kToolkit] = GPUPERF_CUDA_TOOLKIT_VERSION;  // the nvcc that compiled the kernels, from CMake
#endif
  return out;
}

}  // namespace gpuperf::gpu
