// A copy built for sm_75 alone, without PTX (tests/kernels/CMakeLists.txt): on every later chip the runtime has no
// image to run, as a user's binary built for one architecture meets another GPU.
#include <cuda_runtime.h>

#include "kernels/device_buffer.hpp"
#include "kernels/host_data.hpp"
#include "tests/kernels/broken_kernels.hpp"

namespace gpuperf::testing {
namespace {

__global__ void copy_sm75(const float* in, float* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

class TuringOnlyCopy : public Workload {
 public:
  TuringOnlyCopy(unsigned n, std::uint64_t seed) : n_(n), in_(n), out_(n) {
    expected_ = random_floats(n, seed, 75);
    in_.upload(expected_);
  }
  void launch(StreamHandle s) override {
    copy_sm75<<<blocks_for(n_, 256), 256, 0, s>>>(in_.get(), out_.get(), n_);
    GPUPERF_CUDA_CHECK_LAUNCH();
  }
  void poison_outputs(StreamHandle s) override { out_.poison(s); }
  Verification verify(StreamHandle s) override { return verify_equal(out_.download(s), expected_, "out"); }
  const void* kernel_function() const override { return reinterpret_cast<const void*>(&copy_sm75); }
  LaunchShape launch_shape() const override {
    LaunchShape l;
    l.grid[0] = blocks_for(n_, 256);
    l.block[0] = 256;
    return l;
  }

 private:
  unsigned n_;
  DeviceBuffer<float> in_, out_;
  std::vector<float> expected_;
};

}  // namespace

std::unique_ptr<Workload> make_turing_only_copy(unsigned n, std::uint64_t seed) {
  return std::make_unique<TuringOnlyCopy>(n, seed);
}

}  // namespace gpuperf::testing
