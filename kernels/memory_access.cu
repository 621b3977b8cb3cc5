// memory: one copy of 16M floats (64 MiB in, 64 MiB out, larger than the 50 MB L2 of an H200) through
// different access patterns. Writes stay coalesced; only the read pattern changes.
//   coalesced  - thread i reads element i: every 32-byte sector fetched is fully used (100% efficiency).
//   strided    - consecutive threads read elements `stride` apart (every element still read once):
//                one 4-byte word used per sector at stride >= 8 (12.5%).
//   misaligned - thread i reads element i + offset: each warp's 128 bytes straddle a line boundary.
//   broadcast  - all 32 threads of a warp read the same address (one transaction serves the warp).
//   scattered  - thread i reads a random element (a permutation): no locality at all.
#include <cuda_runtime.h>

#include "kernels/device_buffer.hpp"
#include "kernels/families.hpp"
#include "kernels/host_data.hpp"

namespace gpuperf {
namespace {

constexpr std::int64_t kCount = std::int64_t{1} << 24;  // 16M floats
constexpr unsigned kBlock = 256;

__global__ void copy_coalesced(const float* __restrict__ in, float* __restrict__ out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// Thread i reads in[(i mod rows) * stride + i / rows] with rows = n / stride: neighbours are `stride`
// elements apart, and every element is read exactly once. n and stride are powers of two.
__global__ void copy_strided(const float* __restrict__ in, float* __restrict__ out, unsigned n, unsigned stride_log2,
                             unsigned rows_log2) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned src = ((i & ((1u << rows_log2) - 1u)) << stride_log2) + (i >> rows_log2);
  out[i] = in[src];
}

__global__ void copy_misaligned(const float* __restrict__ in, float* __restrict__ out, unsigned n, unsigned offset) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + offset];
}

__global__ void copy_broadcast(const float* __restrict__ in, float* __restrict__ out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i >> 5];  // one address per warp
}

__global__ void copy_scattered(const float* __restrict__ in, const unsigned* __restrict__ index,
                               float* __restrict__ out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[index[i]];
}

enum class Pattern { coalesced, strided, misaligned, broadcast, scattered };

unsigned log2_exact(std::int64_t v, const char* what) {
  unsigned l = 0;
  while ((std::int64_t{1} << l) < v) ++l;
  if ((std::int64_t{1} << l) != v) throw InputError(std::string("memory/strided: ") + what + " must be a power of two");
  return l;
}

class CopyWorkload : public Workload {
 public:
  CopyWorkload(Pattern pattern, std::int64_t arg, std::uint64_t seed) : pattern_(pattern), arg_(arg), out_(kCount) {
    const std::size_t n = static_cast<std::size_t>(kCount);
    std::size_t in_count = n;
    if (pattern == Pattern::misaligned) in_count = n + static_cast<std::size_t>(arg);
    if (pattern == Pattern::broadcast) in_count = n / 32;
    const auto in = random_floats(in_count, seed, 11);
    in_ = DeviceBuffer<float>(in_count);
    in_.upload(in);
    std::vector<std::uint32_t> perm;
    if (pattern == Pattern::scattered) perm = random_permutation(n, seed, 12);
    HostWorkTimer timer(&HostWork::reference_s);
    expected_.resize(n);
    switch (pattern) {
      case Pattern::coalesced: expected_ = in; break;
      case Pattern::strided: {
        if (arg <= 0 || arg > kCount)
          throw InputError("memory/strided: stride must be in 1.." + std::to_string(kCount));
        stride_log2_ = log2_exact(arg, "stride");
        rows_log2_ = log2_exact(kCount / arg, "n / stride");
        const std::size_t rows_mask = (std::size_t{1} << rows_log2_) - 1;
        parallel_for(n, [&](std::size_t b, std::size_t e) {
          for (std::size_t i = b; i < e; ++i) expected_[i] = in[((i & rows_mask) << stride_log2_) + (i >> rows_log2_)];
        });
        break;
      }
      case Pattern::misaligned:
        if (arg < 0) throw InputError("memory/misaligned: offset must be >= 0");
        parallel_for(n, [&](std::size_t b, std::size_t e) {
          for (std::size_t i = b; i < e; ++i) expected_[i] = in[i + static_cast<std::size_t>(arg)];
        });
        break;
      case Pattern::broadcast:
        parallel_for(n, [&](std::size_t b, std::size_t e) {
          for (std::size_t i = b; i < e; ++i) expected_[i] = in[i >> 5];
        });
        break;
      case Pattern::scattered: {
        index_ = DeviceBuffer<unsigned>(n);
        index_.upload(perm);
        parallel_for(n, [&](std::size_t b, std::size_t e) {
          for (std::size_t i = b; i < e; ++i) expected_[i] = in[perm[i]];
        });
        break;
      }
    }
  }

  void launch(StreamHandle stream) override {
    const unsigned grid = blocks_for(kCount, kBlock);
    const auto n = static_cast<unsigned>(kCount);
    switch (pattern_) {
      case Pattern::coalesced: copy_coalesced<<<grid, kBlock, 0, stream>>>(in_.get(), out_.get(), n); break;
      case Pattern::strided:
        copy_strided<<<grid, kBlock, 0, stream>>>(in_.get(), out_.get(), n, stride_log2_, rows_log2_);
        break;
      case Pattern::misaligned:
        copy_misaligned<<<grid, kBlock, 0, stream>>>(in_.get(), out_.get(), n, static_cast<unsigned>(arg_));
        break;
      case Pattern::broadcast: copy_broadcast<<<grid, kBlock, 0, stream>>>(in_.get(), out_.get(), n); break;
      case Pattern::scattered:
        copy_scattered<<<grid, kBlock, 0, stream>>>(in_.get(), index_.get(), out_.get(), n);
        break;
    }
    GPUPERF_CUDA_CHECK_LAUNCH();
  }
  void poison_outputs(StreamHandle stream) override { out_.poison(stream); }
  Verification verify(StreamHandle stream) override { return verify_equal(out_.download(stream), expected_, "out"); }
  void verified() override { release(expected_); }
  const void* kernel_function() const override {
    switch (pattern_) {
      case Pattern::coalesced: return reinterpret_cast<const void*>(&copy_coalesced);
      case Pattern::strided: return reinterpret_cast<const void*>(&copy_strided);
      case Pattern::misaligned: return reinterpret_cast<const void*>(&copy_misaligned);
      case Pattern::broadcast: return reinterpret_cast<const void*>(&copy_broadcast);
      case Pattern::scattered: break;
    }
    return reinterpret_cast<const void*>(&copy_scattered);
  }
  LaunchShape launch_shape() const override {
    LaunchShape s;
    s.grid[0] = blocks_for(kCount, kBlock);
    s.block[0] = kBlock;
    return s;
  }

 private:
  Pattern pattern_;
  std::int64_t arg_;
  unsigned stride_log2_ = 0, rows_log2_ = 0;
  DeviceBuffer<float> in_, out_;
  DeviceBuffer<unsigned> index_;
  std::vector<float> expected_;
};

constexpr double kCopyBytes = 2.0 * kCount * sizeof(float);  // each element read once, written once

template <Pattern P>
std::unique_ptr<Workload> make_copy(const Params& p, std::uint64_t seed) {
  std::int64_t arg = 0;
  if (P == Pattern::strided) arg = int_param(p, "stride", "memory/strided");
  if (P == Pattern::misaligned) arg = int_param(p, "offset", "memory/misaligned");
  return std::make_unique<CopyWorkload>(P, arg, seed);
}

}  // namespace

void register_memory_access(Registry& r) {
  r.builder("memory/coalesced", make_copy<Pattern::coalesced>)
      .description("copy of 16M floats, thread i reads element i: fully used sectors")
      .bytes([](const Params&) { return kCopyBytes; })
      .flops([](const Params&) { return 0.0; });
  r.builder("memory/strided", make_copy<Pattern::strided>)
      .description("copy of 16M floats, neighbouring threads read `stride` elements apart")
      .baseline("memory/coalesced")
      .axis("stride", {1, 2, 4, 8, 16, 32})
      .bytes([](const Params&) { return kCopyBytes; })
      .flops([](const Params&) { return 0.0; });
  r.builder("memory/misaligned", make_copy<Pattern::misaligned>)
      .description("copy of 16M floats read `offset` elements past an aligned start")
      .baseline("memory/coalesced")
      .axis("offset", {1})
      .bytes([](const Params&) { return kCopyBytes; })
      .flops([](const Params&) { return 0.0; });
  r.builder("memory/broadcast", make_copy<Pattern::broadcast>)
      .description("16M floats written, each warp's 32 threads read one shared address")
      .baseline("memory/coalesced")
      .bytes([](const Params&) { return (kCount + kCount / 32.0) * sizeof(float); })
      .flops([](const Params&) { return 0.0; });
  r.builder("memory/scattered", make_copy<Pattern::scattered>)
      .description("copy of 16M floats through a random permutation (index array read coalesced)")
      .baseline("memory/coalesced")
      .bytes([](const Params&) { return kCopyBytes + kCount * sizeof(unsigned); })
      .flops([](const Params&) { return 0.0; });
}

}  // namespace gpuperf
