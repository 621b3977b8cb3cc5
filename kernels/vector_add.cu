// vector_add: c = a + b over 16M floats, one element per thread, with the block size as the axis.
// Small blocks hit the per-SM block limit before the thread limit (32 resident blocks on Hopper: 32-thread
// blocks fill only half of the 2048 thread slots); the launch-shape basics.
#include <cuda_runtime.h>

#include "kernels/device_buffer.hpp"
#include "kernels/families.hpp"
#include "kernels/host_data.hpp"

namespace gpuperf {
namespace {

constexpr std::int64_t kCount = std::int64_t{1} << 24;

__global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                           unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

class VectorAddWorkload : public Workload {
 public:
  VectorAddWorkload(unsigned block, std::uint64_t seed) : block_(block), a_(kCount), b_(kCount), c_(kCount) {
    const auto a = random_floats(a_.size(), seed, 41);
    const auto b = random_floats(b_.size(), seed, 42);
    a_.upload(a);
    b_.upload(b);
    // float + float is exactly rounded on both sides: the reference is the same float addition.
    HostWorkTimer timer(&HostWork::reference_s);
    expected_.resize(a.size());
    parallel_for(a.size(), [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) expected_[i] = a[i] + b[i];
    });
  }
  void launch(StreamHandle stream) override {
    vector_add<<<blocks_for(kCount, block_), block_, 0, stream>>>(a_.get(), b_.get(), c_.get(),
                                                                  static_cast<unsigned>(kCount));
    GPUPERF_CUDA_CHECK_LAUNCH();
  }
  void poison_outputs(StreamHandle stream) override { c_.poison(stream); }
  Verification verify(StreamHandle stream) override { return verify_equal(c_.download(stream), expected_, "c"); }
  void verified() override { release(expected_); }
  const void* kernel_function() const override { return reinterpret_cast<const void*>(&vector_add); }
  LaunchShape launch_shape() const override {
    LaunchShape s;
    s.grid[0] = blocks_for(kCount, block_);
    s.block[0] = block_;
    return s;
  }

 private:
  unsigned block_;
  DeviceBuffer<float> a_, b_, c_;
  std::vector<float> expected_;
};

}  // namespace

void register_vector_add(Registry& r) {
  r.builder(
       "vector_add/add",
       [](const Params& p, std::uint64_t seed) -> std::unique_ptr<Workload> {
         const auto block = int_param(p, "block", "vector_add/add");
         if (block < 32 || block > 1024 || block % 32 != 0) {
           throw InputError("vector_add/add: block must be a multiple of 32 in 32..1024, got " + std::to_string(block));
         }
         return std::make_unique<VectorAddWorkload>(static_cast<unsigned>(block), seed);
       })
      .description("c = a + b over 16M floats, one element per thread")
      .axis("block", {32, 64, 128, 256, 512, 1024})
      .bytes([](const Params&) { return 3.0 * kCount * sizeof(float); })
      .flops([](const Params&) { return static_cast<double>(kCount); });
}

}  // namespace gpuperf
