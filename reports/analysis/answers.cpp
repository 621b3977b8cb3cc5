#include "reports/analysis/answers.hpp"

#include <algorithm>
#include <tuple>

#include "db/timestamp.hpp"
#include "reports/analysis/detect.hpp"
#include "reports/analysis/identity_findings.hpp"
#include "reports/analysis/not_enough_data.hpp"
#include "reports/analysis/recent_samples.hpp"

namespace gpuperf::analysis {
namespace {

// Whether run `a` lies after run `b` in the history's order (started_at, then id).
bool later(const std::string& a_at, std::int64_t a_id, const std::string& b_at, std::int64_t b_id) {
  const int c = db::compare_timestamps(a_at, b_at);
  return c > 0 || (c == 0 && a_id > b_id);
}

bool same_instance(const BenchmarkInstance& a, const BenchmarkInstance& b) {
  return a.name == b.name && params_key(a.params) == params_key(b.params);
}

// detect's findings with its default options in the history `f` selects, with the series they index.
std::pair<std::vector<db::Series>, std::vector<ChangePoint>> detect_in(const db::Store& store,
                                                                       const db::HistoryFilter& f) {
  const DetectOptions options;
  std::vector<db::Series> series = store.history(f);
  attach_recent_samples(store, f, series, recent_runs_for_samples(options));
  std::vector<ChangePoint> changes = detect_changes(series, options);
  return {std::move(series), std::move(changes)};
}

}  // namespace

bool answers_change(const ChangePoint& change, const db::Series& series, std::int64_t run_id) {
  // The runs one apart from the change's first run at the new level: its neighbours in the series.
  if (run_id == change.run_id || run_id == change.previous_run_id) return true;
  return change.index + 1 < series.points.size() && series.points[change.index + 1].run_id == run_id;
}

void attach_acknowledgements(std::vector<ChangePoint>& changes, const std::vector<db::Series>& series,
                             const std::vector<db::Acknowledgement>& acks) {
  for (ChangePoint& c : changes) {
    if (c.series_index >= series.size()) continue;
    const db::Series& s = series[c.series_index];
    for (const db::Acknowledgement& a : acks) {
      if (a.undone || a.machine_id != s.key.machine_id || a.benchmark_id != s.key.benchmark_id ||
          a.metric != s.key.metric.name) {
        continue;
      }
      if (answers_change(c, s, a.run_id)) c.answer = a;  // id order: newest wins
    }
  }
}

InstanceFindings instance_findings(const db::Store& store, std::int64_t machine_id, std::int64_t benchmark_id,
                                   const BenchmarkInstance& instance, const std::string& branch) {
  db::HistoryFilter f;
  f.branch = branch;
  f.machine_id = machine_id;
  f.benchmark_regex = "^" + regex_escape(instance.display_name()) + "$";
  InstanceFindings out;
  std::tie(out.series, out.changes) = detect_in(store, f);
  // The changes of this instance's series only: another instance's display name cannot match the anchored name,
  // but its id decides.
  out.changes.erase(
      std::remove_if(out.changes.begin(), out.changes.end(),
                     [&](const ChangePoint& c) { return out.series[c.series_index].key.benchmark_id != benchmark_id; }),
      out.changes.end());
  std::stable_sort(out.changes.begin(), out.changes.end(), [](const ChangePoint& a, const ChangePoint& b) {
    return later(b.started_at, b.run_id, a.started_at, a.run_id);
  });
  return out;
}

StepFindings environment_step_findings(const db::Store& store, std::int64_t machine_id, const std::string& branch,
                                       std::int64_t run_id, const std::string& commit) {
  db::HistoryFilter f;
  f.branch = branch;
  f.machine_id = machine_id;
  f.metrics = {"duration"};  // a step is of the kernels' durations
  StepFindings out;
  std::vector<ChangePoint> changes;
  std::tie(out.series, changes) = detect_in(store, f);
  const std::vector<EnvironmentStep> steps = attach_identities(changes, store);
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const EnvironmentStep& step = steps[k];
    out.steps_seen.push_back("run " + step.run_uuid.substr(0, 8) + " (commit " + step.commit.substr(0, 10) +
                             "): " + describe_step(step, changes));
    bool here = false;
    for (std::size_t i : step.changes) {
      const ChangePoint& c = changes[i];
      here = here ||
             (commit.empty() ? answers_change(c, out.series[c.series_index], run_id) : c.commit.rfind(commit, 0) == 0);
    }
    if (!here || !out.changes.empty()) continue;
    out.description = describe_step(step, changes);
    for (std::size_t i : step.changes) out.changes.push_back(changes[i]);
  }
  return out;
}

bool is_answered(const ChangePoint& c) { return c.answer.has_value(); }

std::vector<db::Acknowledgement> rebase_on_accepted(const db::Store& store, const db::RunInfo& base,
                                                    const db::RunInfo& candidate, Run& base_run,
                                                    std::vector<db::Series>& history) {
  std::vector<db::Acknowledgement> applied;
  db::AckFilter accepted_here;
  accepted_here.machine_id = candidate.machine_id;
  accepted_here.active_only = true;
  accepted_here.accepted_only = true;
  for (const db::Acknowledgement& a : store.acknowledgements(accepted_here)) {
    if (a.run_id == base.id) continue;
    const auto step = store.find_run(std::to_string(a.run_id));
    if (!step || !later(step->started_at, step->id, base.started_at, base.id) ||
        later(step->started_at, step->id, candidate.started_at, candidate.id)) {
      continue;
    }
    const Run level = store.load_run(step->id, true);
    const Measurement* accepted = nullptr;
    for (const Result& r : level.results) {
      if (same_instance(r.instance, a.instance)) accepted = r.find(a.metric);
    }
    if (accepted == nullptr) continue;
    for (Result& r : base_run.results) {
      if (!same_instance(r.instance, a.instance)) continue;
      for (Measurement& m : r.metrics) {
        if (m.metric.name == a.metric) m = *accepted;
      }
    }
    for (db::Series& s : history) {
      if (s.key.benchmark_id != a.benchmark_id || s.key.metric.name != a.metric) continue;
      auto& pts = s.points;
      pts.erase(std::remove_if(pts.begin(), pts.end(),
                               [&](const db::SeriesPoint& p) {
                                 return later(step->started_at, step->id, p.started_at, p.run_id);
                               }),
                pts.end());
    }
    applied.push_back(a);
  }
  return applied;
}

void mark_accepted(std::vector<CompareRow>& rows, const std::vector<db::Acknowledgement>& applied) {
  for (CompareRow& row : rows) {
    for (const db::Acknowledgement& a : applied) {
      if (!same_instance(row.instance, a.instance) || row.metric.name != a.metric) continue;
      row.accepted = a;
      const std::string note = "baseline: accepted step at run " + a.run_uuid.substr(0, 8) + ": " + a.reason;
      row.note = row.note.empty() ? note : note + "; " + row.note;
    }
  }
}

}  // namespace gpuperf::analysis
