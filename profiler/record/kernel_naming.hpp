// A kernel's name as its recorded identity has it (aggregate.hpp): shared by the recorder and the injection library,
// which applies --kernel-regex to the same name inside the program (launch_selection.hpp). Plain C++.
#pragma once

#include <optional>
#include <string>

namespace gpuperf::record {

enum class KernelNaming { demangled, function, mangled };

// The word of --kernel-name and of the record configuration (record_config.hpp): demangled, function or mangled.
// The one conversion both binaries use; nullopt for another word.
std::optional<KernelNaming> parse_kernel_naming(const std::string& word);
const char* kernel_naming_word(KernelNaming naming);

// The kernel's name for its identity. Names that do not demangle (extern "C" kernels) stay as they are.
std::string kernel_name(const std::string& mangled, KernelNaming naming);

}  // namespace gpuperf::record
