#include "profiler/record/inject/inject_identity.hpp"

#include <cupti.h>

#include <fstream>
#include <iterator>

#include "profiler/cubin/code_fingerprint.hpp"
#include "profiler/record/inject/inject_shared.hpp"
#include "profiler/record/loaded_libraries.hpp"
#include "profiler/record/record_codec.hpp"

namespace gpuperf::record::inject {

void note_module_loaded(const void* data) {
  if (data == nullptr) return;
  const auto* resource = static_cast<const CUpti_ResourceData*>(data);
  const auto* module = static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor);
  if (module == nullptr) return;
  try {
    for (const auto& [name, fingerprint] : cubin::function_fingerprints(module->pCubin, module->cubinSize)) {
      write_line(encode(FingerprintLine{fingerprint, name}));
    }
  } catch (...) {
    // Out of memory inside a callback: the module's kernels keep no fingerprint.
  }
}

std::vector<std::string> library_lines() {
  std::vector<std::string> out;
  try {
    std::ifstream in("/proc/self/maps");
    const std::string maps((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const std::string& path : noted_libraries_in_maps(maps)) out.push_back(encode(LibraryLine{path}));
  } catch (...) {
    out.clear();
  }
  return out;
}

}  // namespace gpuperf::record::inject
