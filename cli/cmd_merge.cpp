#include <CLI/CLI.hpp>

#include "cli/context.hpp"

namespace gpuperf::cli {

// Not built yet: the command is absent from --help until it is.
void add_merge_command(CLI::App& /*app*/, Context& /*ctx*/) {}

}  // namespace gpuperf::cli
