// Example: benchmarking your own kernel with gpuperf.
//
// A benchmark is a Workload (device buffers, one launch, verification against a CPU reference) plus a
// registration that names it, gives its parameter axes and declares its bytes and FLOPs per launch.
// GPUPERF_BENCHMARK registers it at start-up; the executable links gpuperf::main, so it is the whole
// gpuperf CLI (list, run, profile, check, report, ...) over the benchmarks registered in it.
#include <cuda_runtime.h>

#include <gpuperf/gpuperf.hpp>  // Workload, GPUPERF_BENCHMARK, DeviceBuffer, random_floats, verify_close

namespace {

// z = a x + y, out of place so that repeated launches give the same result (the timing loop relaunches).
__global__ void saxpy(float a, const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ z, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
}

class Saxpy : public gpuperf::Workload {
 public:
  Saxpy(int n, std::uint64_t seed) : n_(n), x_(n), y_(n), z_(n) {
    // Fresh random input from the run's seed: never constants, never zeros.
    const auto x = gpuperf::random_floats(n, seed, 1);
    const auto y = gpuperf::random_floats(n, seed, 2);
    a_ = gpuperf::random_floats(1, seed, 3)[0];
    x_.upload(x);
    y_.upload(y);
    expected_.resize(n);
    for (int i = 0; i < n; ++i) expected_[i] = static_cast<double>(a_) * x[i] + y[i];  // CPU reference
  }
  void launch(gpuperf::StreamHandle stream) override {
    saxpy<<<gpuperf::blocks_for(n_, 256), 256, 0, stream>>>(a_, x_.get(), y_.get(), z_.get(), n_);
    GPUPERF_CUDA_CHECK_LAUNCH();
  }
  void poison_outputs(gpuperf::StreamHandle stream) override { z_.poison(stream); }  // NaN everywhere
  gpuperf::Verification verify(gpuperf::StreamHandle stream) override {
    // One rounding of a*x and one of the sum (or one fused): a few ulps of |a x| + |y|.
    return gpuperf::verify_close(z_.download(stream), expected_, {}, gpuperf::Tolerance{1e-6, 1e-6}, "z");
  }
  const void* kernel_function() const override { return reinterpret_cast<const void*>(&saxpy); }
  gpuperf::LaunchShape launch_shape() const override {
    gpuperf::LaunchShape s;
    s.grid[0] = gpuperf::blocks_for(n_, 256);
    s.block[0] = 256;
    return s;
  }

 private:
  int n_;
  float a_ = 0;
  gpuperf::DeviceBuffer<float> x_, y_, z_;
  std::vector<double> expected_;
};

std::unique_ptr<gpuperf::Workload> make_saxpy(const gpuperf::Params& p, std::uint64_t seed) {
  return std::make_unique<Saxpy>(static_cast<int>(gpuperf::int_param(p, "n", "example/saxpy")), seed);
}

double n_of(const gpuperf::Params& p) { return static_cast<double>(gpuperf::int_param(p, "n", "example/saxpy")); }

}  // namespace

GPUPERF_BENCHMARK("example/saxpy", make_saxpy)
    .description("z = a x + y, one element per thread")
    .axis("n", {1 << 20, 1 << 24})
    .bytes([](const gpuperf::Params& p) { return 3.0 * sizeof(float) * n_of(p); })  // x, y read; z written
    .flops([](const gpuperf::Params& p) { return 2.0 * n_of(p); });
