// Real demangled kernel names, as CUPTI gives them for PyTorch, CUTLASS and hand-written kernels: the test data
// of the short-name rule (core/short_name.hpp) and of the reports that show it.
#pragma once

#include <string>

namespace gpuperf::testing {

// PyTorch's normal_() kernel (torch.randn on CUDA), demangled whole: 3,198 characters.
inline std::string pytorch_normal_kernel_full() {
  return "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, "
         "at::native::templates::cuda::normal_and_transform<float, float, at::CUDAGeneratorImpl*, "
         "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, "
         "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
         "const::{lambda(float)#1}>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*, "
         "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, "
         "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
         "const::{lambda(float)#1})::{lambda(curandStatePhilox4_32_10*)#2}, at::native::(anonymous "
         "namespace)::distribution_nullary_kernel<float, float, float4, at::CUDAGeneratorImpl*, "
         "at::native::templates::cuda::normal_and_transform<float, float, at::CUDAGeneratorImpl*, "
         "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, "
         "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
         "const::{lambda(float)#1}>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*, "
         "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, "
         "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
         "const::{lambda(float)#1})::{lambda(curandStatePhilox4_32_10*)#2}, "
         "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, "
         "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
         "const::{lambda(float)#1}>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*, "
         "at::native::templates::cuda::normal_and_transform<float, float, at::CUDAGeneratorImpl*, "
         "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, "
         "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
         "const::{lambda(float)#1}>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*, "
         "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, "
         "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
         "const::{lambda(float)#1})::{lambda(curandStatePhilox4_32_10*)#2} const&, "
         "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, "
         "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
         "const::{lambda(float)#1})::{lambda(int, float)#1}>(long, at::PhiloxCudaState, "
         "at::native::templates::cuda::normal_and_transform<float, float, at::CUDAGeneratorImpl*, "
         "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, "
         "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
         "const::{lambda(float)#1}>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*, "
         "at::native::templates::cuda::normal_kernel<at::CUDAGeneratorImpl*>(at::TensorBase const&, double, double, "
         "at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
         "const::{lambda(float)#1})::{lambda(curandStatePhilox4_32_10*)#2})";
}

// The same kernel of another distribution ("uniform", "bernoulli"): the name differs only in its lambdas'
// scopes, deep inside the template arguments.
inline std::string pytorch_distribution_kernel_full(const std::string& distribution) {
  std::string name = pytorch_normal_kernel_full();
  for (auto at = name.find("normal"); at != std::string::npos; at = name.find("normal", at + distribution.size())) {
    name.replace(at, 6, distribution);
  }
  return name;
}

// As `gpuperf record` names it: demangled, the return type and the parameter list dropped (2,553 characters).
inline std::string pytorch_distribution_kernel(const std::string& distribution) {
  const std::string full = pytorch_distribution_kernel_full(distribution);
  const auto end = full.rfind(">(long, at::PhiloxCudaState");
  return full.substr(5, end + 1 - 5);
}

inline const char* const kVectorizedAdd =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >"
    "(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)";
inline const char* const kVectorizedFill =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >"
    "(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)";
inline const char* const kVectorizedDivFloor =
    "void at::native::vectorized_elementwise_kernel<4, at::native::BUnaryFunctor<long, long, long, "
    "at::native::binary_internal::div_floor_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() "
    "const::{lambda()#4}::operator()() const::{lambda(long, long)#1}>, std::array<char*, 2ul> >(int, "
    "at::native::BUnaryFunctor<long, long, long, at::native::binary_internal::div_floor_kernel_cuda("
    "at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::{lambda(long, "
    "long)#1}>, std::array<char*, 2ul>)";
inline const char* const kCutlassSgemm =
    "void "
    "cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(cutlass_80_simt_sgemm_256x128_8x4_nn_align1::"
    "Params)";
inline const char* const kSoftmaxForward =
    "void (anonymous namespace)::softmax_warp_forward<float, float, float, 11, false, false>(float*, float const*, "
    "int, "
    "int, int, bool const*, int, bool)";

}  // namespace gpuperf::testing
