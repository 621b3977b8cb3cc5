// Writers of compare/check/detect results: a text table for terminals, GitHub-flavoured Markdown (a PR
// comment or job summary), JSON, and JUnit XML. They read the analysis results only (reports/analysis/).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "reports/analysis/compare.hpp"
#include "reports/analysis/not_enough_data.hpp"
#include "reports/analysis/types.hpp"

namespace gpuperf::reports {

using analysis::ChangePoint;
using analysis::CompareReport;
using analysis::EnvironmentStep;

enum class Format { text, md, json };
// "text", "md" (or "markdown"), "json"; InputError otherwise.
Format parse_format(const std::string& name);

// `all_rows`: text and Markdown list every row; otherwise the rows whose verdict is not "same" and a count.
// JSON always has every row: {"base": {...}, "candidate": {...}, "regression": bool, "summary": {...},
// "rows": [{"machine", "benchmark", "params", "metric", "unit", "commit", "previous_commit", "run",
// "kind", "change_pct", "before", "after", "confidence", "verdict", "p_value", "welch_p_value", "ci_low_pct",
// "ci_high_pct",
// "n_before", "n_after", "confirmed_in_cycles", "note"}]} and "environment" ([{"field", "before", "after"}]: the
// fields that differ between the runs); a duration row adds "code" ("same code" / "code changed") where both
// sides have fingerprints, and its note starts with it. A row whose source lines moved adds "lines"
// (line_text.hpp's line_changes_json); text prints them under its row, Markdown lists them below the table,
// each instance's once.
void write_compare(std::ostream& out, const CompareReport& report, Format format, bool all_rows = false);
// JSON: {"changes": [{"machine", "benchmark", "params", "metric", "unit", "deterministic", "commit",
// "previous_commit", "run", "run_id", "previous_run_id", "started_at", "index", "kind", "change_pct", "before",
// "after", "confidence", "unconfirmed", "runs_after", "hints"}]}, and "lines" where source lines moved. Text and
// Markdown add a "state" column:
// "confirmed" or "unconfirmed (N runs)".
// What changed besides the code (analysis/identity_findings.hpp): a change adds "code" ("same code", "code
// changed"), "environment" ([{"field", "before", "after"}]) and "environment_step" (1-based) where known, and
// the document, where there are any, "environment_steps" ([{"machine", "run", "run_id", "commit", "started_at",
// "environment", "summary", "kernels"}]). Text and Markdown list a step's kernels under one line naming the fields, not
// as rows of their own.
// `too_short`: the series detect could not judge (not_enough_data.hpp): counted in the summary ("N series: not
// enough data"), listed with their next step in text and Markdown, and as "not_enough_data" in JSON. An answered
// change (ChangePoint::answer) shows its answer as its state and in JSON as "acknowledgement".
// `programs`: the change points of recorded programs' total GPU time (program_history.hpp's program_time_series),
// which lead the text and Markdown ("program decoder on HOST: GPU time 39 ms -> 41 ms (+5.1%) at COMMIT ...") and
// are "programs" in JSON ({"machine", "program", "commit", "previous_commit", "run", "run_id", "started_at", "kind",
// "change_pct", "before", "after", "confidence", "gated"}); absent where there are none.
// `names`: the instance names the short forms of text and Markdown tell apart (the store's, Store::
// benchmark_names, so each printed name is accepted back); empty: the changes' own.
void write_changes(std::ostream& out, const std::vector<ChangePoint>& changes, Format format,
                   const std::vector<EnvironmentStep>& steps = {},
                   const std::vector<analysis::ShortSeries>& too_short = {},
                   const std::vector<ChangePoint>& programs = {}, const std::vector<std::string>& names = {});

// JUnit XML: one testcase per row (a regression is a <failure>, "failed" an <error>), or per change
// (a regression is a <failure>; improvements pass).
void write_compare_junit(std::ostream& out, const CompareReport& report);
void write_changes_junit(std::ostream& out, const std::vector<ChangePoint>& changes, std::size_t series_count);

}  // namespace gpuperf::reports
