// A recorded program's panel as the report writers show it (markdown_writer.cpp, html_writer.cpp): the cells of
// its family table, its lead line, its kernels' cells and the table of GPU time by rank, unescaped, so both
// writers say the same. They read the report model (report_model.hpp) and compute nothing new.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "reports/report_model.hpp"

namespace gpuperf::reports {

// A program panel's family table as the writers show it: family, before (at previous_run, "-" without one),
// now, the change ("+3.1 ms (+20.0%)"); and its lead line, "GPU time 39 ms -> 41 ms (+5.1%) since the recording
// at COMMIT (DATE)" or "GPU time 41 ms (its first recording)".
struct ProgramFamilyCells {
  std::string family, before, now, change;
};
std::vector<ProgramFamilyCells> program_family_cells(const ProgramPanel& p);
std::string program_time_line(const MachineReport& m, const ProgramPanel& p);

// A ProgramKernel's cells as both writers show them (unescaped): "10", "110 µs", "72%", "+10.0%" or "new".
struct ProgramKernelCells {
  std::string launches, median, share, since;
};
ProgramKernelCells program_kernel_cells(const ProgramKernel& k);

// One row of the reports' table of GPU time by rank (unescaped cells): a recorded program's panel on one GPU
// whose kernels include communication kernels, at the panel's run. `since`: the change of the communication
// time against the run before ("+40.0%", "new", or "" without such a run).
struct RankSplitCells {
  std::string program, rank, gpu, commit, compute, communication, launches, since;
};
// The panels with communication, by program, then rank (panels without a rank last), then machine.
std::vector<std::pair<const MachineReport*, const ProgramPanel*>> panels_with_communication(const ReportModel& model);
RankSplitCells rank_split_cells(const MachineReport& m, const ProgramPanel& p);

}  // namespace gpuperf::reports
