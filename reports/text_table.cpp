#include "reports/text_table.hpp"

#include <algorithm>
#include <string_view>

#include "reports/escape.hpp"

namespace gpuperf::reports {

void write_table(std::ostream& out, const std::vector<std::string>& header, std::vector<std::vector<std::string>> rows,
                 const std::vector<std::string>* below, std::string_view indent) {
  for (auto& r : rows) {
    for (auto& cell : r) cell = terminal_text(cell);
  }
  std::vector<std::size_t> width(header.size(), 0);
  for (std::size_t i = 0; i < header.size(); ++i) width[i] = terminal_width(header[i]);
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size() && i < width.size(); ++i) width[i] = std::max(width[i], terminal_width(r[i]));
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string s(indent);
    for (std::size_t i = 0; i < cells.size(); ++i) {
      s += cells[i];
      if (i + 1 < cells.size()) s += std::string(width[i] - terminal_width(cells[i]) + 2, ' ');
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << '\n';
  };
  line(header);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    line(rows[i]);
    if (below == nullptr || i >= below->size() || (*below)[i].empty()) continue;
    // Line by line: terminal_text() turns a newline into a visible mark, and a row's lines are several.
    const std::string& text = (*below)[i];
    for (std::size_t from = 0; from <= text.size();) {
      const std::size_t end = std::min(text.find('\n', from), text.size());
      // The first line takes the indent here; the others carry their own ("\n    ").
      out << (from == 0 ? "    " : "") << terminal_text(std::string_view(text).substr(from, end - from)) << '\n';
      from = end + 1;
    }
  }
}

void write_md_table(std::ostream& out, const std::vector<std::string>& header, const std::string& align,
                    const std::vector<std::vector<std::string>>& rows) {
  out << '|';
  for (const auto& h : header) out << ' ' << h << " |";
  out << "\n|";
  for (char a : align) out << (a == 'r' ? " ---: |" : " --- |");
  out << '\n';
  for (const auto& r : rows) {
    out << '|';
    for (const auto& c : r) out << ' ' << c << " |";
    out << '\n';
  }
}

}  // namespace gpuperf::reports
