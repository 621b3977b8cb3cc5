// What `gpuperf bisect` found, and its three writers: a text table, Markdown (for an issue or a pull
// request comment) and JSON.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "reports/analysis/types.hpp"

namespace gpuperf::reports {

// A commit as bisect names it.
struct CommitInfo {
  std::string sha, subject, date;  // date: committer date, ISO 8601
  std::string parent;              // first parent's sha; empty for a root commit
};

// The bisected metric of one instance at the good end, at the culprit's parent and at the culprit.
struct BisectLevel {
  std::string instance;
  MetricInfo metric;
  double good = 0, before = 0, at = 0, bad = 0;  // medians
};

struct BisectStepRow {
  std::string commit, verdict, why;
  int runs_measured = 0, runs_reused = 0;
  bool built = false;
};

struct BisectReport {
  std::string good, bad;  // full shas of the ends
  std::string filter, metric;
  std::size_t commits_in_range = 0;
  bool resolved = false;  // git named one commit
  // Set when the tracked kernels' code is the same at both ends (analysis/identity_findings.hpp): no commit in
  // the range changed it, so nothing was bisected; says so and what else differs between the ends.
  std::string same_code;
  CommitInfo culprit;                   // when resolved
  std::vector<std::string> candidates;  // when not: the commits git could not tell apart (skipped)
  std::vector<BisectLevel> levels;
  std::vector<analysis::CompareRow> moved;  // other metrics that moved from the parent to the culprit
  // Per tracked instance, its bound at the culprit and whether it changed from the parent's
  // ("matmul/tiled[...]: memory-bound 82% DRAM -> compute-bound 91% SM"); empty without speed of light.
  std::vector<std::string> bounds;
  // Per tracked instance, the source lines that moved from the parent to the culprit (line_findings.hpp).
  struct InstanceLines {
    std::string instance;
    std::vector<analysis::LineChange> lines;
  };
  std::vector<InstanceLines> lines;
  std::vector<BisectStepRow> steps;  // the ends first, then each commit git chose
  int commits_built = 0, runs_measured = 0, runs_reused = 0;
  double wall_s = 0;
};

void write_bisect_text(std::ostream& out, const BisectReport& r);
void write_bisect_markdown(std::ostream& out, const BisectReport& r);
void write_bisect_json(std::ostream& out, const BisectReport& r);

}  // namespace gpuperf::reports
