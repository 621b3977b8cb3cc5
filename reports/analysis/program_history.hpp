// The other recordings a recorded program's verdict is judged over (program_change.hpp): read from the store,
// handed to judge_program_runs. Kept apart from the comparison, which reads no store.
#pragma once

#include "db/store.hpp"
#include "reports/analysis/compare_report.hpp"

namespace gpuperf::analysis {

// When `report` has a program (two recorded runs), judges it over the other recordings of the same command on
// the candidate's machine: on the base side, the base branch's runs stored before the base run and the other
// recordings of the base's commit (the newest options.history_runs of them; none when it is 0): the window ends
// at the base, as the kernels' history does; on the candidate side, the runs at the candidate's commit when that
// differs from the base's. Excluded runs, failed programs and the pair itself are left out.
void add_program_runs(const db::Store& store, CompareReport& report, const db::RunInfo& base,
                      const db::RunInfo& candidate, const CompareOptions& options);

// A recorded program's total kernel GPU time over history, for detect: one series per machine and program (the
// family of instances with a gpu_time_total series), its instance named by the program ("decoder", no params),
// its metric "program_time" (ns, one value per run), a point per run that recorded the program: the sum of that
// run's gpu_time_total values. Kernels that come and go count in the runs that have them. Runs in the order of
// the input series' points; empty where no series is a gpu_time_total one.
std::vector<db::Series> program_time_series(const std::vector<db::Series>& series);

}  // namespace gpuperf::analysis
