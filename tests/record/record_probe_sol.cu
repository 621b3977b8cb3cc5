// record_probe's `sol` mode (bench/record/pm_sampling_gpu.sh): the two kernels PM sampling was measured on
// (../shared/probe/pmsampling): a memory-bound grid-stride copy (~0.5 ms on an H200) and a compute-bound FMA loop
// (~2.5 ms), back to back, with a ladder of short FMA launches (~2, 3, 5, 10 and 20 us) after each pair. Three
// warm-up pairs first, outside any range; then PAIRS pairs inside the NVTX range "sol", the window
// `record --pm-sampling --pm-sampling-nvtx sol` samples.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "record_probe sol: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(3);
  }
}

__global__ void strided_copy(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

__device__ __forceinline__ void fma_body(float* out, int iters) {
  const float b = 1.0000001f, c = 1e-7f;
  float x[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) x[k] = threadIdx.x * 1e-3f + k;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = fmaf(x[k], b, c);
  }
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < 8; ++k) s += x[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void fma_loop(float* out, int iters) { fma_body(out, iters); }
__global__ void fma_short(float* out, int iters) { fma_body(out, iters); }

}  // namespace

int sol(int pairs) {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  const size_t n = (size_t{1} << 30) / sizeof(float4);  // 1 GiB each way
  const int blocks = prop.multiProcessorCount * 8;
  float4 *in = nullptr, *out = nullptr;
  float* sink = nullptr;
  check(cudaMalloc(&in, n * sizeof(float4)), "cudaMalloc");
  check(cudaMalloc(&out, n * sizeof(float4)), "cudaMalloc");
  check(cudaMalloc(&sink, static_cast<size_t>(blocks) * 256 * sizeof(float)), "cudaMalloc");
  check(cudaMemset(in, 1, n * sizeof(float4)), "cudaMemset");
  const int ladder[] = {0, 16, 40, 100, 240};  // about 2, 3, 5, 10 and 20 us a launch on an H200
  const auto pair = [&] {
    strided_copy<<<blocks, 256>>>(in, out, n);
    fma_loop<<<blocks, 256>>>(sink, 32768);
    for (int iters : ladder) fma_short<<<blocks, 256>>>(sink, iters);
  };
  for (int i = 0; i < 3; ++i) pair();
  check(cudaDeviceSynchronize(), "warm-up");
  nvtxRangePushA("sol");
  for (int i = 0; i < pairs; ++i) pair();
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  nvtxRangePop();
  std::printf("sol %d pairs\n", pairs);
  cudaFree(in);
  cudaFree(out);
  cudaFree(sink);
  return 0;
}
