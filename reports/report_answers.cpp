// A team's answers in the report model (report_model.hpp): annotations on a machine's time axis, and the
// state an acknowledged finding shows.
#include <algorithm>

#include "reports/format.hpp"
#include "reports/report_model.hpp"

namespace gpuperf::reports {

std::vector<RunNote> place_notes(const MachineReport& m, const std::vector<db::Annotation>& notes) {
  std::vector<RunNote> out;
  for (const db::Annotation& n : notes) {
    std::optional<std::size_t> at;
    std::string on;
    for (std::size_t i = 0; i < m.runs.size() && !at; ++i) {
      const RunRef& r = m.runs[i];
      if (n.run_id) {
        if (r.run_id == *n.run_id) at = i;
        on = "run " + n.run_uuid.substr(0, 8);
      } else if (!n.commit.empty()) {
        if (r.commit.rfind(n.commit, 0) == 0) at = i;
        on = "commit " + n.commit.substr(0, 10);
      } else {
        if (n.fingerprint == m.fingerprint && r.started_at.rfind(n.night, 0) == 0) at = i;
        on = "night " + n.night;
      }
    }
    if (at) out.push_back({*at, on, n.text, n.by, n.at});
  }
  std::stable_sort(out.begin(), out.end(), [](const RunNote& a, const RunNote& b) { return a.run < b.run; });
  return out;
}

std::string change_state(const analysis::ChangePoint& cp) {
  if (cp.answer) {
    std::string s = format_answer(cp.answer->accepted, cp.answer->reason);
    if (!cp.answer->link.empty()) s += " (" + cp.answer->link + ")";
    return s;
  }
  return format_state(cp.unconfirmed, cp.runs_after);
}

}  // namespace gpuperf::reports
