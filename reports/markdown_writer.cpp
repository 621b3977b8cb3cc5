// The Markdown report: a summary that fits a PR comment and a CI job summary. It summarises (latest ratios
// with sparklines, the newest regressions) and points to the HTML report for the charts.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "reports/analysis/answers.hpp"
#include "reports/cross_machine.hpp"
#include "reports/escape.hpp"
#include "reports/format.hpp"
#include "reports/line_text.hpp"
#include "reports/program_cells.hpp"
#include "reports/writers.hpp"

namespace gpuperf::reports {
namespace {

constexpr const char* kDot = " \xC2\xB7 ";        // ·
constexpr const char* kArrow = " \xE2\x86\x92 ";  // →

std::string md(const std::string& s) { return md_escape(s); }

// A commit as inline code when it is a plain sha-like token; otherwise escaped text (a backtick or pipe in a
// hostile "commit" cannot open a code span or split the table).
std::string md_commit(const std::string& sha) {
  const std::string s = short_commit(sha);
  if (s.empty()) return "?";
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') return md(s);
  }
  return "`" + s + "`";
}

// Appends table rows while they fit the budget; says how many were left out.
class Table {
 public:
  Table(std::string header, std::size_t total_rows) : text_(std::move(header)), total_(total_rows) {}
  bool add(const std::string& row, std::size_t budget_left) {
    if (row.size() + 120 > budget_left) return false;
    text_ += row;
    ++shown_;
    return true;
  }
  std::string finish(const std::string& html_link) const {
    std::string o = text_;
    if (shown_ < total_) {
      o += "\n_" + std::to_string(total_ - shown_) + " more not shown";
      o += html_link.empty() ? std::string("._\n") : " here; see the HTML report (" + md(html_link) + ")._\n";
    }
    return o;
  }

 private:
  std::string text_;
  std::size_t total_ = 0, shown_ = 0;
};

struct Writer {
  const ReportModel& model;
  const MarkdownOptions& opt;
  std::string out;
  bool several = model.machines.size() > 1;

  // A table's header row and rule, led by a Machine column when the report covers several machines.
  std::string header(const std::string& columns, const std::string& rule) const {
    return (several ? "| Machine " : "") + columns + (several ? "|---" : "") + rule;
  }

  std::size_t budget() const {
    // Keep room for the closing note.
    const std::size_t reserve = 400;
    return out.size() + reserve >= opt.max_chars ? 0 : opt.max_chars - out.size() - reserve;
  }

  void header() {
    const auto& q = model.query;
    out += "## gpuperf report\n\n";
    out += "Branch: " + md(q.branch.value_or("all")) + kDot + "Machine: " + md(q.machines_text());
    if (q.since) out += kDot + std::string("Since: ") + md(*q.since);
    if (q.last) out += kDot + std::string("Last ") + std::to_string(*q.last) + " runs per machine";
    out += kDot + std::to_string(model.total_runs()) + " runs on " + std::to_string(model.machines.size()) +
           (model.machines.size() == 1 ? " machine" : " machines");
    if (!opt.html_link.empty() && !model.machines.empty()) {
      out += "\n\nCharts, every trend and hover details: the HTML report (" + md(opt.html_link) + ").";
    }
    out += "\n\n";
    if (model.machines.empty()) {
      out += "**No runs to report.** The database has no results for these filters.\n";
      return;
    }
    out += "| Machine | Latest run | Commit | Runs | Regressions | Improvements |\n";
    out += "|---|---|---|--:|--:|--:|\n";
    for (const auto& m : model.machines) {
      out += "| " + md(m.host) + " | " + (m.latest ? md(format_datetime(m.latest->started_at)) : "") + " | " +
             (m.latest ? md_commit(m.latest->commit) : "") + " | " + std::to_string(m.runs.size()) + " | " +
             (m.regressions.empty() ? "0" : "**" + std::to_string(m.regressions.size()) + "**") + " | " +
             std::to_string(m.improvements.size()) + " |\n";
    }
    out += "\n";
  }

  // With several machines: each finding once, on how many of the machines that measure it (all of them: a
  // code change; one: that machine).
  void across_machines(std::size_t max_rows) {
    const std::vector<CrossMachineFinding> found = cross_machine_findings(model);
    if (found.empty()) return;
    out += "### Findings across machines (" + std::to_string(found.size()) + ")\n\n";
    Table table("| Benchmark | Metric | Kind | On | Change |\n|---|---|---|---|--:|\n", found.size());
    std::size_t shown = 0;
    for (const CrossMachineFinding& f : found) {
      if (shown >= max_rows) break;
      const std::string range = f.min_change_pct == f.max_change_pct ? format_change_pct(f.min_change_pct)
                                                                     : format_change_pct(f.min_change_pct) + " to " +
                                                                           format_change_pct(f.max_change_pct);
      const std::string on = f.on_all() ? "**" + md(f.on_text()) + "**" : md(f.on_text());
      if (!table.add("| " + md(model.machines[f.machine].instances[f.instance].short_display_name()) + " | " +
                         md(f.metric) + " | " + (f.regression ? "regression" : "improvement") + " | " + on +
                         (f.hosts.size() > 1 && f.same_commit ? " (one commit)" : "") + " | " + md(range) + " |\n",
                     budget())) {
        break;
      }
      ++shown;
    }
    out += table.finish(opt.html_link) + "\n";
  }

  void changes(bool regression, std::size_t max_rows) {
    std::size_t total = 0, answered = 0;
    for (const auto& m : model.machines) {
      for (const ChangeRow& row : regression ? m.regressions : m.improvements) {
        ++total;
        answered += analysis::is_answered(row.change) ? 1 : 0;
      }
    }
    // The team's answered findings stay listed (their state says so) and are counted apart: not open.
    out += std::string("### ") + (regression ? "Regressions" : "Improvements") + " (" + std::to_string(total) +
           (answered > 0 ? ", " + std::to_string(answered) + " answered" : "") + ")\n\n";
    if (total == 0) {
      out += std::string("None detected in this window.\n\n");
      return;
    }
    Table table(header("| Benchmark | Metric | Change | Before" + std::string(kArrow) +
                           "after | Commits | Date | State | Root-cause hints |\n",
                       "|---|---|--:|---|---|---|---|---|\n"),
                total);
    std::size_t shown = 0;
    for (const auto& m : model.machines) {
      for (const auto& row : regression ? m.regressions : m.improvements) {
        if (shown >= max_rows) break;
        const auto& cp = row.change;
        std::string r = several ? "| " + md(m.host) + " " : "";
        std::string hints = row.counter_only ? std::string("_") + kCounterOnly + (cp.gated ? "" : kNotGated) + "_" : "";
        const bool step = !row.step.empty();  // one finding for the kernels that stepped with the environment
        for (const auto& h : step ? step_hints(row) : row.hints) hints += (hints.empty() ? "" : "; ") + md(h);
        // The source lines that moved (line_text.hpp): where the change is in the code.
        if (!step) {
          for (const auto& l : cp.lines) hints += (hints.empty() ? "" : "; ") + md("line " + line_change_text(l));
        }
        const std::string change = format_change(cp.before, cp.after, cp.change_pct);
        const std::string name = step ? step_name_cell(row) : m.instances[row.instance].short_display_name();
        r += "| " + md(name) + " | " + md(cp.metric.name) + " | " + (regression ? "**" + change + "**" : change) +
             " | " + md(format_value(cp.before, cp.metric.unit)) + kArrow + md(format_value(cp.after, cp.metric.unit)) +
             " | " + md_commit(cp.previous_commit) + ".." + md_commit(cp.commit) + " | " +
             md(format_date(cp.started_at)) + " | " + md(change_state(cp)) + " | " + hints + " |\n";
        if (!table.add(r, budget())) break;
        ++shown;
      }
    }
    out += table.finish(opt.html_link) + "\n";
  }

  // The team's notes (gpuperf annotate) under the findings, each at the run its chart marks.
  void notes() {
    std::string list;
    for (const auto& m : model.machines) {
      for (const RunNote& n : m.notes) {
        const RunRef& r = m.runs[n.run];
        list += "- " + (several ? md(m.host) + ", " : std::string()) + md(n.on) + " (run of " +
                md(format_date(r.started_at)) + ", " + md_commit(r.commit) + "): " + md(n.text) +
                (n.by.empty() ? "" : " \xE2\x80\x94 " + md(n.by)) + "\n";
      }
    }
    if (!list.empty()) out += "**Notes on the history** (marked on the HTML charts):\n\n" + list + "\n";
  }

  void families() {
    std::size_t total = 0;
    for (const auto& m : model.machines) {
      for (const auto& f : m.families) total += f.pairs.size();
    }
    out += "### Variant comparisons\n\n";
    if (total == 0) {
      out += "No variant pairs: no benchmark in this window names a family baseline.\n\n";
      return;
    }
    Table table(header("| Family | Pair | Benchmarks | Latest durations | Ratio | Trend | Window | Key metric |\n",
                       "|---|---|---|---|--:|---|---|---|\n"),
                total);
    for (const auto& m : model.machines) {
      for (const auto& f : m.families) {
        for (const auto& pair : f.pairs) {
          const auto& v = m.instances[pair.variant];
          const auto& b = m.instances[pair.baseline];
          std::string r = several ? "| " + md(m.host) + " " : "";
          r += "| " + md(f.family) + " | " + md(m.ratio_label(pair)) + " | " + md(v.short_display_name()) + " vs " +
               md(b.short_display_name()) + " | ";
          const TrendSeries* vd = v.find("duration");
          const TrendSeries* bd = b.find("duration");
          if (vd != nullptr && bd != nullptr) {
            r += md(benchmark_variant(v.instance.name)) + " " + md(format_value(vd->latest(), vd->metric.unit)) + ", " +
                 md(benchmark_variant(b.instance.name)) + " " + md(format_value(bd->latest(), bd->metric.unit));
          }
          r += " | ";
          if (!pair.ratio.empty()) {
            std::vector<double> values;
            values.reserve(pair.ratio.size());
            for (const auto& p : pair.ratio) values.push_back(p.value);
            const auto [start, end] = window_levels(values);
            r += "**" + format_ratio(values.back()) + "** | " + sparkline(values) + " | " + format_ratio(start) +
                 kArrow + format_ratio(end);
          } else {
            r += " | | ";
          }
          r += " | ";
          if (!pair.key_metric.empty()) {
            const TrendSeries* kv = v.find(pair.key_metric);
            const TrendSeries* kb = b.find(pair.key_metric);
            r += md(pair.key_metric) + ": " + md(format_value(kv->latest(), kv->metric.unit)) + " vs " +
                 md(format_value(kb->latest(), kb->metric.unit));
          }
          r += " |\n";
          if (!table.add(r, budget())) break;
        }
      }
    }
    out += table.finish(opt.html_link) + "\n";
  }

  // Recorded programs (gpuperf record): each program's heaviest kernels at its newest run, with the change of
  // their median duration since the run before.
  void programs() {
    std::size_t total = 0;
    for (const auto& m : model.machines) total += m.programs.size();
    if (total == 0) return;
    out += "### Recorded programs\n\n";
    ranks();
    for (const auto& m : model.machines) {
      for (const auto& p : m.programs) {
        const RunRef& run = m.runs[p.run];
        out += "**" + md(p.program) + "**" + (several ? " on " + md(m.host) : std::string()) + ": " +
               std::to_string(p.kernels.size()) + " kernels, " + md(format_value(p.kernel_time_ns, "ns")) +
               " of kernel time at " + md_commit(run.commit) + " (" + md(format_date(run.started_at)) + ")\n\n";
        // The program first: its time against its recording before, by kernel family; then its kernels.
        out += md(program_time_line(m, p)) + ", by kernel family:\n\n";
        Table families("| Family | Before | Now | Change |\n|---|--:|--:|--:|\n", p.families.size());
        for (const ProgramFamilyCells& c : program_family_cells(p)) {
          if (!families.add(
                  "| " + md(c.family) + " | " + md(c.before) + " | " + md(c.now) + " | " + md(c.change) + " |\n",
                  budget())) {
            break;
          }
        }
        out += families.finish(opt.html_link) + "\n";
        Table table("| Kernel | Launches | Median | Share | Since the run before |\n|---|--:|--:|--:|--:|\n",
                    std::min<std::size_t>(p.kernels.size(), 10));
        for (std::size_t k = 0; k < p.kernels.size() && k < 10; ++k) {
          const ProgramKernelCells c = program_kernel_cells(p.kernels[k]);
          // The short name without its program: "kernel<…>[block=...]".
          const std::string shown = m.instances[p.kernels[k].instance].short_display_name();
          const std::string name =
              shown.compare(0, p.program.size() + 1, p.program + "/") == 0 ? shown.substr(p.program.size() + 1) : shown;
          const std::string r = "| " + md(name) + " | " + md(c.launches) + " | " + md(c.median) + " | " + md(c.share) +
                                " | " + md(c.since) + " |\n";
          if (!table.add(r, budget())) break;
        }
        out += table.finish(opt.html_link) + "\n";
      }
    }
  }

  // GPU time by rank: per recorded program with communication kernels, each GPU's (rank's) compute and
  // communication time at its newest run, and how its communication moved since the run before.
  void ranks() {
    const auto panels = panels_with_communication(model);
    if (panels.empty()) return;
    out += "GPU time by rank, compute and communication kernels (communication: NCCL and the like):\n\n";
    Table table(
        "| Program | Rank | GPU | Commit | Compute | Communication | Communication launches | Communication since "
        "the run before |\n|---|---|---|---|--:|--:|--:|--:|\n",
        panels.size());
    for (const auto& [m, p] : panels) {
      const RankSplitCells c = rank_split_cells(*m, *p);
      const std::string r = "| " + md(c.program) + " | " + md(c.rank) + " | " + md(c.gpu) + " | " +
                            md_commit(c.commit) + " | " + md(c.compute) + " | " + md(c.communication) + " | " +
                            md(c.launches) + " | " + md(c.since) + " |\n";
      if (!table.add(r, budget())) break;
    }
    out += table.finish(opt.html_link) + "\n";
  }

  // Speed of light (core/bound.hpp): each kernel's bound at the newest run that measured it, so a reader sees
  // where the time goes before reading any trend.
  void bounds() {
    std::size_t total = 0;
    for (const auto& m : model.machines) {
      for (const auto& inst : m.instances) total += inst.bound ? 1 : 0;
    }
    if (total == 0) return;
    out += "### Speed of light\n\n<details><summary>" + std::to_string(total) +
           " kernels at their latest run: compute (SM) and memory throughput, % of peak; the bound they give "
           "(memory or compute at " +
           format_value(kBoundPeakPct, "%") + " or more, latency below)</summary>\n\n";
    Table table(header("| Benchmark | Bound | SM | Memory | DRAM | Commit |\n", "|---|---|--:|--:|--:|---|\n"), total);
    for (const auto& m : model.machines) {
      for (const auto& inst : m.instances) {
        if (!inst.bound) continue;
        const InstanceBound& b = *inst.bound;
        const auto pct = [](const std::optional<double>& v) { return v ? format_value(*v, "%") : std::string("-"); };
        std::string r = several ? "| " + md(m.host) + " " : "";
        r += "| " + md(inst.short_display_name()) + " | " + md(bound_text(b.verdict)) + " | " + pct(b.sol.sm) + " | " +
             pct(b.sol.memory) + " | " + pct(b.sol.dram) + " | " + md_commit(m.runs[b.run].commit) + " |\n";
        if (!table.add(r, budget())) break;
      }
    }
    out += table.finish(opt.html_link) + "\n</details>\n\n";
  }

  void duration_trends() {
    struct Item {
      const MachineReport* m;
      const InstanceTrends* inst;
      const TrendSeries* s;
    };
    std::vector<Item> items;
    for (const auto& m : model.machines) {
      for (const auto& inst : m.instances) {
        if (const TrendSeries* s = inst.find("duration")) items.push_back({&m, &inst, s});
      }
    }
    if (items.empty()) return;
    // Benchmarks with change points first, so a short budget keeps what matters.
    std::stable_sort(items.begin(), items.end(),
                     [](const Item& a, const Item& b) { return a.s->changes.size() > b.s->changes.size(); });
    out += "### Duration trends\n\n<details><summary>" + std::to_string(items.size()) +
           " benchmarks: latest median, change over the window (level of the last runs against the first), trend"
           "</summary>\n\n";
    Table table(header("| Benchmark | Latest | Window | Trend | Change points |\n", "|---|--:|--:|---|---|\n"),
                items.size());
    for (const auto& it : items) {
      std::vector<double> values;
      values.reserve(it.s->points.size());
      for (const auto& p : it.s->points) values.push_back(p.summary.median);
      std::string r = several ? "| " + md(it.m->host) + " " : "";
      const auto [start, end] = window_levels(values);
      const double change = start != 0 ? (end / start - 1) * 100 : 0;
      std::string cps;
      for (const auto& cp : it.s->changes) {
        cps += (cps.empty() ? "" : ", ") + format_change(cp.before, cp.after, cp.change_pct) + " at " +
               md_commit(cp.commit);
      }
      r += "| " + md(it.inst->short_display_name()) + " | " + md(format_value(it.s->latest(), it.s->metric.unit)) +
           " | " + format_change_pct(change) + " | " + sparkline(values) + " | " + cps + " |\n";
      if (!table.add(r, budget())) break;
    }
    out += table.finish(opt.html_link) + "\n</details>\n\n";
  }
};

}  // namespace

std::string render_markdown(const ReportModel& model, const MarkdownOptions& options) {
  Writer w{model, options, {}};
  w.header();
  if (!model.machines.empty()) {
    w.across_machines(30);
    w.changes(true, 30);
    w.changes(false, 15);
    w.notes();
    w.families();
    w.programs();
    w.bounds();
    w.duration_trends();
  }
  w.out += "<sub>gpuperf " + md(model.tool_version) + "</sub>\n";
  if (w.out.size() > options.max_chars) {  // a last guard: cut at a line end, say so
    const std::string note = "\n_Report cut to fit; see the HTML report._\n";
    std::size_t cut = w.out.rfind('\n', options.max_chars > note.size() ? options.max_chars - note.size() : 0);
    w.out = w.out.substr(0, cut == std::string::npos ? 0 : cut) + note;
  }
  return w.out;
}

}  // namespace gpuperf::reports
