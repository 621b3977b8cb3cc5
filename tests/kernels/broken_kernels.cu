// Deliberately wrong copies, to show that verification catches what it should: the runner must record them
// as incorrect and never time them.
#include <cuda_runtime.h>

#include "kernels/device_buffer.hpp"
#include "kernels/host_data.hpp"
#include "tests/kernels/broken_kernels.hpp"

namespace gpuperf::testing {
namespace {

__global__ void copy_with_bug(const float* in, float* out, unsigned n, int bug) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (bug == static_cast<int>(Bug::skips_last) && i == n - 1) return;  // leaves the poison in place
  if (bug == static_cast<int>(Bug::off_by_one)) {
    out[i] = in[i + 1 < n ? i + 1 : i];
    return;
  }
  if (bug == static_cast<int>(Bug::one_element_off)) {
    out[i] = in[i] + (i == n / 2 ? 1e-3f : 0.0f);  // one element slightly off
    return;
  }
  out[i] = in[i];
}

class BuggyCopy : public Workload {
 public:
  BuggyCopy(Bug bug, unsigned n, std::uint64_t seed, unsigned block = 256)
      : bug_(bug), n_(n), block_(block), in_(n), out_(n) {
    expected_ = random_floats(n, seed, 99);
    in_.upload(expected_);
  }
  void launch(StreamHandle s) override {
    copy_with_bug<<<blocks_for(n_, block_), block_, 0, s>>>(in_.get(), out_.get(), n_, static_cast<int>(bug_));
    GPUPERF_CUDA_CHECK_LAUNCH();
  }
  void poison_outputs(StreamHandle s) override { out_.poison(s); }
  Verification verify(StreamHandle s) override { return verify_equal(out_.download(s), expected_, "out"); }
  const void* kernel_function() const override { return reinterpret_cast<const void*>(&copy_with_bug); }
  LaunchShape launch_shape() const override {
    LaunchShape l;
    l.grid[0] = blocks_for(n_, block_);
    l.block[0] = block_;
    return l;
  }

 private:
  Bug bug_;
  unsigned n_;
  unsigned block_;
  DeviceBuffer<float> in_, out_;
  std::vector<float> expected_;
};

}  // namespace

std::unique_ptr<Workload> make_buggy_copy(Bug bug, unsigned n, std::uint64_t seed) {
  return std::make_unique<BuggyCopy>(bug, n, seed);
}

std::unique_ptr<Workload> make_wide_copy(unsigned n, std::uint64_t seed) {
  return std::make_unique<BuggyCopy>(Bug::none, n, seed, 2048);
}

}  // namespace gpuperf::testing
