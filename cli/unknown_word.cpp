#include "cli/unknown_word.hpp"

#include <cctype>

#include <CLI/CLI.hpp>

#include "core/close_names.hpp"

namespace gpuperf::cli {

namespace {

// "gpuperf", "gpuperf db": the command as the user types it (any bench executable is a gpuperf).
std::string command_path(const CLI::App* cmd) {
  std::string path;
  for (const CLI::App* a = cmd; a->get_parent() != nullptr; a = a->get_parent()) path = " " + a->get_name() + path;
  return "gpuperf" + path;
}

std::vector<const CLI::App*> named_subcommands(const CLI::App* cmd) {
  return cmd->get_subcommands([](const CLI::App* sub) { return !sub->get_name().empty() && !sub->get_disabled(); });
}

const CLI::App* find_subcommand(const CLI::App* cmd, const std::string& word) {
  for (const CLI::App* sub : named_subcommands(cmd)) {
    if (sub->check_name(word)) return sub;
  }
  return nullptr;
}

bool takes_positionals(const CLI::App* cmd) {
  return !cmd->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty();
}

// Options fall through to the commands above (app.fallthrough()): `gpuperf run --db x` is --db of gpuperf.
const CLI::Option* find_option(const CLI::App* cmd, const std::string& name) {
  for (const CLI::App* a = cmd; a != nullptr; a = a->get_parent()) {
    if (const CLI::Option* o = a->get_option_no_throw(name)) return o;
  }
  return nullptr;
}

bool looks_like_number(const std::string& word) {  // "-5", "-0.5": a value, not an option
  return word.size() > 1 && word[0] == '-' && (std::isdigit(static_cast<unsigned char>(word[1])) || word[1] == '.');
}

std::string unknown_command(const CLI::App* cmd, const std::string& word) {
  std::vector<std::string> names;
  for (const CLI::App* sub : named_subcommands(cmd)) names.push_back(sub->get_name());
  const std::string path = command_path(cmd);
  std::string sentence = most_similar_sentence("command", most_similar(word, names));
  return "gpuperf: '" + word + "' is not a " + path + " command." + (sentence.empty() ? "" : " " + sentence) +
         "\nSee '" + path + " --help'.";
}

std::string unknown_option(const CLI::App* cmd, const std::string& name) {
  // Compared without their dashes, so that "--x" is not near "--db" for sharing "--".
  std::vector<std::string> bare, dashed;
  for (const CLI::App* a = cmd; a != nullptr; a = a->get_parent()) {
    for (const CLI::Option* o : a->get_options([](const CLI::Option* opt) { return opt->nonpositional(); })) {
      for (const auto& l : o->get_lnames()) {
        bare.push_back(l);
        dashed.push_back("--" + l);
      }
      for (const auto& s : o->get_snames()) {
        bare.push_back(s);
        dashed.push_back("-" + s);
      }
    }
  }
  std::vector<std::string> meant;
  const std::size_t letters = name.find_first_not_of('-');
  for (const auto& b : most_similar(letters == std::string::npos ? "" : name.substr(letters), bare)) {
    for (std::size_t i = 0; i < bare.size(); ++i) {
      if (bare[i] == b) {
        meant.push_back(dashed[i]);
        break;
      }
    }
  }
  const std::string path = command_path(cmd);
  std::string sentence = most_similar_sentence("option", meant);
  return "gpuperf: unknown option '" + name + "' for '" + path + "'." + (sentence.empty() ? "" : " " + sentence) +
         "\nSee '" + path + " --help'.";
}

}  // namespace

std::string most_similar_sentence(const std::string& kind, const std::vector<std::string>& names) {
  if (names.empty()) return "";
  if (names.size() == 1) return "The most similar " + kind + " is '" + names.front() + "'.";
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + ("'" + names[i] + "'");
  }
  return "The most similar " + kind + "s are " + list + ".";
}

std::string unknown_word_message(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* cmd = &app;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") break;
    if (word.size() > 1 && word[0] == '-' && !looks_like_number(word)) {
      const bool is_long = word.rfind("--", 0) == 0;
      const bool has_value = is_long ? word.find('=') != std::string::npos : word.size() > 2;  // --x=1, -n5
      const std::string name = is_long ? word.substr(0, word.find('=')) : word.substr(0, 2);
      const CLI::Option* opt = find_option(cmd, name);
      if (opt == nullptr) return unknown_option(cmd, name);
      if (!has_value && opt->get_items_expected_max() > 0) ++i;  // the next word is its value
      continue;
    }
    if (const CLI::App* sub = find_subcommand(cmd, word)) {
      cmd = sub;
      continue;
    }
    if (!named_subcommands(cmd).empty() && !takes_positionals(cmd)) return unknown_command(cmd, word);
    // Otherwise a positional argument of `cmd`.
  }
  return "";
}

}  // namespace gpuperf::cli
