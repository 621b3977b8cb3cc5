// The text of a run's source lines from the history, where the run's own collection could not read it (a
// binary run away from its source tree, a file not on the machine that collected). Item 4 of
// docs/source-lines.md: text comes from the source when present, else from the history.
//
// A line without text takes the text another stored run has for the same root-relative file and line, when
// that text is the line's beyond doubt:
//   - the other run is of the same commit (the same sources: any of its lines at that file and line), or
//   - the other run has the same line, in a function of the same key (core/function_key.hpp), at the same
//     call site, with every counter equal (counters are exact counts: equal counters are the same code).
// A line whose code changed between the commits (an edited line: its counters moved) keeps no text, rather
// than the old one. Runs are searched nearest first: the same commit, then the runs stored before this one
// (newest first), then those after; at most kTextHistoryRuns of them. The line keeps the run's id
// (SourceLine::text_from_run) so that every writer says where its text came from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "db/store.hpp"

namespace gpuperf::analysis {

inline constexpr std::size_t kTextHistoryRuns = 20;

// The history's text for many runs (detect's change points, a report's runs): the run list is read once,
// each searched run's lines once.
class LineTextHistory {
 public:
  explicit LineTextHistory(const db::Store& store) : store_(store) {}
  // Fills the text of `run`'s lines that have none (`run_id`: its id in the store; 0 for a run not stored,
  // which counts every stored run as earlier). Returns how many lines got text.
  std::size_t fill(Run& run, std::int64_t run_id);

 private:
  const std::vector<SourceLine>& lines_of(std::int64_t run_id);
  const db::Store& store_;
  std::vector<db::RunInfo> runs_;
  bool runs_read_ = false;
  std::map<std::int64_t, std::vector<SourceLine>> lines_;
  std::map<std::string, std::string> keys_;  // function -> function_key(function)
};

// One run's: LineTextHistory(store).fill(run, run_id).
std::size_t fill_text_from_history(Run& run, std::int64_t run_id, const db::Store& store);

}  // namespace gpuperf::analysis
