// The JSON writer of compare, check and detect: the documents verdict_writer.hpp describes (write_compare and
// write_changes with Format::json call these).
#pragma once

#include <ostream>
#include <vector>

#include "reports/analysis/compare_report.hpp"
#include "reports/analysis/detect.hpp"
#include "reports/analysis/not_enough_data.hpp"
#include "reports/analysis/types.hpp"

namespace gpuperf::reports {

void write_compare_json(std::ostream& out, const analysis::CompareReport& report);
void write_changes_json(std::ostream& out, const std::vector<analysis::ChangePoint>& changes,
                        const std::vector<analysis::EnvironmentStep>& steps,
                        const std::vector<analysis::ShortSeries>& too_short,
                        const std::vector<analysis::ChangePoint>& programs);

}  // namespace gpuperf::reports
