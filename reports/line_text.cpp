#include "reports/line_text.hpp"

#include <cstdio>

#include "core/value_text.hpp"
#include "reports/analysis/detect.hpp"

namespace gpuperf::reports {
namespace {

std::string value_text(const analysis::LineCounterChange& c, double v) {
  if (c.per_request) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
  }
  return format_value(v, "count", UnitText::terminal);
}

}  // namespace

std::string line_place(const SourceLine& l) {
  if (!l.file.empty() && l.line > 0) {
    std::string s = l.file + ":" + std::to_string(l.line);
    if (!l.inlined_at_file.empty()) {
      // The call site's file is named only where it is another file than the helper's.
      s += " (inlined at " + (l.inlined_at_file == l.file ? std::string(":") : l.inlined_at_file + ":") +
           std::to_string(l.inlined_at_line) + ")";
    }
    return s;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(l.sass_offset < 0 ? 0 : l.sass_offset));
  return (l.function.empty() ? std::string("?") : l.function) + buf;
}

std::string counter_change_text(const analysis::LineCounterChange& c) {
  std::string s = c.label + ' ' + value_text(c, c.before) + " -> " + value_text(c, c.after);
  if (c.ideal) s += " (ideal " + value_text(c, *c.ideal) + ")";
  return s;
}

std::string line_change_text(const analysis::LineChange& ch) {
  std::string s = line_place(ch.line);
  if (ch.was_line) s += " (was :" + std::to_string(*ch.was_line) + ")";
  if (ch.is_new) s += " (new line)";
  if (ch.is_gone) s += " (line gone)";
  if (!ch.line.text.empty()) s += "  " + ch.line.text;
  // Text the run could not read, taken from another stored run of the same line (line_history.hpp).
  if (ch.line.text_from_run != 0) s += "  (text from run " + std::to_string(ch.line.text_from_run) + ")";
  s += " ";
  for (std::size_t i = 0; i < ch.counters.size(); ++i) {
    const analysis::LineCounterChange& c = ch.counters[i];
    // A new line has no "before": its counters as they are now.
    std::string text = c.label + ' ' + value_text(c, c.after);
    if (c.ideal) text += " (ideal " + value_text(c, *c.ideal) + ")";
    s += (i == 0 ? " " : "; ") + (ch.is_new ? text : counter_change_text(c));
  }
  return s;
}

nlohmann::json line_changes_json(const std::vector<analysis::LineChange>& changes) {
  nlohmann::json out = nlohmann::json::array();
  for (const analysis::LineChange& ch : changes) {
    nlohmann::json counters = nlohmann::json::array();
    for (const analysis::LineCounterChange& c : ch.counters) {
      counters.push_back({{"counter", c.counter},
                          {"label", c.label},
                          {"before", c.before},
                          {"after", c.after},
                          {"ideal", c.ideal ? nlohmann::json(*c.ideal) : nlohmann::json(nullptr)}});
    }
    out.push_back({{"file", ch.line.file},
                   {"line", ch.line.line},
                   {"was_line", ch.was_line ? nlohmann::json(*ch.was_line) : nlohmann::json(nullptr)},
                   {"inlined_at_file", ch.line.inlined_at_file},
                   {"inlined_at_line", ch.line.inlined_at_line},
                   {"function", ch.line.function},
                   {"sass_offset", ch.line.sass_offset},
                   {"text", ch.line.text},
                   {"text_from_run",
                    ch.line.text_from_run == 0 ? nlohmann::json(nullptr) : nlohmann::json(ch.line.text_from_run)},
                   {"new", ch.is_new},
                   {"gone", ch.is_gone},
                   {"weight", ch.weight},
                   {"counters", std::move(counters)},
                   {"summary", line_change_text(ch)}});
  }
  return out;
}

}  // namespace gpuperf::reports
