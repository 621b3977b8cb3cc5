// The built-in suite's source root and text, carried by the binary (core/source_roots.hpp): defined in a
// source generated at build time (cmake/embed_sources.cmake), called when the suite is registered.
#pragma once

namespace gpuperf {

void register_builtin_sources();

}  // namespace gpuperf
