// Findings that point at the line: the changed source lines (line_changes.hpp) attached to the rows of a
// comparison and to the change points of a history, for every writer to name.
#pragma once

#include <cstddef>
#include <vector>

#include "db/store.hpp"
#include "reports/analysis/compare_report.hpp"
#include "reports/analysis/types.hpp"

namespace gpuperf::analysis {

// Lines named per finding: what a reader takes in beside one table row.
inline constexpr std::size_t kLinesPerFinding = 3;

// The result of `instance` in `run`, or nullptr.
const Result* find_result(const Run& run, const BenchmarkInstance& instance);

// The moved lines of one instance between two results, or none where either result's lines were not
// collected (status other than ok, or no lines: a history from before source lines).
std::vector<LineChange> result_line_changes(const Result* before, const Result* after,
                                            std::size_t limit = kLinesPerFinding);

// Each row whose verdict is slower, faster or ambiguous gets the moved lines of its instance.
void attach_line_changes(CompareReport& report, const Run& base, const Run& candidate);

// Each change point gets the moved lines of its instance from its previous run to its run (loaded from
// `store` without samples, once per run, lines without text given the history's: line_history.hpp).
void attach_line_changes(std::vector<ChangePoint>& changes, const db::Store& store);

}  // namespace gpuperf::analysis
