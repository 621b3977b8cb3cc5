// The runner's CUDA stream, the check for a context broken by an earlier kernel fault, and free memory.
#pragma once

#include <string>

#include "kernels/benchmark.hpp"

namespace gpuperf::gpu {

// A non-blocking stream on the current device, destroyed with the object.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  StreamHandle get() const { return stream_; }

 private:
  StreamHandle stream_ = nullptr;
};

// Empty when the current context still works; otherwise the sticky error (an illegal address, a trap)
// that makes every later CUDA call on it fail.
std::string sticky_error();

// Free device memory of the current device as a fraction of its total (cudaMemGetInfo); 0 when it cannot
// be read, so a caller that keeps workloads alive stops adding to them.
double free_memory_fraction();

}  // namespace gpuperf::gpu
