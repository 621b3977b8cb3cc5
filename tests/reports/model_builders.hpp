// Hand-built report inputs for the reports tests: machines, runs and series with known values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/metrics.hpp"
#include "reports/analysis/gate.hpp"
#include "reports/report_model.hpp"

namespace gpuperf::reports::testing {

inline db::MachineRow machine_row(std::int64_t id, const std::string& host, const std::string& gpu = "NVIDIA H200") {
  db::MachineRow m;
  m.id = id;
  m.machine.hostname = host;
  m.machine.gpu_name = gpu;
  m.machine.gpu_uuid = "GPU-" + host;
  m.machine.driver = "580.1";
  m.machine.cuda = "13.0";
  m.fingerprint = m.machine.fingerprint();
  return m;
}

// Run `i` of a machine: one per night from 2026-01-01.
inline db::RunInfo run_info(const db::MachineRow& m, std::int64_t id, int night) {
  db::RunInfo r;
  r.id = id;
  r.uuid = "run-" + std::to_string(id);
  r.machine_id = m.id;
  r.fingerprint = m.fingerprint;
  r.hostname = m.machine.hostname;
  char date[32];
  std::snprintf(date, sizeof date, "2026-%02d-%02dT02:00:00Z", 1 + night / 28, 1 + night % 28);
  r.started_at = date;
  r.commit = "c" + std::to_string(1000 + night) + "abcdef0123";
  r.branch = "main";
  r.label = "nightly";
  return r;
}

inline Summary point_summary(double median, double spread = 0) {
  Summary s;
  s.n = spread > 0 ? 10 : 1;
  s.median = s.mean = median;
  s.min = s.q1 = median - spread;
  s.max = s.q3 = median + spread;
  return s;
}

// A series of `values` over `runs` (same length), for machine `m`.
inline db::Series series(const db::MachineRow& m, const BenchmarkInstance& inst, const std::string& metric,
                         const std::vector<db::RunInfo>& runs, const std::vector<double>& values, double spread = 0) {
  db::Series s;
  s.key.machine_id = m.id;
  s.key.fingerprint = m.fingerprint;
  s.key.instance = inst;
  s.key.metric = metric_info_for(metric);
  for (std::size_t i = 0; i < values.size(); ++i) {
    db::SeriesPoint p;
    p.run_id = runs[i].id;
    p.run_uuid = runs[i].uuid;
    p.commit = runs[i].commit;
    p.branch = runs[i].branch;
    p.started_at = runs[i].started_at;
    p.summary = point_summary(values[i], spread);
    s.points.push_back(p);
  }
  return s;
}

inline BenchmarkInstance instance(const std::string& name, Params params) {
  BenchmarkInstance b;
  b.name = name;
  b.params = std::move(params);
  return b;
}

inline analysis::ChangePoint change(const db::Series& s, std::size_t index, double before, double after,
                                    std::vector<std::string> hints = {}) {
  analysis::ChangePoint cp;
  cp.machine = s.key.fingerprint;
  cp.instance = s.key.instance;
  cp.metric = s.key.metric;
  cp.run_id = s.points[index].run_id;
  cp.run_uuid = s.points[index].run_uuid;
  cp.commit = s.points[index].commit;
  cp.previous_commit = s.points[index - 1].commit;
  cp.started_at = s.points[index].started_at;
  cp.index = index;
  cp.before = before;
  cp.after = after;
  cp.change_pct = (after / before - 1) * 100;
  const bool worse = s.key.metric.higher_is_better ? after < before : after > before;
  cp.kind = worse ? analysis::ChangeKind::regression : analysis::ChangeKind::improvement;
  cp.confidence = 0.999;
  cp.hints = std::move(hints);
  cp.gated = analysis::GateSet{}.gates(cp.metric);  // as detect_changes() sets it
  return cp;
}

}  // namespace gpuperf::reports::testing
