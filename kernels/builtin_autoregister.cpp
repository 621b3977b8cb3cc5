// Linking gpuperf::builtin_kernels puts the built-in suite into Registry::global() before main(), for
// executables that run the built-ins next to their own benchmarks (the `gpuperf` executable is one).
// A static library's object is linked only when something references it; the target's link option
// `--undefined=gpuperf_builtin_kernels_anchor` is that reference (kernels/CMakeLists.txt).
#include "kernels/benchmark.hpp"

extern "C" {
// Referenced by the linker option only.
extern const int gpuperf_builtin_kernels_anchor;
const int gpuperf_builtin_kernels_anchor = 1;
}

namespace {
const bool registered = [] {
  gpuperf::register_builtin_benchmarks(gpuperf::Registry::global());
  return true;
}();
}  // namespace
