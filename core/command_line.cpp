#include "core/command_line.hpp"

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace gpuperf {
namespace {

bool needs_quotes(const std::string& arg) {
  if (arg.empty()) return true;
  return std::any_of(arg.begin(), arg.end(), [](unsigned char c) {
    // ASCII letters and digits only: a UTF-8 byte is quoted too, which is always safe.
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    return !alnum && std::string_view("@%+=:,./_-").find(static_cast<char>(c)) == std::string_view::npos;
  });
}

std::string quote(const std::string& arg) {
  if (!needs_quotes(arg)) return arg;
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') {
      out += "'\\''";  // end the quotes, an escaped ', quote again
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (i > 0) out += ' ';
    out += quote(argv[i]);
  }
  return out;
}

std::string describe_exit_status(int exit_status) {
  if (exit_status < 0) return "signal " + std::to_string(-static_cast<long long>(exit_status));
  return "exit " + std::to_string(exit_status);
}

}  // namespace gpuperf
