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

// InputError, before anything is written, for an answer naming a run that neither `incoming` nor the store
// holds (or a machine for a night), naming `source`.
void check_answer_references(const Store& store, const Answers& answers, const std::set<std::string>& incoming_runs,
                             const std::set<std::string>& incoming_machines, const std::string& source);

// Stores `answers` (after their runs): each resolved by its references, skipped when its uuid is stored; an
// undone acknowledgement is stored undone. Returns how many were new.
std::size_t store_answers(Store& store, const Answers& answers);

}  // namespace gpuperf::db
