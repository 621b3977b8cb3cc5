// A team's answers moving with runs between databases and files (export, import, merge): chosen for the runs
// that move, checked before anything is written, stored after the runs, idempotent on their uuids.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "db/answers.hpp"
#include "db/store.hpp"

namespace gpuperf::db {

// The answers of `store` that belong with these runs: acknowledgements whose step is one of them, notes on one
// of them, on a commit of one of them or on a night of one of their machines.
Answers answers_for_runs(const Store& store, const std::vector<RunInfo>& runs);

// Every answer of `store` (a merge source).
Answers all_answers(const Store& store);

// What an import brings besides its answers: run uuids, machine fingerprints, benchmark instances (display
// names) and metric names.
struct Incoming {
  std::set<std::string> runs, machines, instances, metrics;
};

// InputError, before anything is written, for an answer naming a run, a benchmark instance or a metric that
// neither `incoming` nor the store holds (or a machine for a night). The message starts with where the answer
// came from: `ack_sources[i]` / `note_sources[i]` ("FILE: acknowledgements[2]"), else "the input".
void check_answer_references(const Store& store, const Answers& answers, const Incoming& incoming,
                             const std::vector<std::string>& ack_sources, const std::vector<std::string>& note_sources);

// Stores `answers` (after their runs): each resolved by its references, skipped when its uuid is stored; an
// undone acknowledgement is stored undone. Returns how many were new.
std::size_t store_answers(Store& store, const Answers& answers);

}  // namespace gpuperf::db
