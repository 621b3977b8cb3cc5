// The space-separated fields of one record-file line (record_file.hpp), read and written for the record codec
// (record_codec.hpp). Numbers go through from_chars and to_chars: the recorder reads a K line per launch and the
// library writes one, and a program of a million launches should wait on neither a stream nor snprintf per line.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

namespace gpuperf::record {

class LineFields {
 public:
  explicit LineFields(std::string_view line) : rest_(line) {}

  // The next field as a number; false (and nothing consumed) when there is none or it is not one whole.
  template <typename T>
  bool next(T& out) {
    skip_spaces();
    const char* first = rest_.data();
    const char* last = first + rest_.size();
    if (first == last) return false;
    const auto [end, ec] = std::from_chars(first, last, out);
    if (ec != std::errc() || (end != last && *end != ' ')) return false;
    rest_.remove_prefix(static_cast<std::size_t>(end - first));
    return true;
  }
  // The next field's first character (the line's kind), the field's other characters left.
  bool next_char(char& out) {
    skip_spaces();
    if (rest_.empty()) return false;
    out = rest_.front();
    rest_.remove_prefix(1);
    return true;
  }
  bool next_word(std::string& out) {
    skip_spaces();
    if (rest_.empty()) return false;
    const std::size_t n = std::min(rest_.find(' '), rest_.size());
    out.assign(rest_.substr(0, n));
    rest_.remove_prefix(n);
    return true;
  }
  // The rest of the line after one separating space (may be empty or hold spaces: names, paths, messages).
  std::string rest() {
    if (!rest_.empty() && rest_.front() == ' ') rest_.remove_prefix(1);
    std::string out(rest_);
    rest_ = {};
    return out;
  }
  bool at_end() {
    skip_spaces();
    return rest_.empty();
  }
  // Every next field (numbers or words) while there is one; stops at the first that is not a T.
  template <typename T>
  void next_all(std::vector<T>& out) {
    T v{};
    if constexpr (std::is_same_v<T, std::string>) {
      while (next_word(v)) out.push_back(v);
    } else {
      while (next(v)) out.push_back(v);
    }
  }

 private:
  void skip_spaces() {
    while (!rest_.empty() && rest_.front() == ' ') rest_.remove_prefix(1);
  }
  std::string_view rest_;
};

// The fields after a line's kind (its first character after any spaces).
inline LineFields fields_after_kind(std::string_view line) {
  LineFields f(line);
  char kind = 0;
  f.next_char(kind);
  return f;
}

// The rest of the line after `fields` space-separated fields, the kind counted (names and paths may hold spaces).
inline std::string rest_after(std::string_view line, int fields) {
  std::size_t pos = 0;
  for (int i = 0; i < fields; ++i) {
    pos = line.find(' ', pos);
    if (pos == std::string_view::npos) return "";
    ++pos;
  }
  return std::string(line.substr(pos));
}

// Writing: each field after one space. An integer's decimal digits.
template <typename T>
void put_number(std::string& out, T v) {
  char text[24];
  out += ' ';
  out.append(text, static_cast<std::size_t>(std::to_chars(text, text + sizeof text, v).ptr - text));
}
inline void put_text(std::string& out, std::string_view text) {
  out += ' ';
  out += text;
}
// A value as printf's %.<digits>g writes it.
inline void put_g(std::string& out, double v, int digits) {
  char text[40];
  std::snprintf(text, sizeof text, " %.*g", digits, v);
  out += text;
}

}  // namespace gpuperf::record
