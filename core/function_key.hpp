// A GPU function's name with every part that depends on the build removed, so that one kernel built twice
// (an edited file, another checkout path, another machine) has one key, and two different kernels keep two.
//
// nvcc writes build-dependent parts into mangled names (nvcc 12-13, seen in cubins' symbol tables):
//   anonymous namespaces   _ZN39_GLOBAL__N__f295200f_7_poly_cu_d7092ce011poly_kernelEPKfPfi
//                          (a hash of the path, the file's name, then a hash of its content or the first
//                          external function's mangled name: `..._8_names_cu__Z2goPf`)
//   internal functions     _ZN41_INTERNAL_fa518d22_10_fixture_cu_c03bc2a643_GLOBAL__N__...6hornerEfff
//   statics under -rdc     __nv_static_28__45264f10_8_names_cu__Z2goPf__Z13static_kernelPf (-> as without -rdc)
//   lambdas' numbering     _Z5applyIfZ2goPfEUlfE0_EvPT_T0_  ({lambda(float)#2}: the count of lambdas above)
// The key keeps the file's name ("poly_cu"), the namespaces, the function, its template arguments and its
// parameters: "void apply<float, go(float*)::{lambda(float)}>(float*, go(float*)::{lambda(float)})",
// "[poly_cu]::poly_kernel(float const*, float*, int)". A name that is not mangled (a C or Triton kernel) is
// its own key. Plain C++: the store, the analysis and the collector share it.
#pragma once

#include <string>

namespace gpuperf {

std::string function_key(const std::string& function);

}  // namespace gpuperf
