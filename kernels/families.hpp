// The built-in families, one registration function per kernels/<family>.cu. register_builtin_benchmarks
// (builtin.cpp) calls each of them explicitly: a static library's objects that nothing references would be
// dropped by the linker, so static-initialisation registration cannot be used inside the library.
#pragma once

#include "kernels/benchmark.hpp"

namespace gpuperf {

void register_matmul(Registry& r);
void register_memory_access(Registry& r);
void register_stencil1d(Registry& r);
void register_matvec(Registry& r);
void register_vector_add(Registry& r);
void register_occupancy(Registry& r);
void register_transpose(Registry& r);

}  // namespace gpuperf
