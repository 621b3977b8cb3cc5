// A recorded program's verdict (analysis/program_change.hpp) as compare and check show it, ahead of the kernel
// rows: the program's line, its GPU time by kernel family and by NVTX range, the kernels that moved most
// (gone and new ones included, each gone kernel with what replaced it), and the replacements. Text for
// terminals, Markdown for a pull-request comment, JSON with every kernel. Only reads.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/analysis/program_change.hpp"
#include "reports/analysis/types.hpp"

namespace gpuperf::reports {

// How many kernels, ranges and replacements the text and Markdown list (JSON lists every one).
inline constexpr std::size_t kProgramTopKernels = 10, kProgramTopRanges = 5, kProgramTopReplacements = 5;

// "program train: GPU time 41.2 ms -> 49.5 ms (+20.1%), slower (3 base runs, 1 candidate run; ...)": the
// verdict's one line, plain text (terminal_text applies when printed).
std::string program_line(const analysis::ProgramChange& p);

// The whole section: text, or Markdown (`markdown`). Ends with an empty line.
void write_program(std::ostream& out, const analysis::ProgramChange& p, bool markdown);

// {"program", "command", "verdict", "kind", "change_pct", "base_ns", "candidate_ns", "base_runs",
//  "candidate_runs", "min_effect_pct", "gated", "note", "next_step", "families": [{"family", "base_ns",
//  "candidate_ns", "delta_ns", "change_pct", "base_kernels", "candidate_kernels"}], "ranges": [same with
//  "range"], "kernels": [{"benchmark", "params", "family", "range", "base_ns", "candidate_ns", "delta_ns",
//  "base_launches", "candidate_launches", "state" ("gone", "new", "both"), "replacement"}], "replacements":
//  [{"range", "family", "gone": [benchmark display names], "new": [...], "base_ns", "candidate_ns"}],
//  "family_rules"}
nlohmann::json program_change_json(const analysis::ProgramChange& p);

// detect's lead: the change points of recorded programs' total GPU time, one line each ("program decoder on
// HOST (GPU, GPU-1111): GPU time 39 ms -> 41 ms (+5.1%) at COMMIT (previous PREV), regression, confirmed, gates:
// no"), text or Markdown; nothing when `programs` is empty. And the same as JSON.
void write_program_changes(std::ostream& out, const std::vector<analysis::ChangePoint>& programs, bool markdown);
nlohmann::json program_changes_json(const std::vector<analysis::ChangePoint>& programs);

}  // namespace gpuperf::reports
