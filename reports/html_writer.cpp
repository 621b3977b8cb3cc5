// The HTML report: summary, regressions, variant comparisons and trends, per machine, in one page.
#include <algorithm>
#include <cstdio>
#include <string>

#include "reports/analysis/answers.hpp"
#include "reports/cross_machine.hpp"
#include "reports/escape.hpp"
#include "reports/format.hpp"
#include "reports/html_assets.hpp"
#include "reports/html_charts.hpp"
#include "reports/html_source.hpp"
#include "reports/kind_split_text.hpp"
#include "reports/line_text.hpp"
#include "reports/program_cells.hpp"
#include "reports/writers.hpp"

namespace gpuperf::reports {
namespace {

using html::HoverData;

std::string esc(const std::string& s) { return html_escape(s); }

// An instance's short display name (InstanceTrends::short_name), escaped, with line-break opportunities
// before its parameters and after each comma and "::", so a long name wraps between parameters and scopes
// rather than inside one.
std::string name_html(const InstanceTrends& t) {
  std::string out;
  for (char c : esc(t.short_display_name())) {
    if (c == '[') out += "<wbr>";
    out += c;
    if (c == ',' || (c == ':' && out.size() > 1 && out[out.size() - 2] == ':')) out += "<wbr>";
  }
  return out;
}

bool folded(const InstanceTrends& t) { return !t.short_name.empty() && t.short_name != t.instance.name; }

// Where the short name stands in text: the full one on hover.
std::string name_span(const InstanceTrends& t) {
  if (!folded(t)) return name_html(t);
  return "<span class=\"kname\" title=\"" + esc(t.instance.display_name()) + "\">" + name_html(t) + "</span>";
}

// In a table cell: the short name (a link to its trends when `anchor` is given), the full one on hover and,
// opened, below it.
std::string name_cell(const InstanceTrends& t, const std::string& anchor = "") {
  std::string shown = name_html(t);
  if (!anchor.empty()) shown = "<a href=\"#" + anchor + "\">" + shown + "</a>";
  if (!folded(t)) return shown;
  const std::string full = esc(t.instance.display_name());
  return "<details class=\"kname\"><summary title=\"" + full + "\">" + shown + "</summary><code class=\"full\">" +
         full + "</code></details>";
}

std::string scope_line(const ReportModel& model) {
  const auto& q = model.query;
  std::string s = "Branch: " + esc(q.branch.value_or("all")) + " \xC2\xB7 Machine: " + esc(q.machines_text());
  if (q.since) s += " \xC2\xB7 Since: " + esc(*q.since);
  if (q.last) s += " \xC2\xB7 Last " + std::to_string(*q.last) + " runs per machine";
  s += " \xC2\xB7 " + std::to_string(model.total_runs()) + " runs on " + std::to_string(model.machines.size()) +
       (model.machines.size() == 1 ? " machine" : " machines");
  return s;
}

std::string card(const std::string& key, const std::string& value_html, const std::string& sub_html,
                 const std::string& cls = "") {
  return "<div class=\"card" + (cls.empty() ? "" : " " + cls) + "\"><span class=\"k\">" + key +
         "</span><span class=\"v\">" + value_html + "</span>" +
         (sub_html.empty() ? "" : "<span class=\"s\">" + sub_html + "</span>") + "</div>";
}

// The overview's findings across machines: each finding once, with the machines it is on (all that measure
// it: a code change; one: that machine).
std::string across_machines(const ReportModel& model) {
  const std::vector<CrossMachineFinding> found = cross_machine_findings(model);
  if (found.empty()) return "";
  std::string o =
      "<h3>Findings across machines</h3>\n<table class=\"across\"><thead><tr><th>Benchmark</th><th>Metric</th>"
      "<th>Kind</th><th>On</th><th class=\"num\">Change</th></tr></thead><tbody>\n";
  for (const CrossMachineFinding& f : found) {
    const std::string range = f.min_change_pct == f.max_change_pct
                                  ? format_change_pct(f.min_change_pct)
                                  : format_change_pct(f.min_change_pct) + " to " + format_change_pct(f.max_change_pct);
    o += "<tr><td class=\"name\">" + esc(model.machines[f.machine].instances[f.instance].short_display_name()) +
         "</td><td>" + esc(f.metric) + "</td><td class=\"" + (f.regression ? "bad" : "good") + "\">" +
         (f.regression ? "regression" : "improvement") + "</td><td>" + (f.on_all() ? "<strong>" : "") +
         esc(f.on_text()) + (f.on_all() ? "</strong>" : "") +
         (f.hosts.size() > 1 && f.same_commit ? " (one commit)" : "") + "</td><td class=\"num\">" + esc(range) +
         "</td></tr>\n";
  }
  return o + "</tbody></table>\n";
}

std::string summary(const MachineReport& m) {
  std::string o = "<div class=\"cards\">";
  if (m.latest) {
    const auto& r = *m.latest;
    std::string sub = "commit <code>" + esc(short_commit(r.commit)) + "</code>";
    if (!r.branch.empty()) sub += " \xC2\xB7 " + esc(r.branch);
    if (!r.label.empty()) sub += " \xC2\xB7 " + esc(r.label);
    o += card("Latest run", esc(format_datetime(r.started_at)), sub);
  }
  std::size_t answered = 0;
  for (const ChangeRow& row : m.regressions) answered += analysis::is_answered(row.change) ? 1 : 0;
  o += card(
      "Regressions", std::to_string(m.regressions.size()),
      answered == 0 ? "findings in the window" : "findings in the window, " + std::to_string(answered) + " answered",
      m.regressions.size() == answered ? "" : "bad");
  o += card("Improvements", std::to_string(m.improvements.size()), "", m.improvements.empty() ? "" : "good");
  std::string span;
  if (!m.runs.empty())
    span = esc(format_date(m.runs.front().started_at)) + " to " + esc(format_date(m.runs.back().started_at));
  o += card("Runs", std::to_string(m.runs.size()), span);
  o += card("Benchmarks", std::to_string(m.instances.size()), std::to_string(m.series_count) + " series");
  o += "</div><dl class=\"facts\">";
  auto fact = [&](const char* k, const std::string& v) {
    if (!v.empty()) o += std::string("<dt>") + k + "</dt><dd>" + esc(v) + "</dd>";
  };
  fact("GPU", m.machine.gpu_name);
  fact("Compute capability", m.machine.cc);
  if (m.machine.sm_count > 0) fact("SMs", std::to_string(m.machine.sm_count));
  fact("Driver", m.machine.driver);
  fact("CUDA", m.machine.cuda);
  fact("Host", m.machine.hostname);
  fact("Fingerprint", m.fingerprint);
  if (m.latest) fact("Latest run", m.latest->uuid);
  o += "</dl>\n";
  return o;
}

// A hint as HTML whose "a -> b" never breaks across lines.
std::string hint_html(const std::string& hint) {
  std::string o = esc(hint);
  for (std::size_t at = o.find(" -&gt; "); at != std::string::npos; at = o.find(" -&gt; ", at)) {
    const std::string arrow = "<span class=\"nowrap\">&nbsp;-&gt;&nbsp;</span>";
    o.replace(at, 7, arrow);
    at += arrow.size();
  }
  return o;
}

// A finding's hints: one line first, what explains it (the bound, the counter that explains the time, the
// source line whose counters moved), then the rest folded under it. order_hints() puts the explaining counters
// first and the bound after them.
std::string hints_cell(const std::vector<std::string>& hints, const std::vector<analysis::LineChange>& lines) {
  if (hints.empty() && lines.empty()) return "";
  std::vector<std::string> lead, rest;
  const auto is_bound = [](const std::string& h) {
    return h.find("-bound ") != std::string::npos || h.rfind("bound ", 0) == 0;
  };
  const auto bound = std::find_if(hints.begin(), hints.end(), is_bound);
  const auto counter = std::find_if(hints.begin(), hints.end(), [&](const std::string& h) { return !is_bound(h); });
  if (bound != hints.end()) lead.push_back("<span class=\"bound\">" + hint_html(*bound) + "</span>");
  if (counter != hints.end()) lead.push_back(hint_html(*counter));
  std::size_t first_folded = 1;  // of `lines`
  if (!lines.empty()) {
    analysis::LineChange short_line = lines.front();  // its place, its text and its first counter
    if (short_line.counters.size() > 1) {
      short_line.counters.resize(1);
      first_folded = 0;  // in full below
    }
    lead.push_back("<code>" + esc(line_change_text(short_line)) + "</code>");
  }
  for (auto it = hints.begin(); it != hints.end(); ++it) {
    if (it != bound && it != counter) rest.push_back("<li>" + hint_html(*it) + "</li>");
  }
  // The source lines that moved at the change (line_text.hpp).
  for (std::size_t i = first_folded; i < lines.size(); ++i) {
    rest.push_back("<li class=\"srcline\"><code>" + esc(line_change_text(lines[i])) + "</code></li>");
  }
  std::string o = "<div class=\"lead\">";
  for (std::size_t i = 0; i < lead.size(); ++i) o += (i > 0 ? " <span class=\"sep\">\xC2\xB7</span> " : "") + lead[i];
  o += "</div>";
  if (!rest.empty()) {
    o += "<details><summary>" + std::to_string(rest.size()) + (rest.size() == 1 ? " more hint" : " more hints") +
         "</summary><ul>";
    for (const auto& r : rest) o += r;
    o += "</ul></details>";
  }
  return o;
}

std::string change_table(const MachineReport& m, std::size_t mi, const std::vector<ChangeRow>& rows, bool regression) {
  if (rows.empty()) {
    return std::string("<p class=\"muted\">No ") + (regression ? "regressions" : "improvements") +
           " detected in this window.</p>\n";
  }
  std::string o =
      "<table><thead><tr><th>Benchmark</th><th>Metric</th><th class=\"num\">Change</th><th class=\"num\">Before</th>"
      "<th class=\"num\">After</th><th>Commits</th><th>First run at new level</th><th class=\"num\">Confidence</th>"
      "<th>State</th><th>Root-cause hints</th></tr></thead><tbody>\n";
  for (const auto& row : rows) {
    const auto& cp = row.change;
    const auto& unit = cp.metric.unit;
    const bool step = !row.step.empty();  // one finding for the kernels that stepped with the environment
    o += "<tr><td class=\"name\">" +
         (step ? esc(step_name_cell(row))
               : name_cell(m.instances[row.instance], html::instance_anchor(mi, row.instance))) +
         "</td><td>" + esc(cp.metric.name) + "</td>";
    o += std::string("<td class=\"num ") + (regression ? "bad" : "good") + "\">" +
         esc(format_change(cp.before, cp.after, cp.change_pct)) + "</td><td class=\"num\">" +
         esc(format_value(cp.before, unit)) + "</td><td class=\"num\">" + esc(format_value(cp.after, unit)) + "</td>";
    o += "<td class=\"nowrap\"><code>" + esc(short_commit(cp.previous_commit)) + "</code>..<code>" +
         esc(short_commit(cp.commit)) + "</code></td><td class=\"nowrap\">" + esc(format_datetime(cp.started_at)) +
         "</td><td class=\"num\">" + std::to_string(static_cast<int>(cp.confidence * 100 + 0.5)) + "%</td><td" +
         (cp.answer ? " class=\"answered\"" : " class=\"nowrap\"") + ">" + esc(change_state(cp)) + "</td><td>";
    if (row.counter_only) o += std::string("<em>") + kCounterOnly + (cp.gated ? "" : kNotGated) + "</em>";
    o += step ? hints_cell(step_hints(row), {}) : hints_cell(row.hints, cp.lines);
    o += "</td></tr>\n";
  }
  o += "</tbody></table>\n";
  return o;
}

// Recorded programs (gpuperf record): each one's kernels at its newest run, the heaviest first.
std::string programs(const MachineReport& m) {
  std::string o;
  for (const auto& p : m.programs) {
    const RunRef& run = m.runs[p.run];
    o += "<h4>" + esc(p.program) + "</h4>\n<p>" + std::to_string(p.kernels.size()) + " kernels, " +
         esc(format_value(p.kernel_time_ns, "ns")) + " of kernel time at " + esc(run.commit.substr(0, 10)) + " (" +
         esc(format_date(run.started_at)) + ").</p>\n";
    if (p.split.has_communication()) {
      o += "<p>Compute " + esc(kind_cell(p.split, KernelKind::compute)) + ", communication " +
           esc(kind_cell(p.split, KernelKind::communication)) +
           (run.rank ? " on " + esc(rank_text(run.rank, run.world_size)) : std::string()) + ".</p>\n";
    }
    // The program first: its time against its recording before, by kernel family; then its kernels.
    o += "<p>" + esc(program_time_line(m, p)) +
         ", by kernel family:</p>\n<table class=\"families\"><thead><tr>"
         "<th>Family</th><th class=\"num\">Before</th><th class=\"num\">Now</th><th class=\"num\">Change</th>"
         "</tr></thead><tbody>\n";
    for (const ProgramFamilyCells& c : program_family_cells(p)) {
      o += "<tr><td>" + esc(c.family) + "</td><td class=\"num\">" + esc(c.before) + "</td><td class=\"num\">" +
           esc(c.now) + "</td><td class=\"num\">" + esc(c.change) + "</td></tr>\n";
    }
    o += "</tbody></table>\n";
    o += "<table class=\"programs\"><thead><tr><th>Kernel</th><th>Launches</th><th>Median</th><th>Share</th>"
         "<th>Since the run before</th></tr></thead><tbody>\n";
    for (std::size_t k = 0; k < p.kernels.size() && k < 25; ++k) {
      const ProgramKernelCells c = program_kernel_cells(p.kernels[k]);
      o += "<tr><td class=\"name\">" + name_cell(m.instances[p.kernels[k].instance]) + "</td><td class=\"num\">" +
           esc(c.launches) + "</td><td class=\"num\">" + esc(c.median) + "</td><td class=\"num\">" + esc(c.share) +
           "</td><td class=\"num\">" + esc(c.since) + "</td></tr>\n";
    }
    o += "</tbody></table>\n";
  }
  return o;
}

// GPU time by rank: per recorded program with communication kernels, each GPU's compute and communication
// time at its newest run (report_model.hpp, RankSplitCells).
std::string ranks(const ReportModel& model) {
  const auto panels = panels_with_communication(model);
  if (panels.empty()) return "";
  std::string o =
      "<h2>GPU time by rank</h2>\n<p class=\"legend-note\">Each recorded program with communication kernels "
      "(NCCL and the like): its GPU time per rank at the newest run, split between compute and communication "
      "kernels.</p>\n<table class=\"ranks\"><thead><tr><th>Program</th><th>Rank</th><th>GPU</th><th>Commit</th>"
      "<th class=\"num\">Compute</th><th class=\"num\">Communication</th><th class=\"num\">Communication "
      "launches</th><th class=\"num\">Communication since the run before</th></tr></thead><tbody>\n";
  for (const auto& [m, p] : panels) {
    const RankSplitCells c = rank_split_cells(*m, *p);
    o += "<tr><td class=\"name\">" + esc(c.program) + "</td><td>" + esc(c.rank) + "</td><td>" + esc(c.gpu) +
         "</td><td><code>" + esc(c.commit) + "</code></td><td class=\"num\">" + esc(c.compute) +
         "</td><td class=\"num\">" + esc(c.communication) + "</td><td class=\"num\">" + esc(c.launches) +
         "</td><td class=\"num\">" + esc(c.since) + "</td></tr>\n";
  }
  return o + "</tbody></table>\n";
}

std::string families(const MachineReport& m, std::size_t mi, HoverData& hover) {
  if (m.families.empty()) {
    return "<p class=\"muted\">No variant pairs: no benchmark in this window names a family baseline.</p>\n";
  }
  std::string o;
  for (const auto& f : m.families) {
    o += "<h4>" + esc(f.family) + "</h4>\n";
    for (const auto& pair : f.pairs) {
      const auto& v = m.instances[pair.variant];
      const auto& b = m.instances[pair.baseline];
      o += "<div class=\"pair\"><h5>" + name_span(v) + " <span class=\"muted\">vs</span> " + name_span(b) + "</h5>\n";
      if (!pair.ratio.empty()) {
        const std::string label = m.ratio_label(pair);
        o += "<p>" + esc(label) + " duration ratio: <strong>" + esc(format_ratio(pair.ratio.back().value)) +
             "</strong> now";
        if (pair.ratio.size() > 1) {
          o += ", " + esc(format_ratio(pair.ratio.front().value)) + " at the start of the window";
        }
        if (!pair.key_metric.empty()) o += "; key hardware metric: " + esc(pair.key_metric);
        o += ".</p>\n";
      }
      o += "<div class=\"charts\">" + html::pair_figures(m, mi, pair, hover) + "</div>";
      o += html::source_pair(m, v, b) + "</div>\n";
    }
  }
  return o;
}

// The kernel's speed of light at its latest run (core/bound.hpp): one bar for compute (SM) and one for memory
// throughput, % of peak, with the line at which a unit bounds the kernel; the bound in words beside them.
std::string sol_bars(const MachineReport& m, const InstanceTrends& inst) {
  if (!inst.bound) return "";
  const InstanceBound& b = *inst.bound;
  const auto bar = [](const char* label, double pct, bool decides) {
    const double w = std::clamp(pct, 0.0, 100.0);
    char width[32];
    std::snprintf(width, sizeof width, "%.1f%%", w);
    return std::string("<div class=\"solrow\"><span class=\"soll\">") + label +
           "</span><span class=\"solbar\"><span class=\"solfill" + (decides ? " decides" : "") +
           "\" style=\"width:" + width + "\"></span></span><span class=\"solv\">" + esc(format_value(pct, "%")) +
           "</span></div>";
  };
  const bool compute = b.verdict.bound == Bound::compute, memory = b.verdict.bound == Bound::memory;
  std::string o = "<div class=\"sol\" title=\"Speed of light at " + esc(short_commit(m.runs[b.run].commit)) + " (" +
                  esc(format_datetime(m.runs[b.run].started_at)) +
                  "): the busiest SM unit and the busiest "
                  "memory unit, % of peak; " +
                  esc(format_value(kBoundPeakPct, "%")) + " or more bounds the kernel\">";
  o += bar("SM", *b.sol.sm, compute) + bar("Memory", *b.sol.memory, memory);
  std::string words = bound_text(b.verdict);
  if (b.sol.dram && b.verdict.unit != "DRAM") {
    char dram[32];
    std::snprintf(dram, sizeof dram, ", DRAM %.0f%%", *b.sol.dram);  // rounded as bound_text() rounds
    words += dram;
  }
  o += "<span class=\"solverdict\">" + esc(words) + "</span></div>\n";
  return o;
}

std::string trends(const MachineReport& m, std::size_t mi, HoverData& hover) {
  std::string o;
  const bool open_all = m.instances.size() <= 8;
  for (std::size_t ii = 0; ii < m.instances.size(); ++ii) {
    const auto& inst = m.instances[ii];
    const bool changed = inst.regressions + inst.improvements > 0;
    o += "<details class=\"instance\" id=\"" + html::instance_anchor(mi, ii) + "\"" +
         (open_all || changed ? " open" : "") + "><summary>" + name_span(inst);
    if (inst.regressions > 0) {
      o += " <span class=\"badge bad\">" + std::to_string(inst.regressions) +
           (inst.regressions == 1 ? " regression" : " regressions") + "</span>";
    }
    if (inst.improvements > 0) {
      o += " <span class=\"badge good\">" + std::to_string(inst.improvements) +
           (inst.improvements == 1 ? " improvement" : " improvements") + "</span>";
    }
    if (inst.bound && inst.bound->verdict.bound) {
      o += " <span class=\"badge bound\">" + esc(std::string(to_string(*inst.bound->verdict.bound)) + "-bound") +
           "</span>";
    }
    o += "</summary>\n";
    o += sol_bars(m, inst);
    if (folded(inst))
      o += "<p class=\"fullname\">Full name: <code>" + esc(inst.instance.display_name()) + "</code></p>\n";
    o += "<div class=\"charts\">";
    std::string flat;
    for (const auto& s : inst.series) {
      if (s.constant() && s.changes.empty() && s.points.size() > 1) {
        flat += (flat.empty() ? "" : " \xC2\xB7 ") + esc(s.metric.name) + " " +
                esc(format_value(s.latest(), s.metric.unit));
        continue;
      }
      o += html::trend_figure(m, mi, inst, s, hover);
    }
    o += "</div>";
    if (!flat.empty())
      o += "<p class=\"constant\">Unchanged in all " + std::to_string(m.runs.size()) + " runs: " + flat + "</p>";
    o += html::source_view(m, inst);
    o += "</details>\n";
  }
  return o;
}

}  // namespace

std::string render_html(const ReportModel& model) {
  HoverData hover;
  std::string title = "gpuperf report";
  if (model.machines.size() == 1) title += " \xE2\x80\x94 " + model.machines.front().title();

  std::string body = "<header><h1>gpuperf trend report</h1><p class=\"scope\">" + scope_line(model) + "</p></header>\n";
  if (model.machines.empty()) {
    body +=
        "<div class=\"empty\"><p><strong>No runs to report.</strong> The database has no results for these filters. "
        "Record runs with <code>gpuperf run</code> or load them with <code>gpuperf import</code>.</p></div>";
  }
  if (model.machines.size() > 1) {
    body += "<nav>";
    for (std::size_t mi = 0; mi < model.machines.size(); ++mi) {
      body += "<a href=\"#m" + std::to_string(mi) + "\">" + esc(model.machines[mi].title()) + "</a>";
    }
    body +=
        "</nav>\n<table><thead><tr><th>Machine</th><th>Latest run</th><th>Commit</th><th class=\"num\">Runs</th>"
        "<th class=\"num\">Regressions</th><th class=\"num\">Improvements</th></tr></thead><tbody>\n";
    for (std::size_t mi = 0; mi < model.machines.size(); ++mi) {
      const auto& m = model.machines[mi];
      body += "<tr><td class=\"name\"><a href=\"#m" + std::to_string(mi) + "\">" + esc(m.title()) + "</a></td><td>" +
              (m.latest ? esc(format_datetime(m.latest->started_at)) : "") + "</td><td><code>" +
              (m.latest ? esc(short_commit(m.latest->commit)) : "") + "</code></td><td class=\"num\">" +
              std::to_string(m.runs.size()) + "</td><td class=\"num" + (m.regressions.empty() ? "" : " bad") + "\">" +
              std::to_string(m.regressions.size()) + "</td><td class=\"num" + (m.improvements.empty() ? "" : " good") +
              "\">" + std::to_string(m.improvements.size()) + "</td></tr>\n";
    }
    body += "</tbody></table>\n" + across_machines(model);
  }
  body += ranks(model);
  for (std::size_t mi = 0; mi < model.machines.size(); ++mi) {
    const auto& m = model.machines[mi];
    body += "<section class=\"machine\" id=\"m" + std::to_string(mi) + "\"><h2>" + esc(m.title()) + "</h2>\n";
    body += summary(m);
    body += "<h3>Regressions</h3>\n" + change_table(m, mi, m.regressions, true);
    body += "<h3>Improvements</h3>\n" + change_table(m, mi, m.improvements, false);
    body += "<h3>Variant comparisons</h3>\n" + families(m, mi, hover);
    if (!m.programs.empty()) body += "<h3>Recorded programs</h3>\n" + programs(m);
    body +=
        "<h3>Trends</h3><p class=\"legend-note\">Each chart: the median of every run; shaded, the samples' "
        "interquartile range; red and green flags, regressions and improvements (hover for the commits and "
        "hints); dashed grey, the level between change points. Hover a chart for each run's exact value, "
        "commit and date.</p>\n";
    body += trends(m, mi, hover);
    body += "</section>\n";
  }
  body += "<footer>Generated by gpuperf " + esc(model.tool_version) +
          ". Self-contained page: no network access needed.</footer>";

  std::string o;
  o.reserve(body.size() + 16384);
  o += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
       esc(title) + "</title>\n<style>" + html::style_sheet() + html::source_style(model) +
       "</style>\n</head>\n<body>\n";
  o += body;
  o += "\n<script type=\"application/json\" id=\"gp-data\">" + hover.json(model) + "</script>\n<script>" +
       html::script() + "</script>\n</body>\n</html>\n";
  return o;
}

}  // namespace gpuperf::reports
