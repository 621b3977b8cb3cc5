#include "reports/program_text.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/short_name.hpp"
#include "core/stats.hpp"
#include "core/value_text.hpp"
#include "reports/escape.hpp"
#include "reports/format.hpp"
#include "reports/text_table.hpp"

namespace gpuperf::reports {
namespace {

using analysis::KernelTimeChange;
using analysis::ProgramChange;
using analysis::Replacement;
using analysis::TimePart;
using nlohmann::json;

std::string time_text(double ns) { return format_value(ns, "ns", UnitText::terminal); }

// "+3.1 ms", "-120 us", "0".
std::string delta_text(double ns) { return ns == 0 ? "0" : format_signed_value(ns, "ns", UnitText::terminal); }

std::string pct_text(const std::optional<double>& pct, double candidate_ns) {
  if (pct) return format_change_pct(*pct);
  return candidate_ns > 0 ? "new" : "";
}

std::string kernels_text(const TimePart& p) {
  return p.base_kernels == p.candidate_kernels
             ? std::to_string(p.base_kernels)
             : std::to_string(p.base_kernels) + " -> " + std::to_string(p.candidate_kernels);
}

std::string side_time(const std::optional<double>& ns) { return ns ? time_text(*ns) : "-"; }

// The short names of every kernel of the program, unique among them.
ShortNames short_names(const ProgramChange& p) {
  std::vector<std::string> names;
  for (const KernelTimeChange& k : p.kernels) names.push_back(k.instance.name);
  return ShortNames(names);
}

// A kernel's short name without its program ("train/" dropped: the section names the program once).
std::string kernel_name(const ShortNames& names, const KernelTimeChange& k) {
  return benchmark_variant(names(k.instance.name));
}

// "gone: replaced by at::native::bmm_kernel (+2 more)", "new: replaces flash_fwd_kernel", "launches 26 -> 130".
std::string what_text(const ProgramChange& p, const ShortNames& names, const KernelTimeChange& k) {
  std::string s;
  if (k.gone() || k.added()) {
    s = k.gone() ? "gone" : "new";
    if (k.replacement) {
      const Replacement& r = p.replacements[*k.replacement];
      const std::vector<std::size_t>& other = k.gone() ? r.added : r.gone;
      s += std::string(k.gone() ? ", replaced by " : ", replaces ") + kernel_name(names, p.kernels[other.front()]);
      if (other.size() > 1) s += " (+" + std::to_string(other.size() - 1) + " more)";
    }
    return s;
  }
  if (k.base_launches != k.candidate_launches) {
    s = "launches " + format_number(k.base_launches) + " -> " + format_number(k.candidate_launches);
  }
  return s;
}

std::string verdict_text(const ProgramChange& p) {
  std::string v = to_string(p.verdict);
  if (p.verdict == analysis::Verdict::slower || p.verdict == analysis::Verdict::faster) {
    v += p.gated ? " (gates)" : " (does not gate: --gate program_time fails on it)";
  }
  return v;
}

std::vector<std::vector<std::string>> part_rows(const std::vector<TimePart>& parts, std::size_t limit) {
  std::vector<std::vector<std::string>> rows;
  for (const TimePart& t : parts) {
    if (rows.size() == limit) break;
    rows.push_back({t.name.empty() ? "(no range)" : t.name, t.base_kernels > 0 ? time_text(t.base_ns) : "-",
                    t.candidate_kernels > 0 ? time_text(t.candidate_ns) : "-", delta_text(t.delta_ns()),
                    pct_text(t.change_pct(), t.candidate_ns), kernels_text(t)});
  }
  return rows;
}

std::vector<std::vector<std::string>> kernel_rows(const ProgramChange& p, const ShortNames& names) {
  std::vector<std::vector<std::string>> rows;
  for (const KernelTimeChange& k : p.kernels) {
    if (rows.size() == kProgramTopKernels || k.delta_ns() == 0) break;
    rows.push_back({kernel_name(names, k), k.family, side_time(k.base_ns), side_time(k.candidate_ns),
                    delta_text(k.delta_ns()), what_text(p, names, k)});
  }
  return rows;
}

// "in train_step: flash_fwd_kernel (attention, 3.1 ms) replaced by bmm (GEMM, 2.0 ms), softmax (normalization,
// 1.1 ms)".
std::string replacement_text(const ProgramChange& p, const ShortNames& names, const Replacement& r) {
  const auto list = [&](const std::vector<std::size_t>& ks, bool base) {
    std::string s;
    for (std::size_t i = 0; i < ks.size() && i < 3; ++i) {
      const KernelTimeChange& k = p.kernels[ks[i]];
      s += (i > 0 ? ", " : "") + kernel_name(names, k) + " (" + k.family + ", " +
           time_text(base ? k.base_ns.value_or(0) : k.candidate_ns.value_or(0)) + ")";
    }
    if (ks.size() > 3) s += " and " + std::to_string(ks.size() - 3) + " more";
    return s;
  };
  return std::string(r.range.empty() ? "outside any NVTX range" : "in " + r.range) + ": " + list(r.gone, true) +
         " replaced by " + list(r.added, false) + " (" + delta_text(r.candidate_ns - r.base_ns) + ")";
}

std::string counts_text(const ProgramChange& p) {
  const std::size_t gone = p.gone_count(), added = p.added_count();
  std::size_t paired_gone = 0, paired_new = 0;
  for (const Replacement& r : p.replacements) {
    paired_gone += r.gone.size();
    paired_new += r.added.size();
  }
  std::string s = std::to_string(p.kernels.size()) + " kernel identities: " + std::to_string(gone) + " gone, " +
                  std::to_string(added) + " new";
  if (!p.replacements.empty()) {
    s += " (" + std::to_string(paired_gone) + " gone and " + std::to_string(paired_new) + " new paired in " +
         std::to_string(p.replacements.size()) + " replacement" + (p.replacements.size() == 1 ? "" : "s") + ")";
  }
  return s + "; a gone kernel is reported, not failed";
}

}  // namespace

std::string program_line(const ProgramChange& p) {
  // The medians the verdict compared: this pair's totals when each side has one run.
  const bool several = p.base_runs.size() > 1 || p.candidate_runs.size() > 1;
  const double before = p.base_runs.empty() ? p.base_ns : median(p.base_runs);
  const double after = p.candidate_runs.empty() ? p.candidate_ns : median(p.candidate_runs);
  return "program " + p.program + ": GPU time " + time_text(before) + " -> " + time_text(after) + " (" +
         format_change_pct(p.change_pct) + (several ? ", medians" : "") + "), " + verdict_text(p) +
         (p.note.empty() ? "" : " (" + p.note + ")");
}

void write_program(std::ostream& out, const ProgramChange& p, bool markdown) {
  const ShortNames names = short_names(p);
  const std::vector<std::string> part_header{"base", "candidate", "change", "%", "kernels"};
  const auto header = [&](const char* first) {
    std::vector<std::string> h{first};
    h.insert(h.end(), part_header.begin(), part_header.end());
    return h;
  };
  const auto escaped = [&](std::vector<std::vector<std::string>> rows) {
    if (markdown) {
      for (auto& r : rows) {
        for (auto& c : r) c = md_escape(c);
      }
    }
    return rows;
  };
  const std::vector<std::vector<std::string>> families = escaped(part_rows(p.families, p.families.size()));
  const std::vector<std::vector<std::string>> ranges = escaped(part_rows(p.ranges, kProgramTopRanges));
  const std::vector<std::vector<std::string>> kernels = escaped(kernel_rows(p, names));
  const std::vector<std::string> kernel_header{"kernel", "family", "base", "candidate", "change", "what"};
  std::vector<std::string> replaced;
  for (std::size_t i = 0; i < p.replacements.size() && i < kProgramTopReplacements; ++i) {
    replaced.push_back(replacement_text(p, names, p.replacements[i]));
  }
  if (!markdown) {
    out << terminal_text(program_line(p)) << '\n';
    if (!p.next_step.empty()) out << "    next: " << terminal_text(p.next_step) << '\n';
    out << "\nGPU time by kernel family:\n";
    write_table(out, header("family"), families);
    if (!ranges.empty()) {
      out << "\nGPU time by NVTX range" << (p.ranges.size() > ranges.size() ? " (the ranges that moved most)" : "")
          << ":\n";
      write_table(out, header("range"), ranges);
    }
    if (!kernels.empty()) {
      out << "\nKernels by change in GPU time (top " << kernels.size() << "):\n";
      write_table(out, kernel_header, kernels);
    }
    if (!replaced.empty()) {
      out << "\nReplaced kernels (gone ones and the new ones of the same range that took their place):\n";
      for (const std::string& r : replaced) out << "  " << terminal_text(r) << '\n';
    }
    out << '\n' << counts_text(p) << "\n\n";
    return;
  }
  out << "**" << md_escape(program_line(p)) << "**\n\n";
  if (!p.next_step.empty()) out << "Next: " << reports::md_code(p.next_step) << "\n\n";
  out << "GPU time by kernel family:\n\n";
  write_md_table(out, header("Family"), "lrrrrr", families);
  if (!ranges.empty()) {
    out << "\nGPU time by NVTX range" << (p.ranges.size() > ranges.size() ? " (the ranges that moved most)" : "")
        << ":\n\n";
    write_md_table(out, header("Range"), "lrrrrr", ranges);
  }
  if (!kernels.empty()) {
    out << "\nKernels by change in GPU time (top " << kernels.size() << "):\n\n";
    write_md_table(out, {"Kernel", "Family", "Base", "Candidate", "Change", "What"}, "llrrrl", kernels);
  }
  if (!replaced.empty()) {
    out << "\nReplaced kernels:\n\n";
    for (const std::string& r : replaced) out << "- " << md_escape(r) << '\n';
  }
  out << '\n' << md_escape(counts_text(p)) << ".\n\n";
}

void write_program_changes(std::ostream& out, const std::vector<analysis::ChangePoint>& programs, bool markdown) {
  if (programs.empty()) return;
  const char* title =
      "Recorded programs whose GPU time stepped (the sum of their kernels' gpu_time_total; "
      "--gate program_time fails on a regression)";
  out << (markdown ? "**" + std::string(title) + "**:\n\n" : std::string(title) + ":\n");
  for (const analysis::ChangePoint& c : programs) {
    const std::string line =
        "program " + c.instance.name + " on " + (c.machine_name.empty() ? c.machine : c.machine_name) + ": GPU time " +
        time_text(c.before) + " -> " + time_text(c.after) + " (" + format_change_pct(c.change_pct) + ") at " +
        short_commit(c.commit) + " (previous " + short_commit(c.previous_commit) + "), " + to_string(c.kind) + ", " +
        format_state(c.unconfirmed, c.runs_after) + ", gates: " + (c.gated ? "yes" : "no");
    out << (markdown ? "- " + md_escape(line) : "  " + terminal_text(line)) << '\n';
  }
  out << '\n';
}

json program_changes_json(const std::vector<analysis::ChangePoint>& programs) {
  json out = json::array();
  for (const analysis::ChangePoint& c : programs) {
    out.push_back(json{{"machine", c.machine},
                       {"program", c.instance.name},
                       {"metric", c.metric.name},
                       {"commit", c.commit},
                       {"previous_commit", c.previous_commit},
                       {"run", c.run_uuid},
                       {"run_id", c.run_id},
                       {"started_at", c.started_at},
                       {"kind", to_string(c.kind)},
                       {"change_pct", c.change_pct},
                       {"before", c.before},
                       {"after", c.after},
                       {"confidence", c.confidence},
                       {"gated", c.gated}});
  }
  return out;
}

json program_change_json(const ProgramChange& p) {
  const auto number = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  const auto part = [&](const TimePart& t, const char* key) {
    const auto pct = t.change_pct();
    return json{{key, t.name},
                {"base_ns", t.base_ns},
                {"candidate_ns", t.candidate_ns},
                {"delta_ns", t.delta_ns()},
                {"change_pct", pct ? number(*pct) : json(nullptr)},
                {"base_kernels", t.base_kernels},
                {"candidate_kernels", t.candidate_kernels}};
  };
  json families = json::array(), ranges = json::array(), kernels = json::array(), replacements = json::array();
  for (const TimePart& t : p.families) families.push_back(part(t, "family"));
  for (const TimePart& t : p.ranges) ranges.push_back(part(t, "range"));
  for (const KernelTimeChange& k : p.kernels) {
    kernels.push_back(json{{"benchmark", k.instance.name},
                           {"params", json::parse(params_json(k.instance.params))},
                           {"family", k.family},
                           {"range", k.range},
                           {"base_ns", k.base_ns ? json(*k.base_ns) : json(nullptr)},
                           {"candidate_ns", k.candidate_ns ? json(*k.candidate_ns) : json(nullptr)},
                           {"delta_ns", k.delta_ns()},
                           {"base_launches", k.base_launches},
                           {"candidate_launches", k.candidate_launches},
                           {"state", k.gone()    ? "gone"
                                     : k.added() ? "new"
                                                 : "both"},
                           {"replacement", k.replacement ? json(*k.replacement) : json(nullptr)}});
  }
  for (const Replacement& r : p.replacements) {
    json gone = json::array(), added = json::array();
    for (std::size_t i : r.gone) gone.push_back(p.kernels[i].instance.display_name());
    for (std::size_t i : r.added) added.push_back(p.kernels[i].instance.display_name());
    replacements.push_back(json{{"range", r.range},
                                {"family", r.family.empty() ? json(nullptr) : json(r.family)},
                                {"gone", gone},
                                {"new", added},
                                {"base_ns", r.base_ns},
                                {"candidate_ns", r.candidate_ns}});
  }
  const bool moved = p.verdict == analysis::Verdict::slower || p.verdict == analysis::Verdict::faster;
  return json{
      {"program", p.program},
      {"command", p.command},
      {"verdict", to_string(p.verdict)},
      {"kind", moved ? json(p.verdict == analysis::Verdict::slower ? "regression" : "improvement") : json(nullptr)},
      {"change_pct", number(p.change_pct)},
      {"base_ns", p.base_ns},
      {"candidate_ns", p.candidate_ns},
      {"base_runs", p.base_runs},
      {"candidate_runs", p.candidate_runs},
      {"min_effect_pct", p.min_effect_pct},
      {"gated", p.gated},
      {"regression", p.regression()},
      {"note", p.note},
      {"next_step", p.next_step.empty() ? json(nullptr) : json(p.next_step)},
      {"runs_needed", p.runs_needed},
      {"families", families},
      {"ranges", ranges},
      {"kernels", kernels},
      {"replacements", replacements},
      {"family_rules", p.family_rules}};
}

}  // namespace gpuperf::reports
