// Findings across machines: with many runners, whether a kernel's change is on one GPU or on all of them,
// so that a code change (every machine that runs the kernel) reads apart from a sick machine (one).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "reports/report_model.hpp"

namespace gpuperf::reports {

// One (instance, metric, direction) and the machines whose findings it is.
struct CrossMachineFinding {
  std::size_t machine = 0, instance = 0;  // where to find the instance's name: model.machines[machine].instances
  std::string metric;
  bool regression = true;
  std::vector<std::string> hosts;  // the machines with this finding, in the model's machine order
  std::size_t measured_on = 0;     // the machines whose window has this instance and metric
  double min_change_pct = 0, max_change_pct = 0;
  bool same_commit = true;  // every machine's change starts at the same commit

  // "all 16 machines", "1 of 16 machines: runner-03", "5 of 16 machines: a, b, c, d, e" (at most 4 named).
  std::string on_text() const;
  bool on_all() const { return hosts.size() == measured_on && measured_on > 1; }
};

// The report's findings grouped across machines: regressions first, then by how many machines have them
// (most first), then by name. Empty for a report of one machine.
std::vector<CrossMachineFinding> cross_machine_findings(const ReportModel& model);

}  // namespace gpuperf::reports
