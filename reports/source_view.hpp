// The source lines a report shows per kernel: the newest run of the window, and what moved on each line
// since the window's first run. Read from the store once per machine (two runs, no samples).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "db/store.hpp"
#include "reports/analysis/line_changes.hpp"

namespace gpuperf::reports {

struct InstanceSource {
  std::string fingerprint;  // the machine's
  BenchmarkInstance instance;
  std::string commit, previous_commit;        // of the run shown and of the run it is compared with ("" for none)
  SourceLines source;                         // at the newest run of the window (status ok or not)
  std::vector<analysis::LineChange> changed;  // every moved line since the window's first run, heaviest first
};

// Per machine of `runs` (the report's window), its newest and its oldest run: each instance's lines at the
// newest and the lines that moved since the oldest. Instances without a source-line pass are left out.
std::vector<InstanceSource> load_instance_sources(const db::Store& store, const std::vector<db::RunInfo>& runs);

// The lines a view shows: the `top` with the most warp instructions and every line with excess sectors or
// wavefronts (db/source_lines.hpp's keys), in source order (file, line, SASS offset).
std::vector<const SourceLine*> heaviest_lines(const SourceLines& source, std::size_t top);

// The changed line of `changed` that is `line` (same file, line and function), or nullptr.
const analysis::LineChange* change_of(const std::vector<analysis::LineChange>& changed, const SourceLine& line);

}  // namespace gpuperf::reports
