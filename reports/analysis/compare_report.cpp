#include "reports/analysis/compare_report.hpp"

#include <algorithm>
#include <set>

namespace gpuperf::analysis {

RunSide run_side(const Run& run, std::int64_t run_id) {
  RunSide s;
  s.run_id = run_id;
  s.uuid = run.uuid;
  s.commit = run.commit;
  s.branch = run.branch;
  s.label = run.label;
  s.started_at = run.started_at;
  s.fingerprint = run.machine.fingerprint();
  s.gpu_name = run.machine.gpu_name;
  s.machine_name = machine_name(run.machine);
  s.rank = run.rank;
  s.local_rank = run.local_rank;
  s.world_size = run.world_size;
  return s;
}

bool is_regression(const CompareRow& row) {
  if (row.verdict == Verdict::slower) return row.gated;
  return row.verdict == Verdict::failed && row.candidate_status != Status::ok && row.base &&
         row.base_status == Status::ok;
}

bool is_ungated_slowdown(const CompareRow& row) { return row.verdict == Verdict::slower && !row.gated; }

std::vector<std::string> CompareReport::missing_instances() const {
  std::vector<std::string> names;
  std::set<std::string> present;  // instances with a candidate row (or seen already)
  for (const auto& r : rows) {
    if (r.verdict != Verdict::missing) present.insert(r.instance.display_name());
  }
  for (const auto& r : rows) {
    if (r.verdict == Verdict::missing && present.insert(r.instance.display_name()).second) {
      names.push_back(r.instance.display_name());
    }
  }
  return names;
}

bool CompareReport::missing_fails() const { return !allow_missing && !program && !missing_instances().empty(); }

bool CompareReport::regression() const {
  if (missing_fails()) return true;
  if (program && program->regression()) return true;
  return std::any_of(rows.begin(), rows.end(), [](const CompareRow& r) { return is_regression(r); });
}

}  // namespace gpuperf::analysis
