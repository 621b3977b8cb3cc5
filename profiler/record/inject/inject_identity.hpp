// The injection library's part of what a record says besides launches: each loaded module's functions with
// their code fingerprints (`c` lines, cubin/code_fingerprint.hpp) and, at the end, the CUDA libraries and
// frameworks the process had loaded (`l` lines, loaded_libraries.hpp). record_file.hpp describes both lines.
#pragma once

#include <string>
#include <vector>

namespace gpuperf::record::inject {

// From the resource callback at CUPTI_CBID_RESOURCE_MODULE_LOADED (`data`: its CUpti_ResourceData): a `c` line
// per function of the module's cubin, written at once. A module that is not a cubin (PTX JIT-compiled later)
// gives none. Never throws.
void note_module_loaded(const void* data);

// The `l` lines of the noted libraries mapped in this process now (/proc/self/maps); empty when it cannot be read.
std::vector<std::string> library_lines();

}  // namespace gpuperf::record::inject
