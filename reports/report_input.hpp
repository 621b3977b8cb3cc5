// Reading what a report shows from the store: the window's runs, history and family baselines, and the
// change points a detector finds in that history.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "db/store.hpp"
#include "reports/report_model.hpp"

namespace gpuperf::reports {

// Finds change points in the given series (the analysis module's detector in the CLI, a fake in tests).
using ChangeDetector = std::function<std::vector<analysis::ChangePoint>(const std::vector<db::Series>&)>;

// The machine a --machine value names: a fingerprint, a hostname (when only one machine has it) or a numeric
// id. Throws InputError listing the known machines when none matches or a hostname is ambiguous.
std::int64_t resolve_machine(const std::vector<db::MachineRow>& machines, const std::string& ref);

// How a report's header names the machines of `ids` (of `machines`), in that order, as every command names a
// machine (machine_name: "node1 (NVIDIA H200, GPU-4fc4ff4a)").
std::vector<std::string> machine_names(const std::vector<db::MachineRow>& machines,
                                       const std::vector<std::int64_t>& ids);

// Loads the window `query` describes (each machine's newest `last` runs, since `since`, on `branch`, not
// excluded), its history, the family baselines of the benchmarks in it, and runs `detect` over the history
// when it is set. Raw samples are loaded for the points of each machine's newest `sample_runs` runs only
// (what the detector's unconfirmed-change rule reads: analysis::recent_runs_for_samples()).
ReportInput load_report_input(const db::Store& store, const ReportQuery& query, const ChangeDetector& detect,
                              std::size_t sample_runs = 0);

}  // namespace gpuperf::reports
