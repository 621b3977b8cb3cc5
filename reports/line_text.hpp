// The wording of source lines in findings, for every writer: the line's place, its text, and what moved.
//
//   kernels/memory_access.cu:29  if (i < n) out[j] = in[j];  global load sectors per request 4.0 -> 8.0 (ideal 4.0)
//
// Plain text: each writer escapes it for its format. The text is the stored one (read from the source when
// the run was collected), so a history from another machine shows its lines without its files.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/analysis/line_changes.hpp"

namespace gpuperf::reports {

// "kernels/memory_access.cu:57", "poly.cu:6 (inlined at :14)" for a helper's line inlined into the kernel
// ("(inlined at poly.cu:14)" from a header's helper), or "copy_coalesced+0x1f0" without line info.
std::string line_place(const SourceLine& line);
// "global load sectors per request 4.0 -> 8.0 (ideal 4.0)", "warp instructions 2.1M -> 4.19M".
std::string counter_change_text(const analysis::LineCounterChange& c);
// The place (with "(was :51)" where the line moved, "new line" or "line gone"), the text and the moved
// counters, "; " apart.
std::string line_change_text(const analysis::LineChange& change);
// [{"file", "line", "was_line", "inlined_at_file", "inlined_at_line", "function", "sass_offset", "text",
// "text_from_run" (the run the text came from, null: this run's own), "new", "gone", "weight", "counters":
// [{"counter", "before", "after", "ideal"}]}] for the JSON writers.
nlohmann::json line_changes_json(const std::vector<analysis::LineChange>& changes);

}  // namespace gpuperf::reports
