#include "profiler/gpu/stream.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>

#include "kernels/cuda_check.hpp"

namespace gpuperf::gpu {

Stream::Stream() { GPUPERF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }

Stream::~Stream() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

std::string sticky_error() {
  const cudaError_t err = cudaDeviceSynchronize();
  if (err == cudaSuccess) return {};
  // A non-sticky error is consumed by cudaGetLastError; a sticky one persists on the next call.
  (void)cudaGetLastError();
  if (cudaDeviceSynchronize() == cudaSuccess) return {};
  return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
}

double free_memory_fraction() {
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess || total == 0) return 0.0;
  return static_cast<double>(free) / static_cast<double>(total);
}

}  // namespace gpuperf::gpu
