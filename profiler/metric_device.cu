// DeviceOps over the CUDA runtime, and the kernels the collector needs of its own: an L2 flush.
#include "profiler/metric_device.hpp"

#include <cuda.h>          // CUcontext, CUresult (types only: the driver is reached through cudart's entry point)
#include <cudaTypedefs.h>  // PFN_cu* signatures of the driver entry points
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <memory>
#include <string>

#include "core/errors.hpp"
#include "profiler/phase_log.hpp"

namespace gpuperf {
namespace {

// The collector's L2 flush, two kernels over a scratch buffer of twice the L2 size:
//  1. write_to_flush_l2 writes all of it. Write-allocation evicts every line in L2, so whatever was dirty
//     (the previous kernel's output) is written back now, outside any profiled range;
//  2. discard_from_l2 drops each of the buffer's 128-byte lines from L2 without writing it back
//     (PTX discard.global.L2, sm_80+), leaving L2 empty, as Nsight Compute's cache control does.
// Measured on an H200 (bench/ncu_compare.sh's history, 2026-11-22): the previous flush, reading the
// same buffer, left L2 full of clean lines but also left tens of kB of older dirty lines in it, which the
// next kernel then wrote back (matmul/naive[n=1024]: 56-86 kB written where ncu reads 0-256 B); with this
// flush it reads 0. Reading twice as much (4x L2) cleaned it too; clean-full vs empty made no measurable
// difference to any other instance.
__global__ void write_to_flush_l2(int4* __restrict__ buf, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    buf[i] = make_int4(1, 1, 1, 1);
  }
}

__global__ void discard_from_l2(char* __restrict__ buf, std::size_t lines) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < lines;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(buf + i * 128) : "memory");
#endif
  }
}

std::string cuda_error_text(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

// A driver entry point through cudart (gpuperf never links libcuda), or null when the driver lacks it.
template <typename Fn>
Fn driver_entry(const char* name, int version) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, static_cast<unsigned int>(version), cudaEnableDefault, &found) !=
          cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    return nullptr;
  }
  return reinterpret_cast<Fn>(fn);
}

// The flush's own CUDA context on the profiled device. CUPTI's range profiler is enabled per context, so
// kernels launched here are no ranges of the profiled context's auto-range sessions; L2 is physical, so they
// empty it all the same. Made at the first flush (a context costs some 100 ms and a few hundred MB), never
// when only timings are taken.
class FlushContext {
 public:
  // Null context (and why in `failure`) when one cannot be made, e.g. in exclusive-process compute mode.
  FlushContext(int device, std::size_t buffer_bytes) {
    auto get_device = driver_entry<PFN_cuDeviceGet_v2000>("cuDeviceGet", 2000);
    auto create = driver_entry<PFN_cuCtxCreate_v12050>("cuCtxCreate", 12050);
    push_ = driver_entry<PFN_cuCtxPushCurrent_v4000>("cuCtxPushCurrent", 4000);
    pop_ = driver_entry<PFN_cuCtxPopCurrent_v4000>("cuCtxPopCurrent", 4000);
    destroy_ = driver_entry<PFN_cuCtxDestroy_v4000>("cuCtxDestroy", 4000);
    if (get_device == nullptr || create == nullptr || push_ == nullptr || pop_ == nullptr || destroy_ == nullptr) {
      failure = "the CUDA driver lacks cuCtxCreate/cuCtxPushCurrent/cuCtxPopCurrent/cuCtxDestroy";
      return;
    }
    CUdevice dev = 0;
    CUresult r = get_device(&dev, device);
    if (r == CUDA_SUCCESS) r = create(&ctx_, nullptr, 0, dev);  // made current: pushed on this thread
    if (r != CUDA_SUCCESS) {
      failure = "cuCtxCreate failed with CUresult " + std::to_string(static_cast<int>(r));
      ctx_ = nullptr;
      return;
    }
    // cudart works in whatever context is current: the buffer and the kernels' module belong to this one.
    const cudaError_t e = cudaMalloc(&buffer_, buffer_bytes);
    CUcontext popped = nullptr;
    (void)pop_(&popped);  // back to the primary context; a failure here shows at the next cudart call
    if (e != cudaSuccess) {
      failure = "cudaMalloc of the flush buffer in its context failed: " + cuda_error_text(e);
      (void)cudaGetLastError();
      release();
    }
  }
  ~FlushContext() { release(); }
  FlushContext(const FlushContext&) = delete;
  FlushContext& operator=(const FlushContext&) = delete;

  bool usable() const { return ctx_ != nullptr; }
  void* buffer() const { return buffer_; }
  // Makes the flush context current for the scope's lifetime.
  class Scope {
   public:
    explicit Scope(const FlushContext& f) : f_(f) {
      if (f_.push_(f_.ctx_) != CUDA_SUCCESS)
        throw Error("cuCtxPushCurrent of the L2 flush's context failed", kExitEnvironment);
    }
    ~Scope() {
      CUcontext popped = nullptr;
      (void)f_.pop_(&popped);  // destructor: a failure shows at the next cudart call
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    const FlushContext& f_;
  };

  std::string failure;

 private:
  void release() {
    if (ctx_ != nullptr) (void)destroy_(ctx_);  // frees the buffer too; teardown: nothing to do on failure
    ctx_ = nullptr;
    buffer_ = nullptr;
  }
  CUcontext ctx_ = nullptr;
  void* buffer_ = nullptr;
  PFN_cuCtxPushCurrent_v4000 push_ = nullptr;
  PFN_cuCtxPopCurrent_v4000 pop_ = nullptr;
  PFN_cuCtxDestroy_v4000 destroy_ = nullptr;
};

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
  }

  ~CudaDeviceOps() override {
    if (flush_buffer_ != nullptr) (void)cudaFree(flush_buffer_);  // teardown: nothing to do on failure
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

  void flush_l2(StreamHandle stream) override {
    if (l2_bytes_ == 0) return;
    const std::size_t bytes = flush_bytes();
    if (flush_context()) {
      GPUPERF_CUDA_CHECK(cudaStreamSynchronize(stream));  // what ran before must be done (and written back) first
      FlushContext::Scope in(*flush_context_);
      launch_flush(flush_context_->buffer(), bytes, nullptr);  // the flush context's default stream
      GPUPERF_CUDA_CHECK(cudaGetLastError());
      GPUPERF_CUDA_CHECK(cudaStreamSynchronize(nullptr));  // L2 is empty when this returns
      return;
    }
    if (flush_buffer_ == nullptr) GPUPERF_CUDA_CHECK(cudaMalloc(&flush_buffer_, bytes));
    launch_flush(flush_buffer_, bytes, stream);
    GPUPERF_CUDA_CHECK(cudaGetLastError());
  }

  std::size_t flush_l2_kernels() override { return l2_bytes_ == 0 || flush_context() ? 0 : 2; }

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
  std::size_t flush_bytes() const { return 2 * l2_bytes_; }  // a multiple of 128: L2 sizes are whole kB

  void launch_flush(void* buffer, std::size_t bytes, StreamHandle stream) const {
    write_to_flush_l2<<<sm_count_ * 4, 512, 0, stream>>>(static_cast<int4*>(buffer), bytes / sizeof(int4));
    discard_from_l2<<<sm_count_ * 4, 512, 0, stream>>>(static_cast<char*>(buffer), bytes / 128);
  }

  // The flush's own context, made at the first call; false (flush in the profiled context) when it cannot be.
  bool flush_context() {
    if (!flush_context_tried_) {
      flush_context_tried_ = true;
      flush_context_ = std::make_unique<FlushContext>(device_, flush_bytes());
      if (phase_log_enabled()) {
        std::fprintf(stderr, "gpuperf phase: L2 flush %s\n",
                     flush_context_->usable() ? "from a context of its own"
                                              : ("in the profiled context: " + flush_context_->failure).c_str());
      }
      if (!flush_context_->usable()) flush_context_.reset();
    }
    return flush_context_ != nullptr;
  }

  int device_;
  std::string name_;
  std::size_t l2_bytes_ = 0;
  int max_threads_per_sm_ = 0;
  int warp_size_ = 32;
  int sm_count_ = 1;
  void* flush_buffer_ = nullptr;
  bool flush_context_tried_ = false;
  std::unique_ptr<FlushContext> flush_context_;
};

}  // namespace

std::unique_ptr<DeviceOps> make_cuda_device_ops(int device) { return std::make_unique<CudaDeviceOps>(device); }

}  // namespace gpuperf
