#include "db/answers_transfer.hpp"

#include "core/errors.hpp"
#include "core/value_rules.hpp"

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

void check_answer_references(const Store& store, const Answers& answers, const Incoming& incoming,
                             const std::vector<std::string>& ack_sources,
                             const std::vector<std::string>& note_sources) {
  const auto has_run = [&](const std::string& uuid) { return in(incoming.runs, uuid) || store.find_run(uuid); };
  const auto where = [](const std::vector<std::string>& sources, std::size_t i, const char* key) {
    return i < sources.size() ? sources[i] : "the input: " + std::string(key) + "[" + std::to_string(i) + "]";
  };
  std::set<std::string> stored_metrics;
  for (const MetricInfo& m : store.metrics()) stored_metrics.insert(m.name);
  for (std::size_t i = 0; i < answers.acks.size(); ++i) {
    const Acknowledgement& a = answers.acks[i];
    const std::string at = where(ack_sources, i, "acknowledgements");
    const auto refuse = [&](const std::string& field, const std::string& what) {
      throw InputError(at + "." + field + ": " + what + ", which is neither in the input nor in the database; " +
                       "nothing was written");
    };
    if (!has_run(a.run_uuid)) refuse("run", "run " + a.run_uuid);
    const std::string instance = a.instance.display_name();
    if (!in(incoming.instances, instance) && store.find_benchmarks(instance).empty()) {
      refuse("benchmark", "benchmark instance " + rules::shown_text(instance));
    }
    if (!in(incoming.metrics, a.metric) && !in(stored_metrics, a.metric)) {
      refuse("metric", "metric " + rules::shown_text(a.metric));
    }
  }
  for (std::size_t i = 0; i < answers.notes.size(); ++i) {
    const Annotation& n = answers.notes[i];
    const std::string at = where(note_sources, i, "annotations");
    if (!n.run_uuid.empty() && !has_run(n.run_uuid)) {
      throw InputError(at + ".run: run " + n.run_uuid +
                       ", which is neither in the input nor in the database; nothing was written");
    }
    if (!n.night.empty() && !in(incoming.machines, n.fingerprint) && !store.find_machine(n.fingerprint)) {
      throw InputError(at + ".machine: machine " + rules::shown_text(n.fingerprint) +
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
    if (!run || bench.empty()) continue;  // check_answer_references vouched for both (a merge's source holds them)
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
