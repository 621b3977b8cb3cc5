// matvec: y = A x with A column-major, m x n (A[j * m + i]); one thread per row, so a warp's loads of a
// column of A are contiguous. m and n are deliberately not multiples of the block (guards for the edges).
//   naive  - every thread reads all of x from global memory (served by the caches, still n loads each).
//   shared - the block stages x in shared-memory tiles of blockDim elements, one global load per element
//            per block; the last tile is partial.
#include <cuda_runtime.h>

#include "kernels/device_buffer.hpp"
#include "kernels/families.hpp"
#include "kernels/host_data.hpp"

namespace gpuperf {
namespace {

constexpr int kBlock = 256;

__global__ void matvec_naive(const float* __restrict__ a, const float* __restrict__ x, float* __restrict__ y, int m,
                             int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  float sum = 0.0f;
  for (int j = 0; j < n; ++j) sum += a[static_cast<size_t>(j) * m + i] * x[j];
  y[i] = sum;
}

__global__ void matvec_shared(const float* __restrict__ a, const float* __restrict__ x, float* __restrict__ y, int m,
                              int n) {
  __shared__ float xs[kBlock];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (int base = 0; base < n; base += kBlock) {
    // Every thread helps load the tile, also those past the last row; the tile may be partial.
    if (base + threadIdx.x < n) xs[threadIdx.x] = x[base + threadIdx.x];
    __syncthreads();
    const int count = min(kBlock, n - base);
    if (i < m) {
      for (int j = 0; j < count; ++j) sum += a[static_cast<size_t>(base + j) * m + i] * xs[j];
    }
    __syncthreads();
  }
  if (i < m) y[i] = sum;
}

class MatvecWorkload : public Workload {
 public:
  MatvecWorkload(bool shared, int m, int n, std::uint64_t seed)
      : shared_(shared), m_(m), n_(n), a_(static_cast<std::size_t>(m) * n), x_(n), y_(m) {
    const auto a = random_floats(a_.size(), seed, 31);
    const auto x = random_floats(x_.size(), seed, 32);
    a_.upload(a);
    x_.upload(x);
    HostWorkTimer timer(&HostWork::reference_s);
    const std::size_t rows = static_cast<std::size_t>(m);
    expected_.assign(rows, 0.0);
    scale_.assign(rows, 0.0);
    parallel_for(rows, [&](std::size_t b, std::size_t e) {
      for (std::size_t j = 0; j < static_cast<std::size_t>(n); ++j) {  // column by column: contiguous in A
        const double xj = x[j];
        const float* col = &a[j * rows];
        for (std::size_t i = b; i < e; ++i) {
          const double p = static_cast<double>(col[i]) * xj;
          expected_[i] += p;
          scale_[i] += p < 0 ? -p : p;
        }
      }
    });
  }

  void launch(StreamHandle stream) override {
    const unsigned grid = blocks_for(m_, kBlock);
    if (shared_) {
      matvec_shared<<<grid, kBlock, 0, stream>>>(a_.get(), x_.get(), y_.get(), m_, n_);
    } else {
      matvec_naive<<<grid, kBlock, 0, stream>>>(a_.get(), x_.get(), y_.get(), m_, n_);
    }
    GPUPERF_CUDA_CHECK_LAUNCH();
  }
  void poison_outputs(StreamHandle stream) override { y_.poison(stream); }
  Verification verify(StreamHandle stream) override {
    return verify_close(y_.download(stream), expected_, scale_, Tolerance{2e-5, 1e-7}, "y");
  }
  void verified() override {
    release(expected_);
    release(scale_);
  }
  const void* kernel_function() const override {
    return shared_ ? reinterpret_cast<const void*>(&matvec_shared) : reinterpret_cast<const void*>(&matvec_naive);
  }
  LaunchShape launch_shape() const override {
    LaunchShape s;
    s.grid[0] = blocks_for(m_, kBlock);
    s.block[0] = kBlock;
    return s;
  }

 private:
  bool shared_;
  int m_, n_;
  DeviceBuffer<float> a_, x_, y_;
  std::vector<double> expected_, scale_;
};

template <bool Shared>
std::unique_ptr<Workload> make_matvec(const Params& p, std::uint64_t seed) {
  const char* name = Shared ? "matvec/shared" : "matvec/naive";
  const auto m = int_param(p, "m", name), n = int_param(p, "n", name);
  if (m <= 0 || n <= 0 || m * n > (std::int64_t{1} << 31)) {
    throw InputError(std::string(name) + ": m and n must be positive with m * n <= 2^31");
  }
  return std::make_unique<MatvecWorkload>(Shared, static_cast<int>(m), static_cast<int>(n), seed);
}

double matvec_bytes(const Params& p) {
  const double m = static_cast<double>(int_param(p, "m", "matvec")),
               n = static_cast<double>(int_param(p, "n", "matvec"));
  return (m * n + n + m) * sizeof(float);  // A and x read once, y written once
}
double matvec_flops(const Params& p) {
  return 2.0 * static_cast<double>(int_param(p, "m", "matvec")) * static_cast<double>(int_param(p, "n", "matvec"));
}

}  // namespace

void register_matvec(Registry& r) {
  // 100000 rows (390.6 blocks of 256) by 1000 columns (3.9 tiles of 256): 400 MB of A.
  r.builder("matvec/naive", make_matvec<false>)
      .description("y = A x, column-major A, each thread reads all of x from global memory")
      .axis("m", {100000})
      .axis("n", {1000})
      .bytes(matvec_bytes)
      .flops(matvec_flops);
  r.builder("matvec/shared", make_matvec<true>)
      .description("y = A x, column-major A, x staged per block in shared-memory tiles (partial last tile)")
      .baseline("matvec/naive")
      .axis("m", {100000})
      .axis("n", {1000})
      .bytes(matvec_bytes)
      .flops(matvec_flops);
}

}  // namespace gpuperf
