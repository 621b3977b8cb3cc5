// The HTML report's source lines: per kernel an annotated view of its heaviest lines at the newest run (the
// line's text with its counters as bars, the lines that moved over the window flagged), and per
// variant pair the two kernels' memory lines side by side. Every stored string is escaped: file names and
// line text come from the collected program.
#pragma once

#include <string>

#include "reports/report_model.hpp"

namespace gpuperf::reports::html {

// Lines an instance's view shows at most by warp instructions (lines with excess sectors are added).
inline constexpr std::size_t kViewLines = 12;

// "" when no machine of the model has source lines (the page's style sheet stays as it was).
std::string source_style(const ReportModel& model);
// The view of `inst`'s lines; "" where it has none.
std::string source_view(const MachineReport& m, const InstanceTrends& inst);
// The baseline's and the variant's memory lines, heaviest traffic first, row by row; "" where either has none.
std::string source_pair(const MachineReport& m, const InstanceTrends& variant, const InstanceTrends& baseline);

}  // namespace gpuperf::reports::html
