// DeviceOps over the CUDA runtime, and the kernels the collector needs of its own: an L2 flush.
#include "profiler/metric_device.hpp"

#include <cooperative_groups.h>
#include <cuda.h>  // CUcontext, CUresult (types only: the driver is reached through cudart's entry point)
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/errors.hpp"

namespace gpuperf {
namespace {

// The collector's L2 flush over a scratch buffer of twice the L2 size, in two steps:
//  1. write all of it. Write-allocation evicts every line in L2, so whatever was dirty (the previous
//     kernel's output) is written back now, outside any profiled range;
//  2. drop each of the buffer's 128-byte lines from L2 without writing it back (PTX discard.global.L2,
//     sm_80+), leaving L2 empty, as Nsight Compute's cache control does.
// Measured on an H200 (bench/gpu/ncu_compare.sh's history, 2026-11-22): the previous flush, reading the
// same buffer, left L2 full of clean lines but also left tens of kB of older dirty lines in it, which the
// next kernel then wrote back (matmul/naive[n=1024]: 56-86 kB written where ncu reads 0-256 B); with this
// flush it reads 0. Reading twice as much (4x L2) cleaned it too; clean-full vs empty made no measurable
// difference to any other instance.
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

__device__ void flush_discard(char* __restrict__ buf, std::size_t lines) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < lines;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(buf + i * 128) : "memory");
#endif
  }
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

__global__ void flush_l2_cooperative(int4* buf, std::size_t bytes, const int* const* warm, std::size_t n_warm,
                                     int* sink) {
  if (n_warm > 0) {
    warm_translations(warm, n_warm, sink);
    cooperative_groups::this_grid().sync();  // every read done before the writes evict its lines
  }
  flush_write(buf, bytes / sizeof(int4));
  cooperative_groups::this_grid().sync();  // every write done (and visible in L2) before any discard
  flush_discard(reinterpret_cast<char*>(buf), bytes / 128);
}

__global__ void write_to_flush_l2(int4* __restrict__ buf, std::size_t n) { flush_write(buf, n); }

__global__ void discard_from_l2(char* __restrict__ buf, std::size_t lines) { flush_discard(buf, lines); }

std::string cuda_error_text(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

#define GPUPERF_CUDA_CHECK(call)                                                                                 \
  do {                                                                                                           \
    cudaError_t gpuperf_cuda_error_ = (call);                                                                    \
    if (gpuperf_cuda_error_ != cudaSuccess) {                                                                    \
      throw ::gpuperf::Error(std::string(#call) + " failed at " __FILE__ ":" + std::to_string(__LINE__) + ": " + \
                                 cuda_error_text(gpuperf_cuda_error_),                                           \
                             ::gpuperf::kExitEnvironment);                                                       \
    }                                                                                                            \
  } while (0)

class CudaDeviceOps final : public DeviceOps {
 public:
  explicit CudaDeviceOps(int device) : device_(device) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
      throw EnvironmentError("no GPU to profile on: " +
                             (e == cudaSuccess ? std::string("no CUDA device") : cuda_error_text(e)));
    }
    if (e != cudaSuccess) throw EnvironmentError("cannot query CUDA devices: " + cuda_error_text(e));
    if (device < 0 || device >= count) {
      throw EnvironmentError("device " + std::to_string(device) + " does not exist (" + std::to_string(count) +
                             " CUDA device(s))");
    }
    GPUPERF_CUDA_CHECK(cudaSetDevice(device));
    GPUPERF_CUDA_CHECK(cudaFree(nullptr));  // creates the primary context now
    cudaDeviceProp prop{};
    GPUPERF_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    name_ = prop.name;
    l2_bytes_ = static_cast<std::size_t>(prop.l2CacheSize);
    max_threads_per_sm_ = prop.maxThreadsPerMultiProcessor;
    sm_count_ = prop.multiProcessorCount;
    warp_size_ = prop.warpSize;
    // The one-kernel flush needs all its blocks resident at once (a cooperative launch): as many as fit.
    int blocks_per_sm = 0;
    if (prop.cooperativeLaunch != 0 && cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                           &blocks_per_sm, flush_l2_cooperative, kFlushThreads, 0) == cudaSuccess) {
      cooperative_blocks_ = sm_count_ * std::min(blocks_per_sm, 4);
    }
    (void)cudaGetLastError();  // a failed query leaves the two-kernel flush, and no error behind
  }

  ~CudaDeviceOps() override {
    if (flush_buffer_ != nullptr) (void)cudaFree(flush_buffer_);  // teardown: nothing to do on failure
    if (sink_ != nullptr) (void)cudaFree(sink_);
  }

  void* cu_context() override {
    using GetCurrent = CUresult (*)(CUcontext*);
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    GPUPERF_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || fn == nullptr) {
      throw EnvironmentError("the CUDA driver has no cuCtxGetCurrent entry point");
    }
    GPUPERF_CUDA_CHECK(cudaSetDevice(device_));
    CUcontext ctx = nullptr;
    if (reinterpret_cast<GetCurrent>(fn)(&ctx) != CUDA_SUCCESS || ctx == nullptr) {
      throw EnvironmentError("cuCtxGetCurrent gave no CUDA context for device " + std::to_string(device_));
    }
    return ctx;
  }

  std::string device_name() override { return name_; }

  void flush_l2(StreamHandle stream) override { flush(stream, nullptr); }

  void flush_l2(StreamHandle stream, const WarmList& warm) override {
    flush(stream, dynamic_cast<const CudaWarmList*>(&warm));
  }

  std::unique_ptr<WarmList> make_warm_list(const std::vector<DeviceRange>& memory) override {
    if (cooperative_blocks_ == 0 || l2_bytes_ == 0) return nullptr;
    constexpr std::size_t kStep = 64 * 1024;  // the smallest GPU page CUDA maps device memory with
    std::vector<const int*> addresses;
    for (const DeviceRange& r : memory) {
      const char* base = static_cast<const char*>(r.ptr);
      for (std::size_t off = 0; off + sizeof(int) <= r.bytes; off += kStep) {
        addresses.push_back(reinterpret_cast<const int*>(base + off));
      }
    }
    if (addresses.empty()) return nullptr;
    auto list = std::make_unique<CudaWarmList>();
    const std::size_t bytes = addresses.size() * sizeof(const int*);
    if (cudaMalloc(&list->addresses, bytes) != cudaSuccess ||
        cudaMemcpy(list->addresses, addresses.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
      (void)cudaGetLastError();  // no room for the list: the caller keeps the warm launch, and no error behind
      return nullptr;
    }
    list->count = addresses.size();
    return list;
  }

 private:
  struct CudaWarmList final : WarmList {
    ~CudaWarmList() override {
      if (addresses != nullptr) (void)cudaFree(addresses);  // teardown: nothing to do on failure
    }
    void* addresses = nullptr;
    std::size_t count = 0;
  };

  void flush(StreamHandle stream, const CudaWarmList* warm) {
    if (l2_bytes_ == 0) return;
    std::size_t bytes = 2 * l2_bytes_;  // a multiple of 128: L2 sizes are whole kB
    if (flush_buffer_ == nullptr) GPUPERF_CUDA_CHECK(cudaMalloc(&flush_buffer_, bytes));
    if (sink_ == nullptr) GPUPERF_CUDA_CHECK(cudaMalloc(&sink_, sizeof(int)));
    if (cooperative_blocks_ > 0) {
      int4* buf = static_cast<int4*>(flush_buffer_);
      const int* const* addresses = warm != nullptr ? static_cast<const int* const*>(warm->addresses) : nullptr;
      std::size_t n_warm = warm != nullptr ? warm->count : 0;
      int* sink = sink_;
      void* args[] = {&buf, &bytes, &addresses, &n_warm, &sink};
      GPUPERF_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&flush_l2_cooperative),
                                                     dim3(cooperative_blocks_), dim3(kFlushThreads), args, 0,
                                                     static_cast<cudaStream_t>(stream)));
      return;
    }
    write_to_flush_l2<<<sm_count_ * 4, kFlushThreads, 0, stream>>>(static_cast<int4*>(flush_buffer_),
                                                                   bytes / sizeof(int4));
    discard_from_l2<<<sm_count_ * 4, kFlushThreads, 0, stream>>>(static_cast<char*>(flush_buffer_), bytes / 128);
    GPUPERF_CUDA_CHECK(cudaGetLastError());
  }

 public:
  std::size_t flush_l2_kernels() const override {
    if (l2_bytes_ == 0) return 0;
    return cooperative_blocks_ > 0 ? 1 : 2;
  }

  void synchronize(StreamHandle stream) override { GPUPERF_CUDA_CHECK(cudaStreamSynchronize(stream)); }

  void nvtx_push(const std::string& name) override { nvtxRangePushA(name.c_str()); }
  void nvtx_pop() override { nvtxRangePop(); }

  StaticAttributes static_attributes(const void* kernel, const LaunchShape& shape) override {
    if (kernel == nullptr) throw Error("the workload names no kernel function (kernel_function() is null)", kExitUsage);
    cudaFuncAttributes attr{};
    GPUPERF_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
    StaticAttributes a;
    a.registers = attr.numRegs;
    a.static_shared_bytes = attr.sharedSizeBytes;
    a.local_bytes = attr.localSizeBytes;
    a.threads_per_block = static_cast<int>(shape.threads_per_block());
    a.max_threads_per_sm = max_threads_per_sm_;
    a.warp_size = warp_size_;
    GPUPERF_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&a.active_blocks_per_sm, kernel,
                                                                     a.threads_per_block, shape.dynamic_shared_bytes));
    return a;
  }

 private:
  int device_;
  std::string name_;
  std::size_t l2_bytes_ = 0;
  int max_threads_per_sm_ = 0;
  int warp_size_ = 32;
  int sm_count_ = 1;
  int cooperative_blocks_ = 0;  // the one-kernel flush's grid; 0: two kernels
  void* flush_buffer_ = nullptr;
  int* sink_ = nullptr;  // warm_translations' never-taken store
  static constexpr int kFlushThreads = 512;
};

}  // namespace

std::unique_ptr<DeviceOps> make_cuda_device_ops(int device) { return std::make_unique<CudaDeviceOps>(device); }

}  // namespace gpuperf
