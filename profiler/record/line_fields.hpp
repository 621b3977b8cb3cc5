// The space-separated fields of one record-file line (record_file.hpp), numbers read with from_chars: the
// parser runs once per launch, and a program of a million launches should not wait on a stream per line.
// The record file codec's reader (record_codec.cpp).
#pragma once

#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>
#include <system_error>

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

 private:
  void skip_spaces() {
    while (!rest_.empty() && rest_.front() == ' ') rest_.remove_prefix(1);
  }
  std::string_view rest_;
};

}  // namespace gpuperf::record
