#include "reports/analysis/answers.hpp"

#include <algorithm>
#include <tuple>

#include "db/timestamp.hpp"

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

}  // namespace

void attach_acknowledgements(std::vector<ChangePoint>& changes, const std::vector<db::Series>& series,
                             const std::vector<db::Acknowledgement>& acks) {
  for (ChangePoint& c : changes) {
    if (c.series_index >= series.size()) continue;
    const db::Series& s = series[c.series_index];
    // The runs one apart from the change's first run at the new level: its neighbours in the series.
    std::vector<std::int64_t> near = {c.run_id, c.previous_run_id};
    if (c.index + 1 < s.points.size()) near.push_back(s.points[c.index + 1].run_id);
    for (const db::Acknowledgement& a : acks) {
      if (a.undone || a.machine_id != s.key.machine_id || a.benchmark_id != s.key.benchmark_id ||
          a.metric != s.key.metric.name) {
        continue;
      }
      if (std::find(near.begin(), near.end(), a.run_id) != near.end()) c.answer = a;  // id order: newest wins
    }
  }
}

bool is_answered(const ChangePoint& c) { return c.answer.has_value(); }

std::vector<db::Acknowledgement> rebase_on_accepted(const db::Store& store, const db::RunInfo& base,
                                                    const db::RunInfo& candidate, Run& base_run,
                                                    std::vector<db::Series>& history) {
  std::vector<db::Acknowledgement> applied;
  for (const db::Acknowledgement& a : store.acknowledgements()) {
    if (a.undone || !a.accepted || a.machine_id != candidate.machine_id || a.run_id == base.id) continue;
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
