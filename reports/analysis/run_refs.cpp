#include "reports/analysis/run_refs.hpp"

#include <set>
#include <tuple>
#include <utility>
#include <vector>

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

// What a run is, for choosing a baseline of its kind: a benchmark-suite run, or a recorded program's.
std::string kind_words(const db::RunInfo& r) {
  return r.command.empty() ? "a benchmark-suite run" : "a recording of `" + r.command + "`";
}

// The newest of `runs` (any order) that `keep` accepts, skipping excluded ones; with `like`, of its kind (a
// suite run for a suite run; for a recorded run the same command if any, else any recorded run). `other`
// is set to the newest kept run of another kind, for the error that says why none was taken.
template <class Keep>
std::optional<db::RunInfo> newest(const std::vector<db::RunInfo>& runs, const Keep& keep, const db::RunInfo* like,
                                  std::optional<db::RunInfo>* other = nullptr) {
  auto newer = [](const db::RunInfo& a, const std::optional<db::RunInfo>& b) {
    return !b || std::tie(a.started_at, a.id) > std::tie(b->started_at, b->id);
  };
  std::optional<db::RunInfo> same, kind, any;
  for (const auto& r : runs) {
    if (r.excluded || !keep(r)) continue;
    if (newer(r, any)) any = r;
    if (like == nullptr) continue;
    if (r.command.empty() != like->command.empty()) continue;
    if (newer(r, kind)) kind = r;
    if (r.command == like->command && newer(r, same)) same = r;
  }
  if (like == nullptr) return any;
  if (other != nullptr && any && (!kind || any->id != kind->id)) *other = any;
  return same ? same : kind;
}

// "branch 'main' has no run on machine M" and, when it has runs of another kind than `like`, which.
std::string none_of_kind(const std::string& what, const std::string& where, const db::RunInfo* like,
                         const std::optional<db::RunInfo>& other) {
  if (like == nullptr || !other) return what + " has no run" + where;
  return what + " has no run" + where + " of the kind compared, " + kind_words(*like) + " (its latest, run " +
         std::to_string(other->id) + ", is " + kind_words(*other) + ")";
}

std::vector<db::RunInfo> runs_of(const db::Store& store, std::optional<std::string> branch,
                                 std::optional<std::int64_t> machine_id) {
  db::RunFilter f;
  f.branch = std::move(branch);
  f.machine_id = machine_id;
  f.include_excluded = false;
  return store.runs(f);
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

db::RunInfo resolve_run_ref(const db::Store& store, const std::string& ref, std::optional<std::int64_t> machine_id,
                            const db::RunInfo* like) {
  if (ref.empty()) throw InputError("empty run reference (expected a run id, uuid, commit, branch:NAME or label:NAME)");
  const std::string where = machine_words(store, machine_id);
  const auto all = [](const db::RunInfo&) { return true; };
  std::optional<db::RunInfo> other;
  if (starts_with(ref, "branch:")) {
    const std::string branch = ref.substr(7);
    if (auto r = newest(runs_of(store, branch, machine_id), all, like, &other)) return *r;
    if (other) throw InputError("'" + ref + "': " + none_of_kind("branch '" + branch + "'", where, like, other));
    throw InputError("'" + ref + "': branch '" + branch + "' has no run" + where +
                     " (branches with runs: " + known_branches(store) + ")");
  }
  if (starts_with(ref, "label:")) {
    const std::string label = ref.substr(6);
    const auto labelled = [&label](const db::RunInfo& r) { return r.label == label; };
    if (auto r = newest(runs_of(store, std::nullopt, machine_id), labelled, like, &other)) return *r;
    throw InputError("'" + ref + "': " + none_of_kind("label '" + label + "'", where, like, other));
  }
  if (auto r = store.find_run(ref)) {
    if (!by_commit(ref, *r)) return *r;  // an id or uuid: that run, whatever its machine or kind
    if ((!machine_id || r->machine_id == *machine_id) && like == nullptr) return *r;
    // A commit: its latest run (on this machine, of this kind).
    const std::string commit = r->commit;
    const auto of_commit = [&commit](const db::RunInfo& run) { return run.commit == commit; };
    if (auto best = newest(runs_of(store, std::nullopt, machine_id), of_commit, like, &other)) return *best;
    throw InputError("'" + ref + "': " + none_of_kind("commit " + commit.substr(0, 10), where, like, other));
  }
  if (branch_exists(store, ref)) {
    if (auto r = newest(runs_of(store, ref, machine_id), all, like, &other)) return *r;
    throw InputError("'" + ref + "': " + none_of_kind("branch '" + ref + "'", where, like, other));
  }
  throw InputError("'" + ref +
                   "' matches no run: expected a run id, a uuid (or 8+ character prefix), a commit "
                   "(7+ characters), branch:NAME or label:NAME (branches with runs: " +
                   known_branches(store) + ")");
}

const Run& RunCache::operator()(std::int64_t id) {
  auto it = runs_.find(id);
  if (it == runs_.end()) {
    it = runs_.emplace(id, store_.load_run(id, false)).first;
    if (on_load_) on_load_(it->second, id);
  }
  return it->second;
}

}  // namespace gpuperf::analysis
