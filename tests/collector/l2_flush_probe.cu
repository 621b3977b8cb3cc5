// What the L2 is left holding by each of gpuperf's flushes, for Nsight Compute to read (bench/gpu/l2_flush_gpu.sh):
// probe_dirty writes an 8 MiB buffer (its lines dirty in L2), the flush named on the command line runs, and
// probe_read reads the buffer. Measured with `ncu --cache-control none -k regex:probe_read --metrics
// dram__bytes_read.sum,dram__bytes_write.sum`: after a flush that empties L2 as Nsight Compute does, probe_read
// reads 8 MiB from DRAM and writes nothing back; with no flush it reads nothing (the data is in L2); after a write
// flush it writes back the flush's dirty lines.
//   l2_flush_probe none|write|runtime|driver|driver-turing
// Built twice (tests/collector/CMakeLists.txt): l2_flush_probe for the build's architectures, and
// l2_flush_probe_sm75 from compute_75 PTX alone, which a later GPU compiles at load, so that the collector's
// Turing flush runs on it (and `runtime` says "reads a second buffer").
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "kernels/cuda_check.hpp"
#include "profiler/gpu/l2_flush.hpp"
#include "profiler/record/inject/driver_l2_flush.hpp"

namespace {

constexpr std::size_t kWords = (8u << 20) / sizeof(int);

__global__ void probe_dirty(int* buf, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    buf[i] = static_cast<int>(i);
}

__global__ void probe_read(const int* buf, std::size_t n, int* out) {
  int acc = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    acc += buf[i];
  if (acc == 0x7ABCDEF1) *out = acc;  // never: keeps the loads
}

int fail(const char* what, CUresult r) {
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  std::fprintf(stderr, "l2_flush_probe: %s failed: %s\n", what, name != nullptr ? name : "?");
  return 3;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "none" && mode != "write" && mode != "runtime" && mode != "driver" && mode != "driver-turing") {
    std::fprintf(stderr, "usage: l2_flush_probe none|write|runtime|driver|driver-turing\n");
    return 2;
  }
  try {
    int device = 0, l2 = 0, sms = 0, major = 0;
    GPUPERF_CUDA_CHECK(cudaGetDevice(&device));
    GPUPERF_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    GPUPERF_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    GPUPERF_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    int* buf = nullptr;
    int* out = nullptr;
    GPUPERF_CUDA_CHECK(cudaMalloc(&buf, kWords * sizeof(int)));
    GPUPERF_CUDA_CHECK(cudaMalloc(&out, sizeof(int)));
    gpuperf::gpu::L2Flush flush(static_cast<std::size_t>(l2), sms);
    flush.allocate();

    CUmodule module = nullptr;
    CUfunction driver_flush = nullptr;
    CUdeviceptr driver_buffer = 0;
    bool discards = true;
    if (mode == "driver" || mode == "driver-turing") {
      const auto code = gpuperf::record::inject::driver_flush_code(mode == "driver" ? major : 7);
      discards = code.discards;
      if (CUresult r = cuModuleLoadData(&module, code.ptx); r != CUDA_SUCCESS) return fail("cuModuleLoadData", r);
      if (CUresult r = cuModuleGetFunction(&driver_flush, module, gpuperf::record::inject::kFlushKernelName);
          r != CUDA_SUCCESS)
        return fail("cuModuleGetFunction", r);
      const auto bytes = gpuperf::record::inject::driver_flush_bytes(static_cast<unsigned long long>(l2), discards);
      if (CUresult r = cuMemAlloc(&driver_buffer, bytes); r != CUDA_SUCCESS) return fail("cuMemAlloc", r);
    }

    probe_dirty<<<4 * sms, 512>>>(buf, kWords);
    GPUPERF_CUDA_CHECK_LAUNCH();
    if (mode == "write") flush.flush(nullptr, gpuperf::gpu::FlushMethod::write);
    if (mode == "runtime") flush.flush(nullptr, gpuperf::gpu::FlushMethod::write_discard);
    if (driver_flush != nullptr) {
      if (CUresult r = gpuperf::record::inject::enqueue_driver_flush(driver_flush, driver_buffer,
                                                                     static_cast<unsigned long long>(l2), discards);
          r != CUDA_SUCCESS)
        return fail("the driver flush", r);
    }
    probe_read<<<4 * sms, 512>>>(buf, kWords, out);
    GPUPERF_CUDA_CHECK_LAUNCH();
    GPUPERF_CUDA_CHECK(cudaDeviceSynchronize());
    cudaFuncAttributes attributes{};
    GPUPERF_CUDA_CHECK(cudaFuncGetAttributes(&attributes, probe_read));
    std::printf("mode %s: sm_%d code from compute_%d PTX, L2 %d bytes, runtime flush %s, driver flush %s\n",
                mode.c_str(), attributes.binaryVersion, attributes.ptxVersion, l2,
                flush.discards() ? "discards" : "reads a second buffer",
                driver_flush == nullptr ? "-" : (discards ? "discards" : "reads a second buffer"));
    if (driver_buffer != 0) cuMemFree(driver_buffer);
    if (module != nullptr) cuModuleUnload(module);
    cudaFree(buf);
    cudaFree(out);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "l2_flush_probe: %s\n", e.what());
    return 3;
  }
}
