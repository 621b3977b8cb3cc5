#include "reports/analysis/program_history.hpp"

#include <algorithm>
#include <map>

#include "reports/analysis/compare.hpp"
#include "reports/analysis/not_enough_data.hpp"

namespace gpuperf::analysis {
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
    } else if (options.history_runs > 0 && !base.branch.empty() && r.branch == base.branch &&
               (r.id < base.id || (!base.commit.empty() && r.commit == base.commit))) {
      // The window ends at the base, as the kernels' history does: runs after it may be past the change.
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
  hf.benchmark_regex = "^" + regex_escape(report.program->program) + "/";  // the program's instances
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

std::vector<db::Series> program_time_series(const std::vector<db::Series>& series) {
  // (machine id, program) -> its series' key and, by run id, its point (the summary a running sum).
  struct Program {
    db::SeriesKey key;
    std::map<std::int64_t, db::SeriesPoint> by_run;
  };
  std::map<std::pair<std::int64_t, std::string>, Program> programs;
  for (const db::Series& s : series) {
    if (s.key.metric.name != "gpu_time_total") continue;
    const auto [it, fresh_program] = programs.try_emplace({s.key.machine_id, benchmark_family(s.key.instance.name)});
    Program& program = it->second;
    if (fresh_program) {
      program.key.machine_id = s.key.machine_id;
      program.key.fingerprint = s.key.fingerprint;
      program.key.instance.name = it->first.second;
      program.key.metric = MetricInfo{kProgramTimeMetric, "ns", false, false};
    }
    for (const db::SeriesPoint& p : s.points) {
      if (p.summary.n == 0) continue;
      auto [at, fresh] = program.by_run.try_emplace(p.run_id);
      db::SeriesPoint& total = at->second;
      if (fresh) {
        total = p;
        total.samples.clear();
        total.sm_clock_mhz.clear();
        total.summary = Summary{};
        total.summary.n = 1;
      }
      total.summary.median += p.summary.median;
      total.summary.mean = total.summary.min = total.summary.max = total.summary.median;
      total.summary.q1 = total.summary.q3 = total.summary.median;
    }
  }
  std::vector<db::Series> out;
  for (auto& [name, program] : programs) {
    db::Series s;
    s.key = std::move(program.key);
    for (auto& [run_id, p] : program.by_run) s.points.push_back(std::move(p));
    std::stable_sort(s.points.begin(), s.points.end(), [](const db::SeriesPoint& a, const db::SeriesPoint& b) {
      return a.started_at != b.started_at ? a.started_at < b.started_at : a.run_id < b.run_id;
    });
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace gpuperf::analysis
