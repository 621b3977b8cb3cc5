#include "reports/program_cells.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "core/value_text.hpp"
#include "reports/format.hpp"
#include "reports/kind_split_text.hpp"

namespace gpuperf::reports {

std::vector<ProgramFamilyCells> program_family_cells(const ProgramPanel& p) {
  std::vector<ProgramFamilyCells> out;
  for (const analysis::TimePart& t : p.families) {
    ProgramFamilyCells c;
    c.family = t.name;
    c.before = p.previous_run && t.base_kernels > 0 ? format_value(t.base_ns, "ns") : "-";
    c.now = t.candidate_kernels > 0 ? format_value(t.candidate_ns, "ns") : "-";
    if (p.previous_run) {
      const auto pct = t.change_pct();
      c.change = format_signed_value(t.delta_ns(), "ns") +
                 (pct ? " (" + format_change_pct(*pct) + ")" : std::string(t.candidate_kernels > 0 ? " (new)" : ""));
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string program_time_line(const MachineReport& m, const ProgramPanel& p) {
  std::string line = "GPU time ";
  if (!p.previous_run) return line + format_value(p.kernel_time_ns, "ns") + " (its first recording here)";
  const RunRef& before = m.runs[*p.previous_run];
  line += format_value(p.kernel_time_before_ns, "ns") + " -> " + format_value(p.kernel_time_ns, "ns");
  if (p.kernel_time_before_ns > 0) {
    line += " (" + format_change_pct((p.kernel_time_ns / p.kernel_time_before_ns - 1) * 100) + ")";
  }
  return line + " since the recording at " + before.commit.substr(0, 10) + " (" + format_date(before.started_at) + ")";
}

ProgramKernelCells program_kernel_cells(const ProgramKernel& k) {
  ProgramKernelCells c;
  if (k.launches) c.launches = format_value(*k.launches, "count");
  if (k.median_ns) c.median = format_value(*k.median_ns, "ns");
  if (k.share_pct) c.share = format_value(*k.share_pct, "%");
  if (k.change_pct) c.since = format_change_pct(*k.change_pct);
  if (k.is_new) c.since = "new";
  return c;
}

std::vector<std::pair<const MachineReport*, const ProgramPanel*>> panels_with_communication(const ReportModel& model) {
  std::vector<std::pair<const MachineReport*, const ProgramPanel*>> out;
  for (const auto& m : model.machines) {
    for (const auto& p : m.programs) {
      if (p.split.has_communication()) out.emplace_back(&m, &p);
    }
  }
  const auto rank_of = [](const std::pair<const MachineReport*, const ProgramPanel*>& x) {
    const auto& r = x.first->runs[x.second->run].rank;
    return r ? static_cast<long long>(*r) : std::numeric_limits<long long>::max();
  };
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    return std::make_pair(a.second->program, rank_of(a)) < std::make_pair(b.second->program, rank_of(b));
  });
  return out;
}

RankSplitCells rank_split_cells(const MachineReport& m, const ProgramPanel& p) {
  const RunRef& run = m.runs[p.run];
  RankSplitCells c;
  c.program = p.program;
  c.rank = run.rank ? rank_text(run.rank, run.world_size) : "-";
  c.gpu = m.title();
  c.commit = short_commit(run.commit);
  c.compute = kind_cell(p.split, KernelKind::compute);
  c.communication = kind_cell(p.split, KernelKind::communication);
  c.launches = format_value(p.split.communication.launches, "count");
  if (p.split_before) {
    const analysis::KindSplitChange change{*p.split_before, p.split};
    if (const auto pct = change.change_pct(KernelKind::communication)) {
      c.since = format_change_pct(*pct);
    } else {
      c.since = "new";
    }
  }
  return c;
}

}  // namespace gpuperf::reports
