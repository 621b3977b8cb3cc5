// The tables of the verdict writers (compare, check, detect, a recorded program's verdict): a plain text
// table for terminals and a GitHub-flavoured Markdown one. Cells are written as given, except that the text
// table keeps control characters off the terminal (terminal_text).
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace gpuperf::reports {

// A plain text table: columns padded to their widest cell as a terminal shows it (terminal_width), two spaces
// apart, each line after `indent`. `below[i]`, when given and not empty, is printed on its own indented line
// under row i. Names, labels and hints come from imported files: terminal_text keeps their control characters
// off the terminal. Every text table of gpuperf (runs, compare, check, detect, a program's kinds) is this one.
void write_table(std::ostream& out, const std::vector<std::string>& header, std::vector<std::vector<std::string>> rows,
                 const std::vector<std::string>* below = nullptr, std::string_view indent = {});

// A Markdown table; `align` holds one character a column, 'r' for right-aligned, anything else left. The cells
// must be escaped already (md_escape).
void write_md_table(std::ostream& out, const std::vector<std::string>& header, const std::string& align,
                    const std::vector<std::vector<std::string>>& rows);

}  // namespace gpuperf::reports
