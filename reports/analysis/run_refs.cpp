#include "reports/analysis/run_refs.hpp"

#include <set>

#include "core/errors.hpp"

namespace gpuperf::analysis {
namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

std::string machine_words(const db::Store& store, std::optional<std::int64_t> machine_id) {
  if (!machine_id) return "";
  for (const auto& m : store.machines()) {
    if (m.id == *machine_id) return " on machine " + m.fingerprint + " (" + m.machine.hostname + ")";
  }
  return " on machine #" + std::to_string(*machine_id);
}

std::string known_branches(const db::Store& store) {
  std::set<std::string> names;
  for (const auto& r : store.runs()) {
    if (!r.branch.empty()) names.insert(r.branch);
  }
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

std::optional<db::RunInfo> latest_with_label(const db::Store& store, const std::string& label,
                                             std::optional<std::int64_t> machine_id) {
  db::RunFilter f;
  f.machine_id = machine_id;
  f.include_excluded = false;
  std::optional<db::RunInfo> best;
  for (const auto& r : store.runs(f)) {  // oldest first
    if (r.label == label && !r.excluded) best = r;
  }
  return best;
}

bool branch_exists(const db::Store& store, const std::string& branch) {
  db::RunFilter f;
  f.branch = branch;
  f.last = 1;
  return !store.runs(f).empty();
}

// True when `ref` named `run` through its commit (not its id or uuid).
bool by_commit(const std::string& ref, const db::RunInfo& run) {
  return ref.size() >= 7 && starts_with(run.commit, ref) && !starts_with(run.uuid, ref) &&
         ref != std::to_string(run.id);
}

}  // namespace

bool is_moving_ref(const db::Store& store, const std::string& ref) {
  if (starts_with(ref, "branch:") || starts_with(ref, "label:")) return true;
  if (const auto r = store.find_run(ref)) return by_commit(ref, *r);
  return branch_exists(store, ref);
}

db::RunInfo resolve_run_ref(const db::Store& store, const std::string& ref, std::optional<std::int64_t> machine_id) {
  if (ref.empty()) throw InputError("empty run reference (expected a run id, uuid, commit, branch:NAME or label:NAME)");
  const std::string where = machine_words(store, machine_id);
  if (starts_with(ref, "branch:")) {
    const std::string branch = ref.substr(7);
    if (auto r = store.latest_run(branch, machine_id)) return *r;
    throw InputError("'" + ref + "': branch '" + branch + "' has no run" + where +
                     " (branches with runs: " + known_branches(store) + ")");
  }
  if (starts_with(ref, "label:")) {
    const std::string label = ref.substr(6);
    if (auto r = latest_with_label(store, label, machine_id)) return *r;
    throw InputError("'" + ref + "': no run labelled '" + label + "'" + where);
  }
  if (auto r = store.find_run(ref)) {
    if (!machine_id || r->machine_id == *machine_id || !by_commit(ref, *r)) return *r;
    // A commit: its latest run on this machine.
    db::RunFilter f;
    f.machine_id = machine_id;
    f.include_excluded = false;
    std::optional<db::RunInfo> best;
    for (const auto& run : store.runs(f)) {
      if (run.commit == r->commit && !run.excluded) best = run;
    }
    if (best) return *best;
    throw InputError("'" + ref + "': commit " + r->commit.substr(0, 10) + " has no run" + where);
  }
  if (branch_exists(store, ref)) {
    if (auto r = store.latest_run(ref, machine_id)) return *r;
    throw InputError("'" + ref + "': branch '" + ref + "' has no run" + where);
  }
  throw InputError("'" + ref +
                   "' matches no run: expected a run id, a uuid (or 8+ character prefix), a commit "
                   "(7+ characters), branch:NAME or label:NAME (branches with runs: " +
                   known_branches(store) + ")");
}

}  // namespace gpuperf::analysis
