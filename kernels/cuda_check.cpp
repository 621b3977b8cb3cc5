#include "kernels/cuda_check.hpp"

#include <cstring>

namespace gpuperf {

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  // Paths relative to the source tree read better than the build machine's absolute ones.
  const char* shown = file;
  for (const char* marker : {"/kernels/", "/profiler/", "/examples/", "/tests/", "/cli/"}) {
    if (const char* p = std::strstr(file, marker)) {
      shown = p + 1;
      break;
    }
  }
  throw CudaError(std::string(call) + " failed at " + shown + ":" + std::to_string(line) + ": " +
                      cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")",
                  code);
}

}  // namespace gpuperf
