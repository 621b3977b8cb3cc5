// transpose: out = in^T for a 4096 x 4096 float matrix, 32 x 32 tiles handled by 32 x 8 thread blocks
// (each thread moves 4 elements).
//   naive   - reads coalesced, writes strided by n (every store of a warp touches 32 lines).
//   shared  - a tile is staged in shared memory so both reads and writes are coalesced; reading the tile
//             by column makes all 32 threads of a warp hit one bank (32-way conflicts).
//   padded  - the same with one float of padding per tile row: the column reads spread over all banks.
#include <cuda_runtime.h>

#include "kernels/device_buffer.hpp"
#include "kernels/families.hpp"
#include "kernels/host_data.hpp"

namespace gpuperf {
namespace {

constexpr int kTile = 32;
constexpr int kRows = 8;  // threads per block in y; each covers kTile / kRows rows of the tile

__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y0 = blockIdx.y * kTile + threadIdx.y;
  if (x >= n) return;
  for (int j = 0; j < kTile; j += kRows) {
    const int y = y0 + j;
    if (y < n) out[static_cast<size_t>(x) * n + y] = in[static_cast<size_t>(y) * n + x];
  }
}

template <int Pad>
__global__ void transpose_shared(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kTile][kTile + Pad];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[static_cast<size_t>(y + j) * n + x];
  }
  __syncthreads();
  // The block writes the transposed tile: swap the block coordinates, read the tile by column.
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) out[static_cast<size_t>(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

enum class Variant { naive, shared, padded };

class TransposeWorkload : public Workload {
 public:
  TransposeWorkload(Variant v, int n, std::uint64_t seed)
      : v_(v), n_(n), in_(static_cast<std::size_t>(n) * n), out_(in_.size()) {
    const auto in = random_floats(in_.size(), seed, 61);
    in_.upload(in);
    HostWorkTimer timer(&HostWork::reference_s);
    const std::size_t nn = static_cast<std::size_t>(n);
    expected_.resize(in.size());
    parallel_for(
        nn,
        [&](std::size_t lo, std::size_t hi) {
          for (std::size_t r = lo; r < hi; ++r) {
            for (std::size_t c = 0; c < nn; ++c) expected_[r * nn + c] = in[c * nn + r];
          }
        },
        /*grain=*/1);  // a row is n elements
  }
  void launch(StreamHandle stream) override {
    const LaunchShape s = launch_shape();
    const dim3 grid(s.grid[0], s.grid[1]), block(s.block[0], s.block[1]);
    switch (v_) {
      case Variant::naive: transpose_naive<<<grid, block, 0, stream>>>(in_.get(), out_.get(), n_); break;
      case Variant::shared: transpose_shared<0><<<grid, block, 0, stream>>>(in_.get(), out_.get(), n_); break;
      case Variant::padded: transpose_shared<1><<<grid, block, 0, stream>>>(in_.get(), out_.get(), n_); break;
    }
    GPUPERF_CUDA_CHECK_LAUNCH();
  }
  void poison_outputs(StreamHandle stream) override { out_.poison(stream); }
  Verification verify(StreamHandle stream) override {
    return verify_equal(out_.download(stream), expected_, "out", index_2d(static_cast<std::size_t>(n_)));
  }
  void verified() override { release(expected_); }
  const void* kernel_function() const override {
    switch (v_) {
      case Variant::naive: return reinterpret_cast<const void*>(&transpose_naive);
      case Variant::shared: return reinterpret_cast<const void*>(&transpose_shared<0>);
      case Variant::padded: break;
    }
    return reinterpret_cast<const void*>(&transpose_shared<1>);
  }
  LaunchShape launch_shape() const override {
    LaunchShape s;
    s.block[0] = kTile;
    s.block[1] = kRows;
    s.grid[0] = s.grid[1] = blocks_for(n_, kTile);
    return s;
  }

 private:
  Variant v_;
  int n_;
  DeviceBuffer<float> in_, out_;
  std::vector<float> expected_;
};

template <Variant V>
std::unique_ptr<Workload> make_transpose(const Params& p, std::uint64_t seed) {
  return std::make_unique<TransposeWorkload>(V, static_cast<int>(int_param(p, "n", "transpose")), seed);
}

double transpose_bytes(const Params& p) {
  const double n = static_cast<double>(int_param(p, "n", "transpose"));
  return 2.0 * n * n * sizeof(float);
}

}  // namespace

void register_transpose(Registry& r) {
  r.builder("transpose/naive", make_transpose<Variant::naive>)
      .description("out = in^T, reads coalesced, writes strided by n")
      .axis("n", {4096})
      .bytes(transpose_bytes)
      .flops([](const Params&) { return 0.0; });
  r.builder("transpose/shared", make_transpose<Variant::shared>)
      .description("32x32 tiles staged in shared memory: coalesced both ways, 32-way bank conflicts")
      .baseline("transpose/naive")
      .axis("n", {4096})
      .bytes(transpose_bytes)
      .flops([](const Params&) { return 0.0; });
  r.builder("transpose/padded", make_transpose<Variant::padded>)
      .description("shared-memory tiles padded to 33 columns: no bank conflicts")
      .baseline("transpose/shared")  // the pair that shows the bank conflicts
      .axis("n", {4096})
      .bytes(transpose_bytes)
      .flops([](const Params&) { return 0.0; });
}

}  // namespace gpuperf
