// When CLI11 refuses a command line, the word it could not place and the nearest valid one, as git says it:
//   gpuperf: 'reprot' is not a gpuperf command. The most similar command is 'report'.
//   gpuperf: unknown option '--metrcs' for 'gpuperf run'. The most similar option is '--metrics'.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gpuperf::cli {

// The message for the first word of `args` (argv without the program) that is neither a subcommand where
// one is expected nor an option of the command it follows (or of a command above it); empty when every
// word has its place, so the refusal was of another kind (a missing value, a bad number) and CLI11's own
// message says it better. Nothing after "--" is read: that is a recorded program's command line.
std::string unknown_word_message(const CLI::App& app, const std::vector<std::string>& args);

// "The most similar command is 'report'." / "The most similar options are '--filter' and '--format'." /
// "" for no candidates. `kind` is "command" or "option".
std::string most_similar_sentence(const std::string& kind, const std::vector<std::string>& names);

}  // namespace gpuperf::cli
