// occupancy: the same per-pixel polynomial y = sum_k c_k x^k (degree 15) over a 4096 x 4096 float image
// with different launch shapes and register budgets.
//   block2d        - one pixel per thread, square blocks of 8x8, 16x16 or 32x32 threads (Horner's rule).
//   register_heavy - 16x16 blocks, each thread evaluates 16 pixels at once with Estrin's scheme, keeping
//                    all of them live: many registers per thread, so fewer warps fit on an SM.
#include <cuda_runtime.h>

#include "kernels/device_buffer.hpp"
#include "kernels/families.hpp"
#include "kernels/host_data.hpp"

namespace gpuperf {
namespace {

constexpr int kWidth = 4096, kHeight = 4096;
constexpr int kDegree = 15;
constexpr int kPixelsPerThread = 16;  // register_heavy

struct Coefficients {
  float c[kDegree + 1];
};

__global__ void poly_block2d(const float* __restrict__ in, float* __restrict__ out, int width, int height,
                             Coefficients k) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const float v = in[y * width + x];
  float r = k.c[kDegree];
#pragma unroll
  for (int d = kDegree - 1; d >= 0; --d) r = fmaf(r, v, k.c[d]);
  out[y * width + x] = r;
}

// Thread (x, y) handles rows y, y + rows_per_pass, ...: all 16 loads are issued first, then every pixel's
// powers x^2, x^4, x^8 and the four Estrin quarters stay live together.
__global__ void __launch_bounds__(256)
    poly_register_heavy(const float* __restrict__ in, float* __restrict__ out, int width, int height, Coefficients k) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y0 = blockIdx.y * blockDim.y + threadIdx.y;
  const int pass = gridDim.y * blockDim.y;
  if (x >= width) return;
  float v[kPixelsPerThread], x2[kPixelsPerThread], x4[kPixelsPerThread], q[kPixelsPerThread][4];
#pragma unroll
  for (int p = 0; p < kPixelsPerThread; ++p) {
    const int y = y0 + p * pass;
    v[p] = y < height ? in[y * width + x] : 0.0f;
  }
#pragma unroll
  for (int p = 0; p < kPixelsPerThread; ++p) {
    x2[p] = v[p] * v[p];
    x4[p] = x2[p] * x2[p];
#pragma unroll
    for (int g = 0; g < 4; ++g) {  // q_g = c_4g + c_4g+1 x + (c_4g+2 + c_4g+3 x) x^2
      q[p][g] = fmaf(fmaf(k.c[4 * g + 3], v[p], k.c[4 * g + 2]), x2[p], fmaf(k.c[4 * g + 1], v[p], k.c[4 * g]));
    }
  }
#pragma unroll
  for (int p = 0; p < kPixelsPerThread; ++p) {
    const float lo = fmaf(q[p][1], x4[p], q[p][0]);
    const float hi = fmaf(q[p][3], x4[p], q[p][2]);
    const int y = y0 + p * pass;
    if (y < height) out[y * width + x] = fmaf(hi, x4[p] * x4[p], lo);
  }
}

class PolyWorkload : public Workload {
 public:
  PolyWorkload(bool heavy, unsigned block, std::uint64_t seed)
      : heavy_(heavy), block_(block), in_(static_cast<std::size_t>(kWidth) * kHeight), out_(in_.size()) {
    const auto in = random_floats(in_.size(), seed, 51);
    const auto coeffs = random_floats(kDegree + 1, seed, 52);
    for (int d = 0; d <= kDegree; ++d) k_.c[d] = coeffs[static_cast<std::size_t>(d)];
    in_.upload(in);
    HostWorkTimer timer(&HostWork::reference_s);
    expected_.resize(in.size());
    scale_.resize(in.size());
    parallel_for(in.size(), [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) {
        double sum = 0, mag = 0, power = 1;
        for (int d = 0; d <= kDegree; ++d) {
          const double t = static_cast<double>(k_.c[d]) * power;
          sum += t;
          mag += t < 0 ? -t : t;
          power *= in[i];
        }
        expected_[i] = sum;
        scale_[i] = mag;
      }
    });
  }
  void launch(StreamHandle stream) override {
    const LaunchShape s = launch_shape();
    const dim3 grid(s.grid[0], s.grid[1]), block(s.block[0], s.block[1]);
    if (heavy_) {
      poly_register_heavy<<<grid, block, 0, stream>>>(in_.get(), out_.get(), kWidth, kHeight, k_);
    } else {
      poly_block2d<<<grid, block, 0, stream>>>(in_.get(), out_.get(), kWidth, kHeight, k_);
    }
    GPUPERF_CUDA_CHECK_LAUNCH();
  }
  void poison_outputs(StreamHandle stream) override { out_.poison(stream); }
  Verification verify(StreamHandle stream) override {
    return verify_close(out_.download(stream), expected_, scale_, Tolerance{1e-5, 1e-7}, "out",
                        index_2d(static_cast<std::size_t>(kWidth)));
  }
  void verified() override {
    release(expected_);
    release(scale_);
  }
  const void* kernel_function() const override {
    return heavy_ ? reinterpret_cast<const void*>(&poly_register_heavy) : reinterpret_cast<const void*>(&poly_block2d);
  }
  LaunchShape launch_shape() const override {
    LaunchShape s;
    s.block[0] = s.block[1] = block_;
    s.grid[0] = blocks_for(kWidth, block_);
    const std::int64_t rows = heavy_ ? (kHeight + kPixelsPerThread - 1) / kPixelsPerThread : kHeight;
    s.grid[1] = blocks_for(rows, block_);
    return s;
  }

 private:
  bool heavy_;
  unsigned block_;
  Coefficients k_{};
  DeviceBuffer<float> in_, out_;
  std::vector<double> expected_, scale_;
};

template <bool Heavy>
std::unique_ptr<Workload> make_poly(const Params& p, std::uint64_t seed) {
  const char* name = Heavy ? "occupancy/register_heavy" : "occupancy/block2d";
  const auto block = int_param(p, "block", name);
  if (block != 8 && block != 16 && block != 32) {
    throw InputError(std::string(name) + ": block must be 8, 16 or 32, got " + std::to_string(block));
  }
  return std::make_unique<PolyWorkload>(Heavy, static_cast<unsigned>(block), seed);
}

double poly_bytes(const Params&) { return 2.0 * kWidth * kHeight * sizeof(float); }
double poly_flops(const Params&) { return 2.0 * kDegree * kWidth * kHeight; }  // Horner: one FMA per degree

}  // namespace

void register_occupancy(Registry& r) {
  r.builder("occupancy/block2d", make_poly<false>)
      .description("degree-15 polynomial per pixel of a 4096^2 image, square blocks of block x block threads")
      .axis("block", {8, 16, 32})
      .bytes(poly_bytes)
      .flops(poly_flops);
  r.builder("occupancy/register_heavy", make_poly<true>)
      .description("the same polynomial, 16 pixels per thread kept live: high register count, lower occupancy")
      .baseline("occupancy/block2d")
      .axis("block", {16})
      .bytes(poly_bytes)
      .flops(poly_flops);
}

}  // namespace gpuperf
