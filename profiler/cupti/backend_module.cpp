#include "profiler/cupti/backend_module.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#ifndef GPUPERF_CUDA_MAJOR
#define GPUPERF_CUDA_MAJOR 13
#endif

namespace gpuperf::cupti {
namespace {

// libcupti from the usual toolkit folders, for machines where it is installed but not on the loader's
// path. Loaded RTLD_GLOBAL so the module's dependency on it resolves to this copy.
bool preload_libcupti() {
  const std::string soname = "libcupti.so." + std::to_string(GPUPERF_CUDA_MAJOR);
  std::vector<std::string> roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* v = std::getenv(var); v != nullptr && *v != '\0') roots.emplace_back(v);
  }
  roots.emplace_back("/usr/local/cuda");
  roots.emplace_back("/usr/local/cuda-" + std::to_string(GPUPERF_CUDA_MAJOR) + ".0");
  for (const auto& root : roots) {
    for (const char* sub :
         {"/extras/CUPTI/lib64/", "/lib64/", "/lib/", "/targets/x86_64-linux/lib/", "/targets/sbsa-linux/lib/"}) {
      const std::string path = root + sub + soname;
      if (access(path.c_str(), R_OK) == 0 && dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) return true;
    }
  }
  return false;
}

}  // namespace

OpenedBackend open_backend_module(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::string reason = dlerror();
    if (reason.find("libcupti") != std::string::npos && preload_libcupti()) {
      handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) reason = dlerror();
    }
    if (handle == nullptr) {
      std::string msg = "cannot load the CUPTI back end " + path + ": " + reason;
      if (reason.find("libcupti") != std::string::npos) {
        msg += ". Profiling needs CUPTI (libcupti.so." + std::to_string(GPUPERF_CUDA_MAJOR) +
               ", the CUDA toolkit's cuda-cupti package): install it, or add its folder (e.g. "
               "/usr/local/cuda/extras/CUPTI/lib64) to LD_LIBRARY_PATH. Timing works without it "
               "(--metrics none).";
      }
      return {nullptr, msg};
    }
  }
  using FactoryFn = const BackendFactory* (*)(int);
  auto fn = reinterpret_cast<FactoryFn>(dlsym(handle, kBackendFactorySymbol));
  if (fn == nullptr) return {nullptr, path + " is not gpuperf's CUPTI back end (no " + kBackendFactorySymbol + ")"};
  const BackendFactory* factory = fn(kBackendAbiVersion);
  if (factory == nullptr) {
    return {nullptr, path + " was built from another gpuperf version (back-end ABI mismatch); rebuild gpuperf"};
  }
  using SassFactoryFn = const SassBackendFactory* (*)(int);
  const SassBackendFactory* sass = nullptr;
  if (auto sass_fn = reinterpret_cast<SassFactoryFn>(dlsym(handle, kSassFactorySymbol)); sass_fn != nullptr) {
    sass = sass_fn(kSassBackendAbiVersion);
  }
  return {factory, "", sass};
}

}  // namespace gpuperf::cupti
