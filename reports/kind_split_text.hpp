// A recorded run's GPU time by kernel kind (analysis/kind_split.hpp) as the writers show it: `record`'s
// summary line, the reports' per-rank table cells, the compare section (text, Markdown, JSON). Only reads.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.hpp"
#include "reports/analysis/kind_split.hpp"

namespace gpuperf::reports {

// "rank 1/2" (rank and world size), "rank 1" (no world size), "" (not part of a distributed job).
std::string rank_text(const std::optional<int>& rank, const std::optional<int>& world_size);

// "812.3 ms (91.2%)": a kind's GPU time and its share of the run's kernel time.
std::string kind_cell(const analysis::KindSplit& split, KernelKind kind);

// `record`'s line for a run with communication kernels, "" for one without:
//   rank 0 on node1 (NVIDIA H100 80GB HBM3, GPU-4fc4ff4a): compute 812.3 ms (91.2%), communication 78.1 ms
//   (8.8%) in 84 launches
// The machine is named as every command names it (machine_name); a process outside a distributed job has no
// "rank N on".
std::string kind_split_line(const Run& run, const analysis::KindSplit& split);

// {"compute": {"gpu_time_ns", "share_pct", "launches", "kernels"}, "communication": {...}}
nlohmann::json kind_split_json(const analysis::KindSplit& split);

// compare's section, after its rows: each kind's GPU time and share on both sides and the change, and that it
// does not gate. Text (a table), Markdown (a table), JSON ({"base", "candidate", "change_pct": {"compute",
// "communication"}, "gated": false}).
void write_kind_split_text(std::ostream& out, const analysis::KindSplitChange& c);
void write_kind_split_md(std::ostream& out, const analysis::KindSplitChange& c);
nlohmann::json kind_split_change_json(const analysis::KindSplitChange& c);

}  // namespace gpuperf::reports
