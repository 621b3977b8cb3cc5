#include <CLI/CLI.hpp>

#include "cli/context.hpp"

namespace gpuperf::cli {

// Not built yet: the command is absent from --help until it is.
void add_db_commands(CLI::App& /*app*/, Context& /*ctx*/) {}

}  // namespace gpuperf::cli
