#include "profiler/gpu/cuda_timing_device.hpp"

#include <cuda_runtime.h>

#include "kernels/cuda_check.hpp"

namespace gpuperf::gpu {
namespace {

// How long the probe watches the clocks. %globaltimer may tick coarsely (up to 1 us on some parts), so
// both ends are aligned to a tick edge and the window is long against a tick: < 1% error.
constexpr unsigned kProbeWindowNs = 20000;

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread: SM cycles (clock64) elapsed over a window of %globaltimer nanoseconds.
__global__ void gpuperf_clock_probe(unsigned long long* out) {
  const unsigned long long edge = global_ns();
  unsigned long long t0;
  do {
    t0 = global_ns();
  } while (t0 == edge);
  const long long c0 = clock64();
  unsigned long long t1;
  do {
    t1 = global_ns();
  } while (t1 - t0 < kProbeWindowNs);
  const long long c1 = clock64();
  out[0] = static_cast<unsigned long long>(c1 - c0);
  out[1] = t1 - t0;
}

}  // namespace

CudaTimingDevice::CudaTimingDevice(std::size_t clock_slots, FlushMethod flush)
    : flush_method_(flush), slots_(clock_slots) {
  int device = 0, l2 = 0, khz = 0;
  GPUPERF_CUDA_CHECK(cudaGetDevice(&device));
  GPUPERF_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  GPUPERF_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  reference_mhz_ = khz / 1000.0;
  int sms = 0;
  GPUPERF_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  flush_ = std::make_unique<L2Flush>(l2 > 0 ? static_cast<std::size_t>(l2) : std::size_t{64} << 20, sms);
  flush_->allocate();  // outside the measured loop
  if (slots_ > 0) {
    GPUPERF_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&clocks_), 2 * slots_ * sizeof(unsigned long long)));
  }
}

CudaTimingDevice::~CudaTimingDevice() {
  if (clocks_ != nullptr) cudaFree(clocks_);
}

void CudaTimingDevice::flush_l2(StreamHandle stream) { flush_->flush(stream, flush_method_); }

void CudaTimingDevice::record_clock(StreamHandle stream, std::size_t slot) {
  if (slot >= slots_) throw Error("clock slot " + std::to_string(slot) + " out of range", kExitUsage);
  gpuperf_clock_probe<<<1, 1, 0, stream>>>(clocks_ + 2 * slot);
  GPUPERF_CUDA_CHECK_LAUNCH();
}

void CudaTimingDevice::synchronize(StreamHandle stream) { GPUPERF_CUDA_CHECK(cudaStreamSynchronize(stream)); }

std::vector<double> CudaTimingDevice::read_clocks_mhz(std::size_t count) {
  count = std::min(count, slots_);
  std::vector<unsigned long long> raw(2 * count);
  if (count > 0) {
    GPUPERF_CUDA_CHECK(
        cudaMemcpy(raw.data(), clocks_, raw.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  }
  std::vector<double> mhz(count, 0.0);
  for (std::size_t i = 0; i < count; ++i) {
    // cycles per ns * 1000 = MHz
    if (raw[2 * i + 1] > 0) mhz[i] = 1000.0 * static_cast<double>(raw[2 * i]) / static_cast<double>(raw[2 * i + 1]);
  }
  return mhz;
}

}  // namespace gpuperf::gpu
