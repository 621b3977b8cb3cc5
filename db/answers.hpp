// A team's answers to its history, kept beside it (docs/answers.md): acknowledgements of a finding and notes
// on a run, a commit or a machine's night. Plain data of the store's interface; both engines keep them in the
// tables of the same migration (db/sqlite/schema.cpp, db/postgres/schema.cpp: "answers").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace gpuperf::db {

// A finding answered: the series (machine, benchmark instance, metric) and the run where its step starts, as
// `detect` and the nightly print them. `accepted`: the step is the series' new level, so `check` and `compare`
// take their baseline for it from that run on, not from the runs before it. An undone acknowledgement stays
// in the history (who undid it, when) and answers nothing any more.
struct Acknowledgement {
  std::int64_t id = 0;
  std::string uuid;  // its identity across databases (export, import, merge)
  std::int64_t machine_id = 0, benchmark_id = 0, run_id = 0;
  std::string fingerprint;     // the machine's
  BenchmarkInstance instance;  // read back; on a write the ids decide
  std::string metric;          // the metric's name
  std::string run_uuid;        // the run where the step starts
  std::string commit;          // that run's commit
  std::string reason, link;    // reason: required, never empty
  std::string by, at;          // who ($USER or --by) and when (stored-form UTC)
  bool accepted = false;
  bool undone = false;
  std::string undone_by, undone_at;
};

// Which acknowledgements a reader asks the store for (Store::acknowledgements): the database filters, so a
// reader of one run or one series does not read a team's every answer. Empty: all of them.
struct AckFilter {
  std::optional<std::int64_t> machine_id, benchmark_id, run_id;
  bool active_only = false;    // not undone
  bool accepted_only = false;  // accepted as the series' new level
};

// A note on the history: exactly one of a run (run_id), a commit (commit) or a machine's night (machine_id and
// night, YYYY-MM-DD in UTC).
struct Annotation {
  std::int64_t id = 0;
  std::string uuid;
  std::optional<std::int64_t> run_id;
  std::string run_uuid;  // read back with run_id
  std::string commit;    // a note on a commit: its sha as stored in runs (any prefix is matched on reading)
  std::optional<std::int64_t> machine_id;
  std::string fingerprint;  // read back with machine_id
  std::string night;        // with machine_id
  std::string text, by, at;
};

// What travels with runs (export, import, merge): answers named by what identifies them across databases (a
// machine's fingerprint, an instance, a metric's name, a run's uuid), their ids left 0.
struct Answers {
  std::vector<Acknowledgement> acks;
  std::vector<Annotation> notes;
  bool empty() const { return acks.empty() && notes.empty(); }
};

}  // namespace gpuperf::db
