// A plant for the speed-of-light findings (docs/bound.md): a user's polynomial kernel, y = p(x) of degree 64
// by Horner's rule over 16M floats, one element per thread. Built twice from this one source by
// bench/detect/plants/build_plants.sh: with nvcc's default FMA contraction (64 FFMA per element: DRAM limits it)
// and with -fmad=false (64 FMUL + 64 FADD: the FMA pipe limits it), the edit of issue 28's example, where a
// kernel began rounding each step separately. The same memory traffic, twice the arithmetic instructions.
// A third build, of degree 4 (-DGPUPERF_PLANT_DEGREE=4), is the same kernel before its degree was raised:
// a copy with a few FFMA per element, memory-bound, which the degree-64 build makes compute-bound.
// plant/horner_n is the same polynomial of a quarter and of half the degree by a template kernel, instantiated
// once a degree (issue 53: two kernels of one template, each its own identity, matched to itself across builds).
//
// Each build links gpuperf::main (the whole CLI over this one benchmark, `plant/polynomial`), as a user's
// project does (examples/).
#include <cuda_runtime.h>

#include <cmath>

#include <gpuperf/gpuperf.hpp>

namespace {

#ifndef GPUPERF_PLANT_DEGREE
#define GPUPERF_PLANT_DEGREE 64
#endif
constexpr int kDegree = GPUPERF_PLANT_DEGREE;
constexpr int kBlock = 256;
constexpr std::int64_t kCount = std::int64_t{1} << 24;

struct Coefficients {
  float c[kDegree + 1];  // c[0] x^kDegree + c[1] x^(kDegree-1) + ... + c[kDegree]
};

// One Horner step, in a helper nvcc inlines (bench/gpu/user_project/edit.sh edits it, as a user's commit would).
__device__ __forceinline__ float horner_step(float acc, float x, float c) {
  return acc * x + c;  // one FFMA, or FMUL + FADD under -fmad=false
}

__global__ void polynomial(const float* __restrict__ x, float* __restrict__ y, unsigned n, Coefficients p) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  float acc = p.c[0];
#pragma unroll
  for (int k = 1; k <= kDegree; ++k) acc = horner_step(acc, v, p.c[k]);
  y[i] = acc;
}

// The same polynomial of a lower degree N as a template kernel (issue 53): two instantiations are two kernels
// of one source, told apart by their template argument, each calling the inlined helper N times an element.
template <int N>
__global__ void horner_n(const float* __restrict__ x, float* __restrict__ y, unsigned n, Coefficients p) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  float acc = p.c[0];
#pragma unroll
  for (int k = 1; k <= N; ++k) acc = horner_step(acc, v, p.c[k]);
  y[i] = acc;
}
constexpr int kLowDegree = kDegree < 4 ? 1 : kDegree / 4, kHalfDegree = kDegree < 2 ? 1 : kDegree / 2;

using PolynomialKernel = void (*)(const float*, float*, unsigned, Coefficients);

class Polynomial : public gpuperf::Workload {
 public:
  Polynomial(std::uint64_t seed, int degree, PolynomialKernel kernel) : kernel_(kernel), x_(kCount), y_(kCount) {
    const auto x = gpuperf::random_floats(kCount, seed, 1);
    const auto c = gpuperf::random_floats(degree + 1, seed, 2, -0.5f, 0.5f);
    for (int k = 0; k <= degree; ++k) p_.c[k] = c[k];
    x_.upload(x);
    expected_.resize(kCount);
    scale_.resize(kCount);
    gpuperf::parallel_for(kCount, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) {
        double acc = c[0], mag = std::fabs(c[0]);
        const double v = x[i];
        for (int k = 1; k <= degree; ++k) {
          acc = acc * v + c[k];
          mag = mag * std::fabs(v) + std::fabs(c[k]);
        }
        expected_[i] = acc;
        scale_[i] = mag;  // the rounding error of 64 steps grows with sum |c_k x^k|, not with the result
      }
    });
  }
  void launch(gpuperf::StreamHandle stream) override {
    kernel_<<<gpuperf::blocks_for(kCount, kBlock), kBlock, 0, stream>>>(x_.get(), y_.get(),
                                                                        static_cast<unsigned>(kCount), p_);
    GPUPERF_CUDA_CHECK_LAUNCH();
  }
  void poison_outputs(gpuperf::StreamHandle stream) override { y_.poison(stream); }
  gpuperf::Verification verify(gpuperf::StreamHandle stream) override {
    // 64 roundings (128 without contraction) of at most half an ulp each, relative to sum |c_k x^k|.
    return gpuperf::verify_close(y_.download(stream), expected_, scale_, gpuperf::Tolerance{2e-5, 1e-6}, "y");
  }
  const void* kernel_function() const override { return reinterpret_cast<const void*>(kernel_); }
  gpuperf::LaunchShape launch_shape() const override {
    gpuperf::LaunchShape s;
    s.grid[0] = gpuperf::blocks_for(kCount, kBlock);
    s.block[0] = kBlock;
    return s;
  }

 private:
  PolynomialKernel kernel_;
  Coefficients p_{};
  gpuperf::DeviceBuffer<float> x_, y_;
  std::vector<double> expected_, scale_;
};

std::unique_ptr<gpuperf::Workload> make_polynomial(const gpuperf::Params&, std::uint64_t seed) {
  return std::make_unique<Polynomial>(seed, kDegree, &polynomial);
}

std::unique_ptr<gpuperf::Workload> make_horner_n(const gpuperf::Params& p, std::uint64_t seed) {
  const auto degree = static_cast<int>(gpuperf::int_param(p, "degree", "plant/horner_n"));
  if (degree == kLowDegree) return std::make_unique<Polynomial>(seed, degree, &horner_n<kLowDegree>);
  return std::make_unique<Polynomial>(seed, kHalfDegree, &horner_n<kHalfDegree>);
}

double degree_of(const gpuperf::Params& p) {
  return static_cast<double>(gpuperf::int_param(p, "degree", "plant/horner_n"));
}

}  // namespace

GPUPERF_BENCHMARK("plant/polynomial", make_polynomial)
    .description("y = p(x), degree 64 by Horner's rule, 16M floats")
    .bytes([](const gpuperf::Params&) { return 2.0 * sizeof(float) * kCount; })
    .flops([](const gpuperf::Params&) { return 2.0 * kDegree * kCount; });
GPUPERF_BENCHMARK("plant/horner_n", make_horner_n)
    .description("y = p(x) of a lower degree by a template kernel, one instantiation a degree, 16M floats")
    .axis("degree", {kLowDegree, kHalfDegree})
    .bytes([](const gpuperf::Params&) { return 2.0 * sizeof(float) * kCount; })
    .flops([](const gpuperf::Params& p) { return 2.0 * degree_of(p) * kCount; });
