#include "reports/kind_split_text.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/value_text.hpp"
#include "reports/analysis/detect.hpp"
#include "reports/format.hpp"
#include "reports/text_table.hpp"

namespace gpuperf::reports {
namespace {

constexpr KernelKind kKinds[] = {KernelKind::compute, KernelKind::communication};

std::string share_text(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", pct);
  return buf;
}

std::string change_cell(const analysis::KindSplitChange& c, KernelKind kind) {
  const auto pct = c.change_pct(kind);
  if (pct) return format_change_pct(*pct);
  return c.candidate.of(kind).gpu_time_ns > 0 ? "new" : "";
}

// A kind's cell in compare's tables: their values are ASCII ("10 us", as format_value's terminal text writes the
// kernel rows above it), so the text table's columns line up by bytes.
std::string compare_cell(const analysis::KindSplit& split, KernelKind kind) {
  return format_value(split.of(kind).gpu_time_ns, "ns", UnitText::terminal) + " (" + share_text(split.share_pct(kind)) +
         ")";
}

// The rows both compare tables show: kind, base, candidate, change.
std::vector<std::vector<std::string>> change_rows(const analysis::KindSplitChange& c) {
  std::vector<std::vector<std::string>> rows;
  for (KernelKind k : kKinds) {
    rows.push_back({to_string(k), compare_cell(c.base, k), compare_cell(c.candidate, k), change_cell(c, k)});
  }
  return rows;
}

constexpr const char* kKindsTitle = "GPU time by kernel kind (compute or communication; informative, does not gate)";

}  // namespace

std::string rank_text(const std::optional<int>& rank, const std::optional<int>& world_size) {
  if (!rank) return "";
  return "rank " + std::to_string(*rank) + (world_size ? "/" + std::to_string(*world_size) : "");
}

std::string kind_cell(const analysis::KindSplit& split, KernelKind kind) {
  return format_value(split.of(kind).gpu_time_ns, "ns") + " (" + share_text(split.share_pct(kind)) + ")";
}

std::string kind_split_line(const Run& run, const analysis::KindSplit& split) {
  if (!split.has_communication()) return "";
  const std::string name = machine_name(run.machine);
  std::string line = rank_text(run.rank, run.world_size);
  line += line.empty() ? name : " on " + name;
  char launches[32];
  std::snprintf(launches, sizeof launches, "%.0f", split.communication.launches);
  return line + ": compute " + kind_cell(split, KernelKind::compute) + ", communication " +
         kind_cell(split, KernelKind::communication) + " in " + launches + " launches";
}

nlohmann::json kind_split_json(const analysis::KindSplit& split) {
  nlohmann::json j = nlohmann::json::object();
  for (KernelKind k : kKinds) {
    const analysis::KindTotals& t = split.of(k);
    j[to_string(k)] = {{"gpu_time_ns", t.gpu_time_ns},
                       {"share_pct", split.share_pct(k)},
                       {"launches", t.launches},
                       {"kernels", t.kernels}};
  }
  return j;
}

void write_kind_split_text(std::ostream& out, const analysis::KindSplitChange& c) {
  out << kKindsTitle << ":\n";
  write_table(out, {"kind", "base", "candidate", "change"}, change_rows(c), nullptr, "  ");
}

void write_kind_split_md(std::ostream& out, const analysis::KindSplitChange& c) {
  out << kKindsTitle << ":\n\n| Kind | Base | Candidate | Change |\n| --- | ---: | ---: | ---: |\n";
  for (const auto& r : change_rows(c)) out << "| " << r[0] << " | " << r[1] << " | " << r[2] << " | " << r[3] << " |\n";
}

nlohmann::json kind_split_change_json(const analysis::KindSplitChange& c) {
  nlohmann::json change = nlohmann::json::object();
  for (KernelKind k : kKinds) {
    const auto pct = c.change_pct(k);
    change[to_string(k)] = pct ? nlohmann::json(*pct) : nlohmann::json(nullptr);
  }
  return {{"base", kind_split_json(c.base)},
          {"candidate", kind_split_json(c.candidate)},
          {"change_pct", change},
          {"gated", false}};
}

}  // namespace gpuperf::reports
