// lines_probe's kernel built without -lineinfo: `record --metrics` counts it per function and SASS offset.
#include <cuda_runtime.h>

__global__ void scale_plain_kernel(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 2.0f;
}

void scale_plain(float* data, int n, cudaStream_t stream) { scale_plain_kernel<<<n / 256, 256, 0, stream>>>(data, n); }
