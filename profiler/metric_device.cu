// DeviceOps over the CUDA runtime; its L2 flush is write_discard of profiler/gpu/l2_flush.hpp.
#include "profiler/metric_device.hpp"

#include <cuda.h>  // CUcontext, CUresult (types only: the driver is reached through cudart's entry point)
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "profiler/gpu/l2_flush.hpp"

namespace gpuperf {
namespace {

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
    flush_ = std::make_unique<gpu::L2Flush>(l2_bytes_, sm_count_);
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
    if (!flush_->cooperative() || l2_bytes_ == 0) return nullptr;
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
    const auto* addresses = warm != nullptr ? static_cast<const int* const*>(warm->addresses) : nullptr;
    flush_->flush(stream, gpu::FlushMethod::write_discard, addresses, warm != nullptr ? warm->count : 0);
  }

 public:
  std::size_t flush_l2_kernels() const override { return flush_->kernels(gpu::FlushMethod::write_discard); }

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
  std::unique_ptr<gpu::L2Flush> flush_;  // write_discard over twice the L2 (l2_flush.hpp)
};

}  // namespace

std::unique_ptr<DeviceOps> make_cuda_device_ops(int device) { return std::make_unique<CudaDeviceOps>(device); }

}  // namespace gpuperf
