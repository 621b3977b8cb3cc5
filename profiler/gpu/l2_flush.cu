#include "profiler/gpu/l2_flush.hpp"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/cuda_check.hpp"

namespace gpuperf::gpu {
namespace {

constexpr int kFlushThreads = 512;

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

// write_discard, in two steps:
//  1. write all of the buffer. Write-allocation evicts every line in L2, so whatever was dirty (the previous
//     kernel's output) is written back now, outside any profiled range;
//  2. drop each of the buffer's 128-byte lines from L2 without writing it back.
// Measured on an H200 (bench/gpu/ncu_compare.sh's history, 2026-11-22): the read flush left L2 full of clean
// lines but also left tens of kB of older dirty lines in it, which the next kernel then wrote back
// (matmul/naive[n=1024]: 56-86 kB written where ncu reads 0-256 B); with this flush it reads 0. Reading twice
// as much (4x L2) cleaned it too; clean-full vs empty made no measurable difference to any other instance.
// Step 2 may start only when every write of step 1 is done (a line discarded before another block's write
// to it would be written back later, in the profiled kernel). One cooperative kernel with a grid-wide
// barrier between the steps does both: in auto ranges every kernel costs CUPTI a range in every pass
// (about 1.5 ms each on an H100), so one kernel instead of two takes a range per instance and pass off the
// speed-of-light session. A device without cooperative launch gets the two kernels, the kernel boundary
// being the barrier.
__device__ void flush_write(int4* __restrict__ buf, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    buf[i] = make_int4(1, 1, 1, 1);
  }
}

// Step 2. Turing (sm_75) has no discard.global.L2: there the step reads a second buffer of the same size instead
// (`evict`, one word of each 32-byte sector), so the lines step 1 left dirty are written back now, during the
// flush, and L2 holds only clean lines of that buffer, which the profiled kernel evicts without writing anything
// back. A cold start for every read the kernel makes, as after a discard; L2 full of clean lines rather than
// empty (no measurable difference on an H200, above).
__device__ void flush_discard(char* __restrict__ buf, const int* __restrict__ evict, std::size_t lines, int* sink) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  (void)evict;
  (void)sink;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < lines;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(buf + i * 128) : "memory");
  }
#else
  (void)buf;
  int acc = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < lines;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const int* line = evict + i * 32;  // 128 bytes
    acc ^= __ldcg(line) ^ __ldcg(line + 8) ^ __ldcg(line + 16) ^ __ldcg(line + 24);
  }
  if (acc == 0x7FFFFFFE && threadIdx.x == 0x3FF) *sink = acc;  // never: keeps the loads
#endif
}

// Reads one word at each address (through L2, not L1), so their translations are in the TLBs; the writes
// that follow evict the lines read. The loaded values only decide whether `sink` is written (never, unless
// every word XORs to the marker), so the loads cannot be dropped.
__device__ void warm_translations(const int* const* addresses, std::size_t n, int* sink) {
  int acc = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    acc ^= __ldcg(addresses[i]);
  }
  if (acc == 0x5eed1e55) *sink = acc;
}

__global__ void flush_l2_cooperative(int4* buf, const int* evict, std::size_t bytes, const int* const* warm,
                                     std::size_t n_warm, int* sink) {
  if (n_warm > 0) {
    warm_translations(warm, n_warm, sink);
    cooperative_groups::this_grid().sync();  // every read done before the writes evict its lines
  }
  flush_write(buf, bytes / sizeof(int4));
  cooperative_groups::this_grid().sync();  // every write done (and visible in L2) before any discard
  flush_discard(reinterpret_cast<char*>(buf), evict, bytes / 128, sink);
}

__global__ void write_to_flush_l2(int4* __restrict__ buf, std::size_t n) { flush_write(buf, n); }

__global__ void discard_from_l2(char* __restrict__ buf, const int* __restrict__ evict, std::size_t lines, int* sink) {
  flush_discard(buf, evict, lines, sink);
}

}  // namespace

L2Flush::L2Flush(std::size_t l2_bytes, int sm_count)
    : bytes_((2 * l2_bytes + 127) / 128 * 128), sm_count_(sm_count > 0 ? sm_count : 1) {
  // The one-kernel write_discard needs all its blocks resident at once (a cooperative launch): as many as fit.
  int device = 0, cooperative = 0, blocks_per_sm = 0;
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device) == cudaSuccess && cooperative != 0 &&
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, flush_l2_cooperative, kFlushThreads, 0) ==
          cudaSuccess) {
    cooperative_blocks_ = sm_count_ * std::min(blocks_per_sm, 4);
  }
  // Which code the flush runs (the architecture its PTX was written for, __CUDA_ARCH__): before sm_80 it cannot
  // discard and reads the second buffer instead.
  cudaFuncAttributes attributes{};
  if (cudaFuncGetAttributes(&attributes, discard_from_l2) == cudaSuccess) discards_ = attributes.ptxVersion >= 80;
  (void)cudaGetLastError();  // a failed query leaves the two-kernel flush, and no error behind
}

L2Flush::~L2Flush() {
  if (buffer_ != nullptr) (void)cudaFree(buffer_);  // teardown: nothing to do on failure
  if (evict_ != nullptr) (void)cudaFree(evict_);
  if (sink_ != nullptr) (void)cudaFree(sink_);
}

void L2Flush::allocate() {
  if (bytes_ == 0) return;
  if (buffer_ == nullptr) {
    GPUPERF_CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
    GPUPERF_CUDA_CHECK(cudaMemset(buffer_, 0x5A, bytes_));
  }
  if (sink_ == nullptr) GPUPERF_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&sink_), sizeof(int)));
}

void L2Flush::flush(StreamHandle stream, FlushMethod method, const int* const* warm, std::size_t n_warm) {
  if (bytes_ == 0) return;
  if (buffer_ == nullptr) {  // the collector's first flush: no fill, the flush writes it
    GPUPERF_CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
  }
  if (sink_ == nullptr) GPUPERF_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&sink_), sizeof(int)));
  if (method == FlushMethod::write_discard && !discards_ && evict_ == nullptr) {
    GPUPERF_CUDA_CHECK(cudaMalloc(&evict_, bytes_));
    GPUPERF_CUDA_CHECK(cudaMemset(evict_, 0x5A, bytes_));
  }
  const unsigned blocks = static_cast<unsigned>(4 * sm_count_);
  switch (method) {
    case FlushMethod::read:
      gpuperf_l2_flush<<<blocks, kFlushThreads, 0, stream>>>(static_cast<const int4*>(buffer_), bytes_ / sizeof(int4),
                                                             sink_);
      GPUPERF_CUDA_CHECK_LAUNCH();
      return;
    case FlushMethod::write:
      // A different byte each time, so no write can be skipped as unchanged.
      write_value_ = (write_value_ + 1) & 0xFF;
      GPUPERF_CUDA_CHECK(cudaMemsetAsync(buffer_, write_value_, bytes_, stream));
      return;
    case FlushMethod::write_discard: break;
  }
  if (cooperative_blocks_ > 0) {
    int4* buf = static_cast<int4*>(buffer_);
    const int* evict = static_cast<const int*>(evict_);
    std::size_t bytes = bytes_;
    if (warm == nullptr) n_warm = 0;
    int* sink = sink_;
    void* args[] = {&buf, &evict, &bytes, &warm, &n_warm, &sink};
    GPUPERF_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&flush_l2_cooperative),
                                                   dim3(cooperative_blocks_), dim3(kFlushThreads), args, 0,
                                                   static_cast<cudaStream_t>(stream)));
    return;
  }
  write_to_flush_l2<<<blocks, kFlushThreads, 0, stream>>>(static_cast<int4*>(buffer_), bytes_ / sizeof(int4));
  discard_from_l2<<<blocks, kFlushThreads, 0, stream>>>(static_cast<char*>(buffer_), static_cast<const int*>(evict_),
                                                        bytes_ / 128, sink_);
  GPUPERF_CUDA_CHECK_LAUNCH();
}

std::size_t L2Flush::kernels(FlushMethod method) const {
  if (bytes_ == 0) return 0;
  switch (method) {
    case FlushMethod::read: return 1;
    case FlushMethod::write: return 0;  // a memset
    case FlushMethod::write_discard: return cooperative_blocks_ > 0 ? 1 : 2;
  }
  return 0;
}

}  // namespace gpuperf::gpu
