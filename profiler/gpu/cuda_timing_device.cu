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

// Loads every 16-byte word of the buffer once (grid-stride); the XOR of everything is written only if it
// matches a value it never has, so the loads cannot be optimised away and nothing is stored.
__global__ void gpuperf_l2_flush(const int4* __restrict__ buf, size_t words, int* sink) {
  int acc = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const int4 v = buf[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7FFFFFFF && threadIdx.x == 0x3FF) *sink = acc;
}

}  // namespace

CudaTimingDevice::CudaTimingDevice(std::size_t clock_slots, FlushMethod flush)
    : flush_method_(flush), slots_(clock_slots) {
  int device = 0, l2 = 0, khz = 0;
  GPUPERF_CUDA_CHECK(cudaGetDevice(&device));
  GPUPERF_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  GPUPERF_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  reference_mhz_ = khz / 1000.0;
  flush_bytes_ = (2 * static_cast<std::size_t>(l2 > 0 ? l2 : (64 << 20)) + 15) / 16 * 16;
  GPUPERF_CUDA_CHECK(cudaMalloc(&flush_, flush_bytes_));
  GPUPERF_CUDA_CHECK(cudaMemset(flush_, 0x5A, flush_bytes_));
  GPUPERF_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&flush_sink_), sizeof(int)));
  int sms = 0;
  GPUPERF_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  flush_blocks_ = static_cast<unsigned>(4 * (sms > 0 ? sms : 1));
  if (slots_ > 0) {
    GPUPERF_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&clocks_), 2 * slots_ * sizeof(unsigned long long)));
  }
}

CudaTimingDevice::~CudaTimingDevice() {
  if (flush_ != nullptr) cudaFree(flush_);
  if (clocks_ != nullptr) cudaFree(clocks_);
  if (flush_sink_ != nullptr) cudaFree(flush_sink_);
}

void CudaTimingDevice::flush_l2(StreamHandle stream) {
  if (flush_method_ == FlushMethod::read) {
    gpuperf_l2_flush<<<flush_blocks_, 512, 0, stream>>>(static_cast<const int4*>(flush_), flush_bytes_ / sizeof(int4),
                                                        flush_sink_);
    GPUPERF_CUDA_CHECK_LAUNCH();
    return;
  }
  // A different byte each time, so no write can be skipped as unchanged.
  flush_value_ = (flush_value_ + 1) & 0xFF;
  GPUPERF_CUDA_CHECK(cudaMemsetAsync(flush_, flush_value_, flush_bytes_, stream));
}

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
