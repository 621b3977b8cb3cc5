#include "kernels/cuda_check.hpp"

#include <cstring>
#include <string>

#include "kernels/benchmark.hpp"

namespace gpuperf {

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  // Paths relative to the source tree read better than the build machine's absolute ones.
  const char* shown = file;
  for (const char* marker : {"/kernels/", "/profiler/", "/examples/", "/tests/", "/cli/"}) {
    if (const char* p = std::strstr(file, marker)) {
      shown = p + 1;
      break;
    }
  }
  throw CudaError(std::string(call) + " failed at " + shown + ":" + std::to_string(line) + ": " +
                      cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")",
                  code);
}

std::string launch_beyond_limits(const LaunchShape& shape) {
  int device = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&p, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return {};
  }
  const std::string sm = "sm_" + std::to_string(p.major * 10 + p.minor);
  const auto dims = [](const unsigned* d) {
    return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
  };
  const unsigned long long threads = 1ull * shape.block[0] * shape.block[1] * shape.block[2];
  if (threads > static_cast<unsigned long long>(p.maxThreadsPerBlock))
    return "a block of " + std::to_string(threads) + " threads: " + sm + " allows " +
           std::to_string(p.maxThreadsPerBlock);
  for (int i = 0; i < 3; ++i) {
    if (shape.block[i] > static_cast<unsigned>(p.maxThreadsDim[i]))
      return "a block of " + dims(shape.block) + ": " + sm + " allows " + std::to_string(p.maxThreadsDim[0]) + "x" +
             std::to_string(p.maxThreadsDim[1]) + "x" + std::to_string(p.maxThreadsDim[2]) + " at most";
    if (shape.grid[i] > static_cast<unsigned>(p.maxGridSize[i]))
      return "a grid of " + dims(shape.grid) + ": " + sm + " allows " + std::to_string(p.maxGridSize[0]) + "x" +
             std::to_string(p.maxGridSize[1]) + "x" + std::to_string(p.maxGridSize[2]) + " at most";
  }
  if (shape.dynamic_shared_bytes > p.sharedMemPerBlockOptin)
    return std::to_string(shape.dynamic_shared_bytes) + " bytes of dynamic shared memory a block: " + sm + " allows " +
           std::to_string(p.sharedMemPerBlockOptin);
  return {};
}

std::string device_cannot_run(cudaError_t code) {
  std::string sm = "this GPU";
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess) {
    sm = "sm_" + std::to_string(major * 10 + minor);
  }
  (void)cudaGetLastError();  // a failed query leaves no error behind
  switch (code) {
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction:
      return "the binary holds no code " + sm +
             " can run (build it for this architecture: CMAKE_CUDA_ARCHITECTURES, e.g. native)";
    case cudaErrorInvalidConfiguration:
      return "the launch shape is beyond what " + sm + " allows (threads or shared memory per block)";
    case cudaErrorLaunchOutOfResources:
      return "the kernel needs more registers or shared memory per block than " + sm + " has";
    case cudaErrorCooperativeLaunchTooLarge:
      return "the cooperative grid is larger than " + sm + " can hold resident at once";
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorInvalidPtx:
    case cudaErrorJitCompilerNotFound: return "the binary's PTX cannot be compiled for " + sm + " by this driver";
    case cudaErrorNotSupported: return sm + " or its driver does not support an operation the workload uses";
    default: return {};
  }
}

}  // namespace gpuperf
