// Opens one file as gpuperf's CUPTI back-end module: dlopen (preloading the toolkit's libcupti where the
// loader cannot find it), the factory symbol and the ABI check. The one place that does; the collector's
// loader (range_backend_loader) and `gpuperf record`'s injection library both call it. No CUDA headers and
// nothing of core/, so the injection library can compile it in.
#pragma once

#include <string>

#include "profiler/cupti/range_backend.hpp"
#include "profiler/cupti/sass_backend.hpp"

namespace gpuperf::cupti {

struct OpenedBackend {
  const BackendFactory* factory = nullptr;  // null when it could not be opened
  std::string error;                        // why, in words: the loader's reason and what to do
  // The SASS Metrics back end of the same module (source lines); null in a module without one.
  const SassBackendFactory* sass = nullptr;
};

// Opens `path`, which must exist. Never throws.
OpenedBackend open_backend_module(const std::string& path);

}  // namespace gpuperf::cupti
