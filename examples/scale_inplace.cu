// Example: a kernel that updates its data in place, so launching it twice is not launching it once.
//
// Declared not_idempotent(): gpuperf's profiler then uses kernel replay, where CUPTI saves and restores the
// memory the kernel writes between its replay passes, instead of relaunching it once per pass itself.
// poison_outputs() restores the initial data (for an in-place kernel the input is the output), so the
// verification launch starts from known values; an element the kernel skips keeps its initial value, which
// is not the expected a x + b, and fails verification.
#include <cuda_runtime.h>

#include <gpuperf/gpuperf.hpp>

namespace {

// x = a x + b, in place. With 0.5 <= a < 0.9 repeated launches (the timing loop) converge instead of
// overflowing.
__global__ void scale_inplace(float a, float b, float* __restrict__ x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i] + b;
}

class ScaleInplace : public gpuperf::Workload {
 public:
  ScaleInplace(int n, std::uint64_t seed) : n_(n), x_(n) {
    initial_ = gpuperf::random_floats(n, seed, 1);
    a_ = gpuperf::random_floats(1, seed, 2, 0.5f, 0.9f)[0];
    b_ = gpuperf::random_floats(1, seed, 3)[0];
    expected_.resize(n);
    for (int i = 0; i < n; ++i) expected_[i] = static_cast<double>(a_) * initial_[i] + b_;  // CPU reference
    x_.upload(initial_);
  }
  void launch(gpuperf::StreamHandle stream) override {
    scale_inplace<<<gpuperf::blocks_for(n_, 256), 256, 0, stream>>>(a_, b_, x_.get(), n_);
    GPUPERF_CUDA_CHECK_LAUNCH();
  }
  // The next launch (the verification launch) starts from the initial data.
  void poison_outputs(gpuperf::StreamHandle stream) override {
    GPUPERF_CUDA_CHECK(cudaStreamSynchronize(stream));
    x_.upload(initial_);
  }
  gpuperf::Verification verify(gpuperf::StreamHandle stream) override {
    return gpuperf::verify_close(x_.download(stream), expected_, {}, gpuperf::Tolerance{1e-6, 1e-6}, "x");
  }
  const void* kernel_function() const override { return reinterpret_cast<const void*>(&scale_inplace); }
  gpuperf::LaunchShape launch_shape() const override {
    gpuperf::LaunchShape s;
    s.grid[0] = gpuperf::blocks_for(n_, 256);
    s.block[0] = 256;
    return s;
  }

 private:
  int n_;
  float a_ = 0, b_ = 0;
  std::vector<float> initial_;
  gpuperf::DeviceBuffer<float> x_;
  std::vector<double> expected_;
};

std::unique_ptr<gpuperf::Workload> make_scale(const gpuperf::Params& p, std::uint64_t seed) {
  return std::make_unique<ScaleInplace>(static_cast<int>(gpuperf::int_param(p, "n", "example/scale_inplace")), seed);
}

double n_of(const gpuperf::Params& p) {
  return static_cast<double>(gpuperf::int_param(p, "n", "example/scale_inplace"));
}

}  // namespace

GPUPERF_BENCHMARK("example/scale_inplace", make_scale)
    .description("x = a x + b in place: not idempotent, profiled with kernel replay")
    .axis("n", {1 << 24})
    .not_idempotent()
    .bytes([](const gpuperf::Params& p) { return 2.0 * sizeof(float) * n_of(p); })  // x read and written
    .flops([](const gpuperf::Params& p) { return 2.0 * n_of(p); });
