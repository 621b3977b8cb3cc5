// Two benchmarks for bench/gpu/identity_gpu.sh, built twice (tests/profiler/CMakeLists.txt): identity_bench_a as
// it is, identity_bench_b with IDENTITY_EDIT=1, which changes `identity/scale`'s kernel alone. `check` of b
// against a run of a must say "code changed" for identity/scale and "same code" for identity/map.
#include <cuda_runtime.h>

#include <gpuperf/gpuperf.hpp>

#ifndef IDENTITY_EDIT
#define IDENTITY_EDIT 0
#endif

namespace {

__global__ void map_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaf(x[i], 2.0f, 1.0f);
}

__global__ void scale_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
#if IDENTITY_EDIT
  if (i < n) y[i] = x[i] * 3.0f + 0.0f * x[(i + 1) % n];  // the edit: one more load, the same answer
#else
  if (i < n) y[i] = x[i] * 3.0f;
#endif
}

class Elementwise : public gpuperf::Workload {
 public:
  Elementwise(bool scale, int n, std::uint64_t seed) : scale_(scale), n_(n), x_(n), y_(n) {
    const auto x = gpuperf::random_floats(n, seed, 1);
    x_.upload(x);
    for (float v : x) expected_.push_back(scale ? 3.0 * v : 2.0 * v + 1.0);
  }
  void launch(gpuperf::StreamHandle stream) override {
    if (scale_) {
      scale_kernel<<<gpuperf::blocks_for(n_, 256), 256, 0, stream>>>(x_.get(), y_.get(), n_);
    } else {
      map_kernel<<<gpuperf::blocks_for(n_, 256), 256, 0, stream>>>(x_.get(), y_.get(), n_);
    }
    GPUPERF_CUDA_CHECK_LAUNCH();
  }
  void poison_outputs(gpuperf::StreamHandle stream) override { y_.poison(stream); }
  gpuperf::Verification verify(gpuperf::StreamHandle stream) override {
    return gpuperf::verify_close(y_.download(stream), expected_, {}, gpuperf::Tolerance{1e-6, 1e-6}, "y");
  }
  const void* kernel_function() const override {
    return scale_ ? reinterpret_cast<const void*>(&scale_kernel) : reinterpret_cast<const void*>(&map_kernel);
  }
  gpuperf::LaunchShape launch_shape() const override {
    gpuperf::LaunchShape s;
    s.grid[0] = gpuperf::blocks_for(n_, 256);
    s.block[0] = 256;
    return s;
  }

 private:
  bool scale_;
  int n_;
  gpuperf::DeviceBuffer<float> x_, y_;
  std::vector<double> expected_;
};

int n_of(const gpuperf::Params& p) { return static_cast<int>(gpuperf::int_param(p, "n", "identity")); }

std::unique_ptr<gpuperf::Workload> make_map(const gpuperf::Params& p, std::uint64_t seed) {
  return std::make_unique<Elementwise>(false, n_of(p), seed);
}
std::unique_ptr<gpuperf::Workload> make_scale(const gpuperf::Params& p, std::uint64_t seed) {
  return std::make_unique<Elementwise>(true, n_of(p), seed);
}

}  // namespace

GPUPERF_BENCHMARK("identity/map", make_map).axis("n", {1 << 22});
GPUPERF_BENCHMARK("identity/scale", make_scale).axis("n", {1 << 22});
