// The parts the verdict writers of every format share (verdict_writer.cpp: text and Markdown; verdict_json.cpp;
// verdict_junit.cpp): short forms, counts and the sentences that read the same in each.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "reports/analysis/compare_report.hpp"
#include "reports/analysis/detect.hpp"
#include "reports/analysis/types.hpp"

namespace gpuperf::reports {

std::string short_uuid(const std::string& uuid);
std::string signed_pct(double v);
// A change's machine as every command names it (its fingerprint where the name is unknown).
std::string machine_shown(const analysis::ChangePoint& c);
std::map<analysis::Verdict, std::size_t> verdict_counts(const std::vector<analysis::CompareRow>& rows);
std::size_t ambiguous_by_history(const std::vector<analysis::CompareRow>& rows);
// The base's instances the candidate lacks: what they do to the job, and the first names. Empty when none.
std::string missing_line(const analysis::CompareReport& report);
// "confirmed", or "unconfirmed (1 run)": how much of the new level there is to go on.
// An answered change says so first: "accepted: new kernel" or "acknowledged: tracked in #123".
std::string state_cell(const analysis::ChangePoint& c);
// A change's confidence with four decimals: "0.9990".
std::string confidence_cell(double c);

}  // namespace gpuperf::reports
