// Escaping of user-controlled strings (benchmark names, params, branches, labels, commits, hints) for every
// context the report writers put them in. Writers never emit such a string without one of these.
#pragma once

#include <string>
#include <string_view>

namespace gpuperf::reports {

// Text and attribute values in HTML and SVG: & < > " ' become entities; control characters other than
// tab and newline, and bytes that are not valid UTF-8, become U+FFFD.
std::string html_escape(std::string_view s);

// Text and attribute values in XML 1.0 (JUnit): html_escape's rules, whose entities and U+FFFD
// replacements are all valid XML (which forbids most control characters even as references).
std::string xml_escape(std::string_view s);

// A JSON string literal (with quotes) that is also safe inside an HTML <script> element: < > & and
// U+2028/U+2029 are \u-escaped, so "</script>" or "<!--" in a name cannot end the script.
std::string json_string(std::string_view s);

// One cell of a GitHub-flavoured Markdown table, or inline text: newlines become spaces, the table pipe,
// backticks and the inline Markdown punctuation are backslash-escaped, & and < become entities (no raw HTML gets
// through). Never put its result at the start of a line.
std::string md_escape(std::string_view s);

// A Markdown code span (outside a table): the text exactly as a reader copies it, however many backticks it holds
// (the fence is one longer than its longest run of them), newlines as spaces. For commands to paste.
std::string md_code(std::string_view s);

// Valid UTF-8 with control characters (except tab/newline) and invalid bytes replaced by U+FFFD.
std::string sanitize_utf8(std::string_view s);

// One line of plain terminal text (the tables of runs, compare, detect): every control character (C0 with tab
// and newline, DEL, and C1 such as U+009B, a terminal's CSI) becomes a space, and invalid UTF-8 bytes (a lone
// 0x9B is CSI to an 8-bit terminal) become U+FFFD. An imported name cannot clear the screen, set the
// window title or break a table row.
std::string terminal_text(std::string_view s);

// The columns `s` takes on a terminal, for padding tables: one a code point of valid UTF-8 (terminal_text's
// output), so "MeanOps<…>" pads like the 10 characters it shows, not the 12 bytes it holds.
std::size_t terminal_width(std::string_view s);

}  // namespace gpuperf::reports
