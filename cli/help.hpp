// The foot of every `--help`: a few examples of the command, then the exit codes (README.md, "Exit codes").
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace gpuperf::cli {

// Every exit code of gpuperf, one a line: what `gpuperf --help` ends with.
const std::string& exit_codes_help();

// Sets `cmd`'s help footer: "Examples:" and `examples` (one command a line), then `exit_codes`.
void set_help_footer(CLI::App& cmd, const std::string& examples, const std::string& exit_codes = exit_codes_help());

}  // namespace gpuperf::cli
