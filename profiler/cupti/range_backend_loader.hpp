// Loads the CUPTI back-end module (libgpuperf_cupti.so) at run time, so that gpuperf starts, lists,
// reports and compares on machines without libcupti, and says clearly why profiling is unavailable.
#pragma once

#include <string>
#include <vector>

#include "profiler/cupti/range_backend.hpp"
#include "profiler/cupti/sass_backend.hpp"

namespace gpuperf::cupti {

// The module's file name.
inline constexpr const char* kBackendModuleName = "libgpuperf_cupti.so";

// Where the module is looked for, in order: $GPUPERF_CUPTI_MODULE (a file), the running executable's
// folder, its ../lib and ../lib/gpuperf, then the build tree's copy.
std::vector<std::string> backend_module_candidates();

// The same search for another of gpuperf's run-time files (`gpuperf record`'s injection library): `env_var`
// names a file that is then the only candidate; else the executable's folder, ../lib, ../lib/gpuperf, the
// installed package's module folder, and `build_path` (may be empty).
std::vector<std::string> module_candidates(const std::string& file_name, const char* env_var,
                                           const std::string& build_path);

// The first readable file of that search. EnvironmentError (exit 3) naming `what` ("injection library"), the
// files tried and `env_var` when there is none.
std::string find_module(const std::string& file_name, const char* env_var, const std::string& build_path,
                        const std::string& what);
// The back-end module's path, without loading it (`gpuperf record --metrics` hands it to the program).
std::string find_backend_module();

// Loads the module once per process and returns its factory. Throws EnvironmentError (exit 3) naming the
// files tried and the loader's reason, e.g. libcupti.so.13 missing, with what to install or set.
const BackendFactory& load_backend();
// The same module's SASS Metrics back end (source lines). Throws EnvironmentError as load_backend(), or
// when the module has none (built from an older gpuperf).
const SassBackendFactory& load_sass_backend();

}  // namespace gpuperf::cupti
