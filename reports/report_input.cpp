#include "reports/report_input.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/errors.hpp"
#include "reports/analysis/answers.hpp"
#include "reports/analysis/identity_findings.hpp"
#include "reports/analysis/line_findings.hpp"
#include "reports/analysis/recent_samples.hpp"

namespace gpuperf::reports {

std::int64_t resolve_machine(const std::vector<db::MachineRow>& machines, const std::string& ref) {
  if (const auto m = db::match_machine(machines, ref)) return m->id;
  std::string known;
  for (const auto& m : machines) {
    known += "\n  " + std::to_string(m.id) + "  " + machine_name(m.machine.hostname, m.machine.gpu_name, m.fingerprint);
  }
  if (machines.empty()) known = " (the database has no machines yet)";
  throw InputError("--machine '" + ref +
                   "': no machine has this id, fingerprint, name or hostname; known machines:" + known);
}

std::vector<std::string> machine_names(const std::vector<db::MachineRow>& machines,
                                       const std::vector<std::int64_t>& ids) {
  std::vector<std::string> names;
  for (const auto& id : ids) {
    const auto m = std::find_if(machines.begin(), machines.end(), [&](const db::MachineRow& r) { return r.id == id; });
    if (m == machines.end()) continue;
    names.push_back(machine_name(m->machine.hostname, m->machine.gpu_name, m->fingerprint));
  }
  return names;
}

ReportInput load_report_input(const db::Store& store, const ReportQuery& query, const ChangeDetector& detect,
                              std::size_t sample_runs) {
  ReportInput in;
  in.query = query;
  in.machines = store.machines();
  // Each machine asked for once (two names of one machine are one machine); none: every machine.
  std::vector<std::int64_t> asked;
  for (const auto& ref : query.machines) {
    const std::int64_t id = resolve_machine(in.machines, ref);
    if (std::find(asked.begin(), asked.end(), id) == asked.end()) asked.push_back(id);
  }
  std::vector<std::optional<std::int64_t>> machine_ids(asked.begin(), asked.end());
  if (machine_ids.empty()) machine_ids.emplace_back(std::nullopt);
  // The header names the machines read, not the words they were asked by (a nightly asks by id): each once, as
  // every command names a machine (machine_name).
  in.query.machines = machine_names(in.machines, asked);

  // The window: each machine's newest N runs that pass the filters, one indexed read per machine asked for.
  db::RunFilter rf;
  rf.branch = query.branch;
  rf.since = query.since;
  rf.include_excluded = false;
  std::vector<db::RunInfo> runs;
  for (const auto& id : machine_ids) {
    rf.machine_id = id;
    std::vector<db::RunInfo> part = store.runs(rf);
    runs.insert(runs.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  }
  if (query.last) {
    std::map<std::int64_t, std::vector<db::RunInfo>> per_machine;
    for (auto& r : runs) per_machine[r.machine_id].push_back(std::move(r));
    runs.clear();
    for (auto& [id, list] : per_machine) {
      std::sort(list.begin(), list.end(), [](const db::RunInfo& a, const db::RunInfo& b) {
        return std::tie(a.started_at, a.id) < std::tie(b.started_at, b.id);
      });
      const std::size_t skip = list.size() > *query.last ? list.size() - *query.last : 0;
      runs.insert(runs.end(), list.begin() + static_cast<std::ptrdiff_t>(skip), list.end());
    }
  }
  in.runs = std::move(runs);

  db::HistoryFilter hf;
  hf.branch = query.branch;
  hf.since = query.since;
  hf.last_runs = query.last;
  hf.include_excluded = false;
  hf.include_failed = false;
  hf.with_samples = false;
  for (const auto& id : machine_ids) {
    hf.machine_id = id;
    std::vector<db::Series> part = store.history(hf);
    analysis::attach_recent_samples(store, hf, part, sample_runs);
    in.series.insert(in.series.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  }

  // Family baselines as the newest run of each machine recorded them.
  std::map<std::int64_t, const db::RunInfo*> newest;
  for (const auto& r : in.runs) {
    auto& slot = newest[r.machine_id];
    if (slot == nullptr || std::tie(r.started_at, r.id) > std::tie(slot->started_at, slot->id)) slot = &r;
  }
  for (const auto& [id, run] : newest) {
    const Run loaded = store.load_run(run->id, /*with_samples=*/false);
    for (const auto& result : loaded.results) {
      if (!result.baseline.empty()) in.baselines.emplace(result.instance.name, result.baseline);
    }
  }

  if (detect) in.change_points = detect(in.series);
  // Source lines: each kernel's at the newest run, and the lines that moved at each change.
  in.sources = load_instance_sources(store, in.runs);
  analysis::attach_line_changes(in.change_points, store);
  // Same code or not, and the environment fields that moved, as hints of each change (identity_findings.hpp).
  in.environment_steps = analysis::attach_identities(in.change_points, store);
  analysis::attach_acknowledgements(in.change_points, in.series, store.acknowledgements());
  in.annotations = store.annotations();
  return in;
}

}  // namespace gpuperf::reports
