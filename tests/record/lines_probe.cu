// The program bench/record/record_lines_gpu.sh records with `--metrics default`: a coalesced copy and a copy
// whose load strides by argv[1] floats (32: each thread its own 32-byte sector, 8x the ideal sectors),
// built with -lineinfo, and a kernel from a file built without it (lines_probe_plain.cu: per SASS offset).
// Each is launched 6 times, so the launch after the 3 range-profiled ones is instrumented.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

void scale_plain(float* data, int n, cudaStream_t stream);  // lines_probe_plain.cu

__global__ void copy_coalesced(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void copy_strided(float* out, const float* in, int n, int stride) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const long long src = (static_cast<long long>(i) * stride) % n;
  if (i < n) out[i] = in[src];
}

int main(int argc, char** argv) {
  const int stride = argc > 1 ? std::atoi(argv[1]) : 32;
  const int n = 1 << 22;
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, n * sizeof(float)) != cudaSuccess || cudaMalloc(&out, n * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "cudaMalloc failed\n");
    return 1;
  }
  cudaMemset(in, 0, n * sizeof(float));
  for (int k = 0; k < 6; ++k) {
    copy_coalesced<<<n / 256, 256>>>(out, in, n);
    copy_strided<<<n / 256, 256>>>(out, in, n, stride);
    scale_plain(out, n, nullptr);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("stride %d: %s\n", stride, cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
