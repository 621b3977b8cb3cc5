// stencil1d: out[i] = sum_{j=-R..R} w[j] in[i + j], radius R = 3, over 16M floats (the input carries R
// halo elements at each end).
//   global - each thread reads its 2R+1 inputs from global memory (through L1): 7 loads per output.
//   shared - a block stages its inputs plus the 2R halo in shared memory, so each input is read from
//            global memory once.
#include <cuda_runtime.h>

#include "kernels/device_buffer.hpp"
#include "kernels/families.hpp"
#include "kernels/host_data.hpp"

namespace gpuperf {
namespace {

constexpr int kRadius = 3;
constexpr int kTaps = 2 * kRadius + 1;
constexpr int kBlock = 256;
constexpr std::int64_t kCount = std::int64_t{1} << 24;

struct Weights {
  float w[kTaps];
};

// `in` points at the first halo element: output i is centred on in[i + R].
__global__ void stencil_global(const float* __restrict__ in, float* __restrict__ out, int n, Weights w) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < kTaps; ++j) sum += w.w[j] * in[i + j];
  out[i] = sum;
}

__global__ void stencil_shared(const float* __restrict__ in, float* __restrict__ out, int n, Weights w) {
  __shared__ float tile[kBlock + 2 * kRadius];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int t = threadIdx.x;
  // The block's own inputs, then the halo: the first R threads also load R elements past the block's end
  // (clamped to the input, whose length is n + 2R).
  if (i < n) tile[t] = in[i];
  if (t < 2 * kRadius) {
    const int h = blockIdx.x * blockDim.x + kBlock + t;
    if (h < n + 2 * kRadius) tile[kBlock + t] = in[h];
  }
  __syncthreads();
  if (i >= n) return;
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < kTaps; ++j) sum += w.w[j] * tile[t + j];
  out[i] = sum;
}

class StencilWorkload : public Workload {
 public:
  StencilWorkload(bool shared, std::uint64_t seed) : shared_(shared), in_(kCount + 2 * kRadius), out_(kCount) {
    const auto in = random_floats(in_.size(), seed, 21);
    const auto weights = random_floats(kTaps, seed, 22);
    for (int j = 0; j < kTaps; ++j) w_.w[j] = weights[static_cast<std::size_t>(j)];
    in_.upload(in);
    HostWorkTimer timer(&HostWork::reference_s);
    const std::size_t n = static_cast<std::size_t>(kCount);
    expected_.resize(n);
    scale_.resize(n);
    parallel_for(n, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        double sum = 0, mag = 0;
        for (int j = 0; j < kTaps; ++j) {
          const double p = static_cast<double>(w_.w[j]) * in[i + static_cast<std::size_t>(j)];
          sum += p;
          mag += p < 0 ? -p : p;
        }
        expected_[i] = sum;
        scale_[i] = mag;
      }
    });
  }

  void launch(StreamHandle stream) override {
    const unsigned grid = blocks_for(kCount, kBlock);
    if (shared_) {
      stencil_shared<<<grid, kBlock, 0, stream>>>(in_.get(), out_.get(), static_cast<int>(kCount), w_);
    } else {
      stencil_global<<<grid, kBlock, 0, stream>>>(in_.get(), out_.get(), static_cast<int>(kCount), w_);
    }
    GPUPERF_CUDA_CHECK_LAUNCH();
  }
  void poison_outputs(StreamHandle stream) override { out_.poison(stream); }
  Verification verify(StreamHandle stream) override {
    return verify_close(out_.download(stream), expected_, scale_, Tolerance{4e-6, 1e-7}, "out");
  }
  void verified() override {
    release(expected_);
    release(scale_);
  }
  const void* kernel_function() const override {
    return shared_ ? reinterpret_cast<const void*>(&stencil_shared) : reinterpret_cast<const void*>(&stencil_global);
  }
  LaunchShape launch_shape() const override {
    LaunchShape s;
    s.grid[0] = blocks_for(kCount, kBlock);
    s.block[0] = kBlock;
    return s;
  }

 private:
  bool shared_;
  Weights w_{};
  DeviceBuffer<float> in_, out_;
  std::vector<double> expected_, scale_;
};

double stencil_bytes(const Params&) { return (2.0 * kCount + 2 * kRadius) * sizeof(float); }
double stencil_flops(const Params&) { return 2.0 * kTaps * kCount; }  // one multiply and one add per tap

}  // namespace

void register_stencil1d(Registry& r) {
  r.builder("stencil1d/global",
            [](const Params&, std::uint64_t seed) -> std::unique_ptr<Workload> {
              return std::make_unique<StencilWorkload>(false, seed);
            })
      .description("radius-3 stencil over 16M floats, every tap read from global memory")
      .bytes(stencil_bytes)
      .flops(stencil_flops);
  r.builder("stencil1d/shared",
            [](const Params&, std::uint64_t seed) -> std::unique_ptr<Workload> {
              return std::make_unique<StencilWorkload>(true, seed);
            })
      .description("radius-3 stencil over 16M floats, block inputs and halo staged in shared memory")
      .baseline("stencil1d/global")
      .bytes(stencil_bytes)
      .flops(stencil_flops);
}

}  // namespace gpuperf
