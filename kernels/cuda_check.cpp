#include "kernels/cuda_check.hpp"

#include <cstring>

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
