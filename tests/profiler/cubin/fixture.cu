// A small translation unit compiled to a cubin at build time (`nvcc -cubin -lineinfo`) for the cubin readers'
// tests: a kernel in an anonymous namespace calling an inlined helper, a static kernel and a template.
namespace {

__device__ __forceinline__ float horner(float acc, float x, float c) { return fmaf(acc, x, c); }

__global__ void poly_kernel(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  float acc = 1.0f;
  for (int k = 0; k < 16; ++k) acc = horner(acc, v, 0.5f + k);
  y[i] = acc;
}

}  // namespace

static __global__ void static_kernel(float* y) { y[threadIdx.x] *= 2.0f; }

template <int N>
__global__ void tmpl_kernel(float* y) {
  y[threadIdx.x] += N;
}

void launch_fixture(const float* x, float* y, int n) {
  poly_kernel<<<(n + 255) / 256, 256>>>(x, y, n);
  static_kernel<<<1, 32>>>(y);
  tmpl_kernel<3><<<1, 32>>>(y);
}
