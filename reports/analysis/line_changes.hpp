// What moved on a kernel's source lines between two runs (core/source_lines.hpp): the lines matched across
// the runs, and for each the counters that changed. Plain functions on plain data; the wording is the
// writers' (reports/line_text.hpp).
//
// Matching. Line numbers shift between commits (a comment added above a kernel moves every line below it),
// so a line is matched first by (function, text): the same statement is the same line wherever it moved;
// lines of equal text in one function pair in order. What is left is matched by number, shifted as the
// nearest text-matched lines of the same function and file moved (an edited line between two unedited ones
// keeps its place among them; lines without text shift as the most lines equal in every counter do), then by
// its plain number, and lines without line info by (function, SASS offset). Last, lines still alone on both
// sides pair when they are the same line: equal text, or without text the same function and counters. A line
// with no partner is new (before 0) or gone (after 0).
//
// Moved. Counters are exact counts divided by the instrumented launches, so two runs of the same code agree
// to the last bit. A counter moved when it changed by more than half a count per launch (what dividing
// integer totals by different launch counts can leave) and by more than kLineRelativeFloor of its larger
// value: a kernel whose work depends on timing (atomics that retry, work stealing) drifts by a few counts in
// a million, while what a finding is about (a load that lost coalescing: 2x sectors; a bank conflict: extra
// wavefronts; an FMA split in two: +50% instructions on its line) is hundreds of times larger. A ratio
// (sectors per request) moved when it changed by more than the same relative floor.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/function_key.hpp"
#include "core/source_lines.hpp"

namespace gpuperf::analysis {

inline constexpr double kLineRelativeFloor = 1e-3;

// True when `after` differs from `before` beyond rounding and the floor above (counts per launch).
bool count_moved(double before, double after);
// The same for a ratio of counts (no absolute half count).
bool ratio_moved(double before, double after);

// One pair of the matching; either side may be null (a new or a gone line).
struct LineMatch {
  const SourceLine* before = nullptr;
  const SourceLine* after = nullptr;
};
// Every line of either side once: matched pairs in `after`'s order, then the gone lines in `before`'s order.
std::vector<LineMatch> match_lines(const std::vector<SourceLine>& before, const std::vector<SourceLine>& after);

// One counter of a line, before and after. `ideal` (after's, in the same form) where the counter has one.
struct LineCounterChange {
  std::string counter;       // "global_ld_sectors_per_request", "inst_executed", ... (for JSON)
  std::string label;         // "global load sectors per request" (for people)
  bool per_request = false;  // a ratio (shown with one decimal) rather than a count per launch
  double before = 0, after = 0;
  std::optional<double> ideal;
};

struct LineChange {
  SourceLine line;                       // after's line (before's for a gone line): where to look now
  std::optional<std::int64_t> was_line;  // before's line number where it differs (it moved)
  bool is_new = false, is_gone = false;
  bool edited = false;  // matched, and its text differs between the runs (the line the commit changed)
  std::vector<LineCounterChange> counters;  // the moved ones, in kLineCounters' order of meaning
  double weight = 0;  // the largest share of the kernel's total of a moved counter that this line's change is
};

// The lines whose counters moved, heaviest change first (ties: the line's order in `after`), at most
// `limit` (0: all).
std::vector<LineChange> changed_lines(const std::vector<SourceLine>& before, const std::vector<SourceLine>& after,
                                      std::size_t limit = 0);

// Each counter of a line compared with itself (before = after), for a view of one run's lines:
// instructions, global load and store sectors per request with their ideal, shared wavefronts with theirs,
// local sectors; only those the line has.
std::vector<LineCounterChange> line_counters(const SourceLine& line);

}  // namespace gpuperf::analysis
