// A benchmark that is not idempotent, for the collector's kernel-replay path: x[i] += 1 in place. Each
// real launch must add exactly one; a profiler that replays it without restoring memory adds more.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "tests/collector/probe_inplace.hpp"

namespace gpuperf::testing {
namespace {

__global__ void increment(float* x, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

class InplaceWorkload final : public Workload {
 public:
  explicit InplaceWorkload(unsigned n) : n_(n) {
    check(cudaMalloc(&x_, n_ * sizeof(float)), "cudaMalloc");
    check(cudaMemset(x_, 0, n_ * sizeof(float)), "cudaMemset");
  }
  ~InplaceWorkload() override { (void)cudaFree(x_); }  // teardown
  void launch(StreamHandle stream) override {
    increment<<<(n_ + 255) / 256, 256, 0, stream>>>(x_, n_);
    check(cudaGetLastError(), "increment launch");
  }
  void poison_outputs(StreamHandle) override {}
  Verification verify(StreamHandle stream) override {
    check(cudaStreamSynchronize(stream), "sync");
    return {true, "", 0};
  }
  const void* kernel_function() const override { return reinterpret_cast<const void*>(&increment); }
  LaunchShape launch_shape() const override {
    LaunchShape s;
    s.grid[0] = (n_ + 255) / 256;
    s.block[0] = 256;
    return s;
  }
  float first() const {
    float v = 0;
    check(cudaMemcpy(&v, x_, sizeof v, cudaMemcpyDeviceToHost), "cudaMemcpy");
    return v;
  }

 private:
  unsigned n_;
  float* x_ = nullptr;
};

}  // namespace

std::unique_ptr<Workload> make_inplace_workload(unsigned n) { return std::make_unique<InplaceWorkload>(n); }

float inplace_first_value(const Workload& w) { return static_cast<const InplaceWorkload&>(w).first(); }

bool gpu_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

}  // namespace gpuperf::testing
