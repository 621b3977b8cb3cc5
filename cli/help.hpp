// The foot of every `--help`: a few examples of the command, then the exit codes (README.md, "Exit codes").
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

namespace CLI {
class App;
}

namespace gpuperf::cli {

// Every exit code of gpuperf, one a line: what `gpuperf --help` ends with.
const std::string& exit_codes_help();

// One command's exit codes, as its --help ends (README, "Exit codes"): "Exit codes:" and a line per code,
// "  2  <what it means for this command>". Only the codes the command gives.
std::string exit_codes(std::initializer_list<std::pair<int, const char*>> codes);

// Sets `cmd`'s help footer: "Examples:" and `examples` (one command a line), then `exit_codes` (the command's
// own, from exit_codes()).
void set_help_footer(CLI::App& cmd, const std::string& examples, const std::string& exit_codes);

}  // namespace gpuperf::cli
