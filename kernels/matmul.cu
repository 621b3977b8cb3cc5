// matmul: C = A B for square n x n row-major float matrices.
//   naive  - every thread reads a row of A and a column of B from global memory (2n loads per output).
//   tiled  - TILE x TILE tiles of A and B staged in shared memory: global traffic falls by TILE, shared
//            loads appear. Sizes that are not multiples of the tile exercise the guards (zero-filled tiles).
#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "kernels/device_buffer.hpp"
#include "kernels/families.hpp"
#include "kernels/host_data.hpp"

namespace gpuperf {
namespace {

constexpr int kNaiveBlock = 16;

__global__ void matmul_naive(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
  c[row * n + col] = sum;
}

template <int TILE>
__global__ void matmul_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    // Out-of-range elements load as 0 so the partial tile at the edge adds nothing.
    as[ty][tx] = (row < n && t + tx < n) ? a[row * n + t + tx] : 0.0f;
    bs[ty][tx] = (t + ty < n && col < n) ? b[(t + ty) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) sum += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = sum;
}

// The CPU reference in double, with sum |a_ik b_kj| per element as the tolerance scale. Shared by the
// variants of one run (same n and seed give the same inputs), so it is computed once per size.
struct Reference {
  std::vector<double> value;
  std::vector<double> scale;
};

std::shared_ptr<const Reference> reference(int n, std::uint64_t seed, const std::vector<float>& a,
                                           const std::vector<float>& b) {
  static std::mutex mutex;
  static std::map<std::pair<int, std::uint64_t>, std::shared_ptr<const Reference>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(n, seed);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  HostWorkTimer timer(&HostWork::reference_s);
  auto ref = std::make_shared<Reference>();
  const std::size_t nn = static_cast<std::size_t>(n);
  ref->value.assign(nn * nn, 0.0);
  ref->scale.assign(nn * nn, 0.0);
  parallel_for(
      nn,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          double* v = &ref->value[i * nn];
          double* s = &ref->scale[i * nn];
          for (std::size_t k = 0; k < nn; ++k) {  // i-k-j order: rows of B stream through the cache
            const double aik = a[i * nn + k];
            const float* brow = &b[k * nn];
            for (std::size_t j = 0; j < nn; ++j) {
              const double p = aik * static_cast<double>(brow[j]);
              v[j] += p;
              s[j] += p < 0 ? -p : p;
            }
          }
        }
      },
      /*grain=*/1);                      // a row is n^2 multiply-adds
  if (cache.size() >= 4) cache.clear();  // bounded: a run uses a couple of sizes
  cache.emplace(key, ref);
  return ref;
}

enum class Variant { naive, tiled16, tiled32 };

class MatmulWorkload : public Workload {
 public:
  MatmulWorkload(Variant variant, int n, std::uint64_t seed)
      : variant_(variant), n_(n), a_(static_cast<std::size_t>(n) * n), b_(a_.size()), c_(a_.size()) {
    const auto a = random_floats(a_.size(), seed, 1);
    const auto b = random_floats(b_.size(), seed, 2);
    a_.upload(a);
    b_.upload(b);
    ref_ = reference(n, seed, a, b);
  }

  void launch(StreamHandle stream) override {
    const LaunchShape s = launch_shape();
    const dim3 grid(s.grid[0], s.grid[1]), block(s.block[0], s.block[1]);
    switch (variant_) {
      case Variant::naive: matmul_naive<<<grid, block, 0, stream>>>(a_.get(), b_.get(), c_.get(), n_); break;
      case Variant::tiled16: matmul_tiled<16><<<grid, block, 0, stream>>>(a_.get(), b_.get(), c_.get(), n_); break;
      case Variant::tiled32: matmul_tiled<32><<<grid, block, 0, stream>>>(a_.get(), b_.get(), c_.get(), n_); break;
    }
    GPUPERF_CUDA_CHECK_LAUNCH();
  }
  void poison_outputs(StreamHandle stream) override { c_.poison(stream); }
  Verification verify(StreamHandle stream) override {
    // fp32 accumulation over n terms against a double reference: allow ~300 ulps of sum |a b|.
    return verify_close(c_.download(stream), ref_->value, ref_->scale, Tolerance{4e-5, 1e-6}, "c",
                        index_2d(static_cast<std::size_t>(n_)));
  }
  void verified() override { ref_.reset(); }  // the per-size cache keeps it for the other variants
  const void* kernel_function() const override {
    switch (variant_) {
      case Variant::naive: return reinterpret_cast<const void*>(&matmul_naive);
      case Variant::tiled16: return reinterpret_cast<const void*>(&matmul_tiled<16>);
      case Variant::tiled32: break;
    }
    return reinterpret_cast<const void*>(&matmul_tiled<32>);
  }
  LaunchShape launch_shape() const override {
    const unsigned t = variant_ == Variant::naive ? kNaiveBlock : variant_ == Variant::tiled16 ? 16 : 32;
    LaunchShape s;
    s.block[0] = s.block[1] = t;
    s.grid[0] = s.grid[1] = blocks_for(n_, t);
    return s;
  }

 private:
  Variant variant_;
  int n_;
  DeviceBuffer<float> a_, b_, c_;
  std::shared_ptr<const Reference> ref_;
};

double matmul_bytes(const Params& p) {
  const double n = static_cast<double>(int_param(p, "n", "matmul"));
  return 3.0 * n * n * sizeof(float);  // A and B read once, C written once
}
double matmul_flops(const Params& p) {
  const double n = static_cast<double>(int_param(p, "n", "matmul"));
  return 2.0 * n * n * n;
}

}  // namespace

void register_matmul(Registry& r) {
  // 1024 is a multiple of both tiles; 1000 is neither, so the edge tiles' guards are exercised.
  const std::vector<std::int64_t> sizes{1024, 1000};
  r.builder("matmul/naive",
            [](const Params& p, std::uint64_t seed) -> std::unique_ptr<Workload> {
              return std::make_unique<MatmulWorkload>(Variant::naive,
                                                      static_cast<int>(int_param(p, "n", "matmul/naive")), seed);
            })
      .description("one thread per element of C, A and B read straight from global memory (16x16 blocks)")
      .axis("n", sizes)
      .bytes(matmul_bytes)
      .flops(matmul_flops);
  r.builder("matmul/tiled",
            [](const Params& p, std::uint64_t seed) -> std::unique_ptr<Workload> {
              const auto tile = int_param(p, "tile", "matmul/tiled");
              if (tile != 16 && tile != 32) {
                throw InputError("matmul/tiled: tile must be 16 or 32, got " + std::to_string(tile));
              }
              return std::make_unique<MatmulWorkload>(tile == 16 ? Variant::tiled16 : Variant::tiled32,
                                                      static_cast<int>(int_param(p, "n", "matmul/tiled")), seed);
            })
      .description("TILE x TILE tiles of A and B staged in shared memory: global loads fall by TILE")
      .baseline("matmul/naive")
      .axis("n", sizes)
      .axis("tile", {16, 32})
      .bytes(matmul_bytes)
      .flops(matmul_flops);
}

}  // namespace gpuperf
