#include "profiler/cupti/range_backend_loader.hpp"

#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "profiler/cupti/backend_module.hpp"

#ifndef GPUPERF_CUPTI_MODULE_BUILD_PATH
#define GPUPERF_CUPTI_MODULE_BUILD_PATH ""
#endif

// Where an installed gpuperf package keeps the module. Defined in executables built against the installed
// package: its CMake config compiles a one-line source returning <prefix>/lib/gpuperf/libgpuperf_cupti.so,
// found at find_package() time, so the package can be moved (cmake/gpuperfConfig.cmake.in). Absent (null)
// in the build tree and in the `gpuperf` executable.
extern "C" const char* gpuperf_installed_cupti_module() __attribute__((weak));

namespace gpuperf::cupti {
namespace {

std::string executable_dir() {
  std::string buf(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return "";
  buf.resize(static_cast<std::size_t>(n));
  const auto slash = buf.rfind('/');
  return slash == std::string::npos ? "" : buf.substr(0, slash);
}

bool readable(const std::string& path) { return !path.empty() && access(path.c_str(), R_OK) == 0; }

OpenedBackend load_once() {
  std::string tried;
  for (const auto& path : backend_module_candidates()) {
    if (!readable(path)) {
      tried += "\n  " + path + ": not found";
      continue;
    }
    return open_backend_module(path);  // the first one found decides: no silent fallback to another copy
  }
  return {nullptr, std::string("cannot find gpuperf's CUPTI back end (") + kBackendModuleName + "); looked at:" +
                       tried + "\nSet GPUPERF_CUPTI_MODULE to its path, or install it next to gpuperf."};
}

}  // namespace

std::vector<std::string> module_candidates(const std::string& file_name, const char* env_var,
                                           const std::string& build_path) {
  std::vector<std::string> out;
  if (const char* env = std::getenv(env_var); env != nullptr && *env != '\0') {
    out.emplace_back(env);
    return out;  // an explicit choice: do not silently fall back to another copy
  }
  if (std::string dir = executable_dir(); !dir.empty()) {
    out.push_back(dir + "/" + file_name);
    out.push_back(dir + "/../lib/" + file_name);
    out.push_back(dir + "/../lib/gpuperf/" + file_name);
  }
  if (gpuperf_installed_cupti_module != nullptr) {
    if (const char* installed = gpuperf_installed_cupti_module(); installed != nullptr && *installed != '\0') {
      const std::string module = installed;
      out.push_back(module.substr(0, module.find_last_of('/') + 1) + file_name);  // the package's module folder
    }
  }
  if (!build_path.empty()) out.push_back(build_path);
  return out;
}

std::vector<std::string> backend_module_candidates() {
  return module_candidates(kBackendModuleName, "GPUPERF_CUPTI_MODULE", GPUPERF_CUPTI_MODULE_BUILD_PATH);
}

std::string find_module(const std::string& file_name, const char* env_var, const std::string& build_path,
                        const std::string& what) {
  std::string tried;
  for (const auto& path : module_candidates(file_name, env_var, build_path)) {
    if (readable(path)) return path;
    tried += "\n  " + path;
  }
  throw EnvironmentError("cannot find gpuperf's " + what + " (" + file_name + "); looked at:" + tried + "\nSet " +
                         env_var + " to its path, or install it next to gpuperf.");
}

std::string find_backend_module() {
  return find_module(kBackendModuleName, "GPUPERF_CUPTI_MODULE", GPUPERF_CUPTI_MODULE_BUILD_PATH, "CUPTI back end");
}

namespace {
const OpenedBackend& loaded_module() {
  static std::once_flag once;
  static OpenedBackend loaded;
  std::call_once(once, [] { loaded = load_once(); });
  return loaded;
}
}  // namespace

const BackendFactory& load_backend() {
  const OpenedBackend& loaded = loaded_module();
  if (loaded.factory == nullptr) throw EnvironmentError(loaded.error);
  return *loaded.factory;
}

const SassBackendFactory& load_sass_backend() {
  const OpenedBackend& loaded = loaded_module();
  if (loaded.factory == nullptr) throw EnvironmentError(loaded.error);
  if (loaded.sass == nullptr) {
    throw EnvironmentError(std::string("the CUPTI back end module (") + kBackendModuleName +
                           ") has no SASS metrics back end: it comes from another gpuperf version; rebuild gpuperf");
  }
  return *loaded.sass;
}

}  // namespace gpuperf::cupti
