#include "db/json_text.hpp"

#include <algorithm>
#include <cctype>

#include "core/errors.hpp"

namespace gpuperf::db {

using json = nlohmann::ordered_json;

namespace {

// JSON numbers too large for a double ("1e999") stop nlohmann's parser without a position. They are
// replaced by a string carrying this prefix and the literal, so the validator can name their JSON path.
const std::string kOverflow = std::string(1, '\0') + "gpuperf:overflow:";

}  // namespace

bool is_overflow(const json& v) {
  return v.is_string() && v.get_ref<const std::string&>().compare(0, kOverflow.size(), kOverflow) == 0;
}

std::string overflow_literal(const json& v) { return v.get<std::string>().substr(kOverflow.size()); }

namespace {

// Where the first number literal `token` starts outside any string, or npos.
std::size_t find_number_literal(const std::string& text, const std::string& token) {
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (text.compare(i, token.size(), token) == 0) {
      char before = i == 0 ? ' ' : text[i - 1];
      char after = i + token.size() < text.size() ? text[i + token.size()] : ' ';
      auto numeric = [](char ch) {
        return std::isdigit(static_cast<unsigned char>(ch)) != 0 || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' ||
               ch == '-';
      };
      if (!numeric(before) && !numeric(after)) return i;
    }
  }
  return std::string::npos;
}

[[noreturn]] void malformed(const std::string& text, const std::string& source, std::size_t byte,
                            const std::string& what) {
  // Line and column of the byte where parsing stopped (`byte` counts from 1).
  std::size_t end = std::min(byte == 0 ? 0 : byte - 1, text.size());
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  std::string why = what;
  if (auto p = why.find(": syntax error"); p != std::string::npos) why = why.substr(p + 2);
  std::string hint;
  const std::string around = text.substr(end > 9 ? end - 9 : 0, 18);
  if (around.find("NaN") != std::string::npos || around.find("Infinity") != std::string::npos ||
      around.find("nan") != std::string::npos || around.find("inf") != std::string::npos) {
    hint = " (NaN and Infinity are not JSON numbers, and gpuperf stores finite values only)";
  }
  throw InputError(source + ":" + std::to_string(line) + ":" + std::to_string(col) + ": malformed JSON: " + why + hint);
}

}  // namespace

nlohmann::ordered_json parse_json_text(const std::string& original, const std::string& source) {
  const std::string* text = &original;
  std::string patched;  // only when overflowing numbers had to be replaced
  for (int replaced = 0;; ++replaced) {
    try {
      return json::parse(*text);
    } catch (const json::parse_error& e) {
      malformed(*text, source, e.byte, e.what());
    } catch (const json::out_of_range& e) {
      std::string what = e.what();
      auto open = what.find("parsing '");
      auto close = what.rfind('\'');
      if (e.id != 406 || open == std::string::npos || close <= open + 9) throw InputError(source + ": " + what);
      std::string token = what.substr(open + 9, close - open - 9);
      std::size_t at = find_number_literal(*text, token);
      if (at == std::string::npos || replaced > 1000) throw InputError(source + ": number out of range: " + token);
      if (text != &patched) patched = original;
      patched.replace(at, token.size(), json(kOverflow + token).dump());
      text = &patched;
    }
  }
}

}  // namespace gpuperf::db
