#include "db/answers_transfer.hpp"

#include "core/errors.hpp"

namespace gpuperf::db {
namespace {

bool in(const std::set<std::string>& s, const std::string& v) { return s.count(v) > 0; }

}  // namespace

Answers answers_for_runs(const Store& store, const std::vector<RunInfo>& runs) {
  std::set<std::string> uuids, commits, machines;
  for (const RunInfo& r : runs) {
    uuids.insert(r.uuid);
    if (!r.commit.empty()) commits.insert(r.commit);
    machines.insert(r.fingerprint);
  }
  Answers out;
  for (Acknowledgement& a : store.acknowledgements()) {
    if (in(uuids, a.run_uuid)) out.acks.push_back(std::move(a));
  }
  for (Annotation& n : store.annotations()) {
    bool keep = n.run_id ? in(uuids, n.run_uuid) : !n.night.empty() ? in(machines, n.fingerprint) : false;
    for (const std::string& c : commits) keep = keep || (!n.commit.empty() && c.rfind(n.commit, 0) == 0);
    if (keep) out.notes.push_back(std::move(n));
  }
  return out;
}

Answers all_answers(const Store& store) { return {store.acknowledgements(), store.annotations()}; }

void check_answer_references(const Store& store, const Answers& answers, const std::set<std::string>& incoming_runs,
                             const std::set<std::string>& incoming_machines, const std::string& source) {
  const auto has_run = [&](const std::string& uuid) { return in(incoming_runs, uuid) || store.find_run(uuid); };
  for (const Acknowledgement& a : answers.acks) {
    if (!has_run(a.run_uuid)) {
      throw InputError(source + ": acknowledgement " + a.uuid + " names run " + a.run_uuid +
                       ", which is neither in the input nor in the database; nothing was written");
    }
  }
  for (const Annotation& n : answers.notes) {
    if (!n.run_uuid.empty() && !has_run(n.run_uuid)) {
      throw InputError(source + ": annotation " + n.uuid + " is on run " + n.run_uuid +
                       ", which is neither in the input nor in the database; nothing was written");
    }
    if (!n.night.empty() && !in(incoming_machines, n.fingerprint) && !store.find_machine(n.fingerprint)) {
      throw InputError(source + ": annotation " + n.uuid + " is on a night of machine " + n.fingerprint +
                       ", which is neither in the input nor in the database; nothing was written");
    }
  }
}

std::size_t store_answers(Store& store, const Answers& answers) {
  std::size_t added = 0;
  if (answers.empty()) return 0;
  std::set<std::string> stored_acks;
  for (const Acknowledgement& a : store.acknowledgements()) stored_acks.insert(a.uuid);
  for (Acknowledgement a : answers.acks) {
    const auto run = store.find_run(a.run_uuid);
    const auto bench = store.find_benchmarks(a.instance.display_name());
    if (!run || bench.empty()) continue;  // check_answer_references vouched for the run; no such result: nothing
    a.machine_id = run->machine_id;
    a.benchmark_id = bench.front().first;
    a.run_id = run->id;
    if (!in(stored_acks, a.uuid)) added += store.add_acknowledgement(a) ? 1 : 0;
    if (a.undone) {
      for (const Acknowledgement& s : store.acknowledgements()) {
        if (s.uuid == a.uuid && !s.undone) store.undo_acknowledgement(s.id, a.undone_by, a.undone_at);
      }
    }
  }
  for (Annotation n : answers.notes) {
    if (!n.run_uuid.empty()) {
      const auto run = store.find_run(n.run_uuid);
      if (!run) continue;
      n.run_id = run->id;
    }
    if (!n.night.empty()) {
      const auto m = store.find_machine(n.fingerprint);
      if (!m) continue;
      n.machine_id = m->id;
    }
    added += store.add_annotation(n) ? 1 : 0;
  }
  return added;
}

}  // namespace gpuperf::db
