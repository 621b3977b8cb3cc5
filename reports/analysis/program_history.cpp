#include "reports/analysis/program_history.hpp"

#include <algorithm>
#include <map>
#include <string_view>

namespace gpuperf::analysis {
namespace {

// "^train/": the program's instances as a history filter, its regex metacharacters escaped.
std::string program_filter(const std::string& program) {
  std::string out = "^";
  for (char ch : program) {
    if (std::string_view("\\^$.|?*+()[]{}").find(ch) != std::string_view::npos) out += '\\';
    out += ch;
  }
  return out + "/";
}

}  // namespace

void add_program_runs(const db::Store& store, CompareReport& report, const db::RunInfo& base,
                      const db::RunInfo& candidate, const CompareOptions& options) {
  if (!report.program) return;
  db::RunFilter rf;
  rf.machine_id = candidate.machine_id;
  rf.include_excluded = false;
  std::vector<db::RunInfo> base_side, candidate_side;
  const bool same_commit = candidate.commit == base.commit;
  for (db::RunInfo& r : store.runs(rf)) {
    if (r.id == base.id || r.id == candidate.id || r.command != candidate.command || r.excluded) continue;
    if (r.exit_status && *r.exit_status != 0) continue;  // a program that failed ran another workload
    if (!same_commit && !candidate.commit.empty() && r.commit == candidate.commit) {
      candidate_side.push_back(std::move(r));
    } else if (options.history_runs > 0 && !base.branch.empty() && r.branch == base.branch && r.id < candidate.id) {
      base_side.push_back(std::move(r));
    }
  }
  const auto by_id = [](const db::RunInfo& a, const db::RunInfo& b) { return a.id < b.id; };
  std::sort(base_side.begin(), base_side.end(), by_id);
  if (base_side.size() > options.history_runs) {
    base_side.erase(base_side.begin(), base_side.end() - static_cast<std::ptrdiff_t>(options.history_runs));
  }
  if (base_side.empty() && candidate_side.empty()) return;

  // Each run's total: the sum of its gpu_time_total values, from one history read of the program's instances.
  db::HistoryFilter hf;
  hf.machine_id = candidate.machine_id;
  hf.metrics = {"gpu_time_total"};
  hf.benchmark_regex = program_filter(report.program->program);
  std::map<std::int64_t, double> totals;
  for (const db::Series& s : store.history(hf)) {
    for (const db::SeriesPoint& p : s.points) {
      if (p.summary.n > 0) totals[p.run_id] += p.summary.median;
    }
  }
  const auto totals_of = [&](const std::vector<db::RunInfo>& runs) {
    std::vector<double> out;
    for (const db::RunInfo& r : runs) {
      if (const auto it = totals.find(r.id); it != totals.end()) out.push_back(it->second);
    }
    return out;
  };
  judge_program_runs(report, totals_of(base_side), totals_of(candidate_side), options);
}

}  // namespace gpuperf::analysis
