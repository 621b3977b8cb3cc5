#include "reports/verdict_parts.hpp"

#include <cmath>
#include <cstdio>

#include "reports/escape.hpp"
#include "reports/format.hpp"

namespace gpuperf::reports {

using namespace gpuperf::analysis;

std::string short_uuid(const std::string& uuid) { return uuid.size() > 8 ? uuid.substr(0, 8) : uuid; }

std::string signed_pct(double v) {
  if (!std::isfinite(v)) return v > 0 ? "+inf%" : (v < 0 ? "-inf%" : "n/a");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", v);
  return buf;
}

// A change's machine as every command names it (its fingerprint where the name is unknown).
std::string machine_shown(const ChangePoint& c) { return c.machine_name.empty() ? c.machine : c.machine_name; }

std::map<Verdict, std::size_t> verdict_counts(const std::vector<CompareRow>& rows) {
  std::map<Verdict, std::size_t> c;
  for (const auto& r : rows) ++c[r.verdict];
  return c;
}

std::size_t ambiguous_by_history(const std::vector<CompareRow>& rows) {
  return static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(), [](const CompareRow& r) { return r.ambiguous_by_history; }));
}

// The base's instances the candidate lacks: what they do to the job, and the first names. Empty when none.
std::string missing_line(const CompareReport& report) {
  const std::vector<std::string> names = report.missing_instances();
  if (names.empty()) return {};
  if (report.program) {  // a recorded program chooses its kernels at run time: a gone one is news, not a failure
    return terminal_text(std::to_string(names.size()) + " kernel identit" + (names.size() == 1 ? "y" : "ies") +
                         " of the base " + (names.size() == 1 ? "is" : "are") +
                         " gone from the candidate: reported, not failed (a program chooses its kernels at run "
                         "time; its time and the gated counters decide)");
  }
  std::string first;
  for (std::size_t i = 0; i < names.size() && i < 5; ++i) first += (i > 0 ? ", " : "") + names[i];
  if (names.size() > 5) first += ", ...";
  const std::string what = std::to_string(names.size()) + " benchmark instance" + (names.size() == 1 ? "" : "s") +
                           " of the base " + (names.size() == 1 ? "is" : "are") + " missing from the candidate (" +
                           first + ")";
  return terminal_text(report.allow_missing ? what + ": allowed by --allow-missing"
                                            : what + ": a partial candidate fails; --allow-missing allows it");
}

// "confirmed", or "unconfirmed (1 run)": how much of the new level there is to go on.
// An answered change says so first: "accepted: new kernel" or "acknowledged: tracked in #123".
std::string state_cell(const ChangePoint& c) {
  if (c.answer) return format_answer(c.answer->accepted, c.answer->reason);
  return format_state(c.unconfirmed, c.runs_after);
}

std::string confidence_cell(double c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", c);
  return buf;
}

}  // namespace gpuperf::reports
