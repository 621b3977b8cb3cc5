// Checking CUDA runtime calls: a failed call throws gpuperf::CudaError naming the call, the file and line,
// and the error's name and text, e.g.
//   "cudaMalloc(&ptr, bytes) failed at kernels/device_buffer.hpp:31: cudaErrorMemoryAllocation (out of memory)".
// Used by the built-in kernels, users' workloads and the runner's GPU back end.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "core/errors.hpp"

namespace gpuperf {

// A CUDA runtime call failed. Exit code 3 (environment) when it escapes to the CLI; the runner records an
// instance whose CUDA call failed as Status::failed with this message and goes on.
class CudaError : public Error {
 public:
  CudaError(const std::string& what, cudaError_t code) : Error(what, kExitEnvironment), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

// Why this GPU cannot run what failed with `code`, when the error says the chip lacks something the code needs
// rather than something going wrong: no kernel image for its architecture, a launch shape or a resource beyond
// its limits, PTX it cannot compile. Empty for any other error. The runner records such an instance as
// unsupported with this reason, not as failed (docs/gpus.md). Names the current device's compute capability
// where the runtime can tell it.
std::string device_cannot_run(cudaError_t code);

// Where a launch of this shape goes beyond the current device's limits ("a block of 2048 threads: sm_90 allows
// 1024"), else empty. The runtime answers such a launch with cudaErrorInvalidValue, which says nothing of why.
struct LaunchShape;
std::string launch_beyond_limits(const LaunchShape& shape);

}  // namespace gpuperf

#define GPUPERF_CUDA_CHECK(call)                                                    \
  do {                                                                              \
    const cudaError_t gpuperf_cuda_status_ = (call);                                \
    if (gpuperf_cuda_status_ != cudaSuccess) {                                      \
      ::gpuperf::throw_cuda_error(gpuperf_cuda_status_, #call, __FILE__, __LINE__); \
    }                                                                               \
  } while (0)

// After a kernel launch (<<<>>> reports launch errors only through cudaGetLastError).
#define GPUPERF_CUDA_CHECK_LAUNCH() GPUPERF_CUDA_CHECK(cudaGetLastError())
