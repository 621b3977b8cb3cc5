// A kernel's name as its recorded identity has it (aggregate.hpp): shared by the recorder and the injection library,
// which applies --kernel-regex to the same name inside the program (launch_selection.hpp). Plain C++.
#pragma once

#include <string>

namespace gpuperf::record {

enum class KernelNaming { demangled, function, mangled };

// The kernel's name for its identity. Names that do not demangle (extern "C" kernels) stay as they are.
std::string kernel_name(const std::string& mangled, KernelNaming naming);

}  // namespace gpuperf::record
