#include "kernels/benchmark.hpp"
#include "kernels/builtin_sources.hpp"
#include "kernels/families.hpp"

namespace gpuperf {

void register_builtin_benchmarks(Registry& registry) {
  // A second call is a no-op: every family registers matmul/naive-style names that would collide.
  if (registry.find("matmul/naive") != nullptr) return;
  register_builtin_sources();  // their lines' root and text, wherever this binary runs
  register_matmul(registry);
  register_memory_access(registry);
  register_stencil1d(registry);
  register_matvec(registry);
  register_vector_add(registry);
  register_occupancy(registry);
  register_transpose(registry);
}

}  // namespace gpuperf
