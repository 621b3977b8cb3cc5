#include "reports/verdict_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>

#include "core/errors.hpp"
#include "core/short_name.hpp"
#include "core/value_text.hpp"
#include "reports/analysis/detect.hpp"
#include "reports/analysis/identity_findings.hpp"
#include "reports/escape.hpp"
#include "reports/format.hpp"
#include "reports/kind_split_text.hpp"
#include "reports/line_text.hpp"
#include "reports/program_text.hpp"
#include "reports/text_table.hpp"
#include "reports/verdict_json.hpp"
#include "reports/verdict_parts.hpp"

namespace gpuperf::reports {

// The writers read the analysis results, in its terms.
using namespace gpuperf::analysis;

namespace {

// One escaper per format for every writer (reports/escape.hpp), under short names.
std::string md(const std::string& s) { return reports::md_escape(s); }

std::string value_cell(const std::optional<Summary>& s, const MetricInfo& m) {
  return s && s->n > 0 ? format_value(s->median, m.unit, UnitText::terminal) : "-";
}

std::string side_line(const RunSide& s) {
  std::string out = s.uuid_shown.empty() ? short_uuid(s.uuid) : s.uuid_shown;
  if (s.run_id != 0) out += " (#" + std::to_string(s.run_id) + ")";
  out += "  " + (s.branch.empty() ? std::string("?") : s.branch) + " @ " +
         (s.commit.empty() ? std::string("?") : short_commit(s.commit));
  if (!s.label.empty()) out += "  [" + s.label + "]";
  out += "  " + s.started_at;
  if (!s.machine_name.empty()) out += "  " + s.machine_name;
  if (s.rank) out += "  " + rank_text(s.rank, s.world_size);
  return terminal_text(out);
}

std::string summary_line(const CompareReport& report) {
  const auto counts = verdict_counts(report.rows);
  std::string s = std::to_string(report.rows.size()) + " rows:";
  bool first = true;
  for (Verdict v : {Verdict::slower, Verdict::failed, Verdict::faster, Verdict::ambiguous, Verdict::not_enough_data,
                    Verdict::new_, Verdict::missing, Verdict::same}) {
    const auto it = counts.find(v);
    if (it == counts.end()) continue;
    s += (first ? " " : ", ") + std::to_string(it->second) + ' ' + to_string(v);
    first = false;
  }
  const std::size_t ungated = static_cast<std::size_t>(std::count_if(
      report.rows.begin(), report.rows.end(), [](const CompareRow& r) { return is_ungated_slowdown(r); }));
  if (ungated > 0) {
    s += " (" + std::to_string(ungated) + " slower " + (ungated == 1 ? "row does" : "rows do") +
         " not gate: --gate METRIC fails on them)";
  }
  const std::size_t by_history = ambiguous_by_history(report.rows);
  if (by_history > 0) {
    s += " (" + std::to_string(by_history) +
         " beyond the threshold but within the base's recent history: "
         "--history 0 judges by the two runs' samples alone)";
  }
  return s;
}

// The title of a recorded program's short list of failing rows: "Rows that fail the job" or "Rows that fail the
// job (10 of 400)".
std::string failing_title(std::size_t listed, std::size_t more) {
  return "Rows that fail the job" +
         (more == 0 ? std::string() : " (" + std::to_string(listed) + " of " + std::to_string(listed + more) + ")");
}

// The moved source lines of a finding, one per line under its row ("\n    " apart, as write_table indents).
std::string lines_below(const std::vector<LineChange>& lines) {
  std::string s;
  for (const LineChange& l : lines) s += (s.empty() ? "" : "\n    ") + line_change_text(l);
  return s;
}

// A Markdown list of the findings' moved lines: "- **name** metric: `place` text counters".
// Which change points carry their instance's moved lines: one per instance and change commit, its
// duration's when it has one (the finding the lines explain), else its first; the others moved with it.
std::vector<bool> line_holders(const std::vector<ChangePoint>& changes) {
  std::map<std::string, std::size_t> holder;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const auto& c = changes[i];
    if (c.lines.empty()) continue;
    auto [it, fresh] = holder.try_emplace(c.instance.display_name() + "@" + c.commit, i);
    if (!fresh && c.metric.name == "duration" && changes[it->second].metric.name != "duration") it->second = i;
  }
  std::vector<bool> holds(changes.size(), false);
  for (const auto& [key, i] : holder) holds[i] = true;
  return holds;
}

void write_md_lines(std::ostream& out,
                    const std::vector<std::pair<std::string, const std::vector<LineChange>*>>& items) {
  bool any = false;
  for (const auto& [what, lines] : items) {
    if (lines->empty()) continue;
    if (!any) out << "\nSource lines that moved:\n\n";
    any = true;
    out << "- " << what << '\n';
    for (const LineChange& l : *lines) out << "  - " << md(line_change_text(l)) << '\n';
  }
}

// Findings, as the report lists them (report_model.cpp, add_findings): one instance's change at one run, a
// duration change with the counters that moved with it (a noisy counter's change may sit one run apart), or a
// counter's change alone. A finding is a regression or an improvement as its leading change is; it gates when
// a regression among its changes gates. The other change points are its hints.
struct FindingCounts {
  std::size_t regressions = 0, improvements = 0, gated = 0;
};

bool folds_into(const ChangePoint& c, const ChangePoint& d) {
  if (c.metric.name == "duration" || d.metric.name != "duration" || &c == &d) return false;
  if (c.machine != d.machine || c.instance.display_name() != d.instance.display_name()) return false;
  return c.run_id == d.run_id ||
         (!c.metric.deterministic && (c.previous_run_id == d.run_id || d.previous_run_id == c.run_id));
}

FindingCounts count_findings(const std::vector<ChangePoint>& changes) {
  FindingCounts f;
  std::vector<const ChangePoint*> lead(changes.size(), nullptr);
  for (std::size_t i = 0; i < changes.size(); ++i) {
    lead[i] = &changes[i];
    for (const auto& d : changes) {
      if (folds_into(changes[i], d)) lead[i] = &d;
    }
  }
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const ChangePoint& c = changes[i];
    if (lead[i] == &c) {
      (c.kind == ChangeKind::regression ? f.regressions : f.improvements) += 1;
      bool gates = false;
      for (std::size_t j = 0; j < changes.size(); ++j) {
        gates = gates || (lead[j] == &c && changes[j].kind == ChangeKind::regression && changes[j].gated);
      }
      f.gated += gates && c.kind == ChangeKind::regression ? 1 : 0;
    }
  }
  return f;
}

// detect's headline: findings first (what the report lists), then the change points they come from.
// "1 finding: 1 regression (gates), 0 improvements; from 14 change points, 8 unconfirmed (...)".
std::string changes_headline(const std::vector<ChangePoint>& changes) {
  const FindingCounts f = count_findings(changes);
  const std::size_t n = f.regressions + f.improvements;
  const auto plural = [](std::size_t k, const char* one, const char* many) {
    return std::to_string(k) + ' ' + (k == 1 ? one : many);
  };
  std::string s = plural(n, "finding", "findings") + ": " + plural(f.regressions, "regression", "regressions");
  if (f.regressions > 0) {
    s += f.gated == f.regressions ? std::string(f.regressions == 1 ? " (gates)" : " (all gate)")
                                  : " (" + std::to_string(f.gated) + " gate" + (f.gated == 1 ? "s" : "") + ")";
  }
  s += ", " + plural(f.improvements, "improvement", "improvements");
  std::size_t unconfirmed = 0;
  for (const auto& c : changes) unconfirmed += c.unconfirmed ? 1 : 0;
  s += "; from " + plural(changes.size(), "change point", "change points");
  if (unconfirmed > 0) {
    s += ", " + std::to_string(unconfirmed) +
         " unconfirmed (fewer runs at the new level than --min-segment: flagged from tonight's samples, the next "
         "runs confirm or withdraw them)";
  }
  return s;
}

}  // namespace

Format parse_format(const std::string& name) {
  if (name == "text") return Format::text;
  if (name == "md" || name == "markdown") return Format::md;
  if (name == "json") return Format::json;
  throw InputError("unknown format '" + name + "' (expected text, md or json)");
}

// Each environment step: one line saying what changed and how many kernels moved, then the kernels.
void write_steps(std::ostream& out, const std::vector<EnvironmentStep>& steps, const std::vector<ChangePoint>& changes,
                 const ShortNames& names, bool text) {
  for (const EnvironmentStep& s : steps) {
    const std::string what = describe_step(s, changes);
    if (text) {
      out << "environment step at " << short_commit(s.commit) << " (run " << short_uuid(s.run_uuid) << ", "
          << terminal_text(s.changes.empty() ? s.machine : machine_shown(changes[s.changes.front()]))
          << "): " << terminal_text(what) << '\n';
    } else {
      out << "**Environment step** at `" << md(short_commit(s.commit)) << "` (run " << md(short_uuid(s.run_uuid))
          << "): " << md(what) << "\n\n";
    }
    for (std::size_t i : s.changes) {
      const ChangePoint& c = changes[i];
      const std::string line = names.display_name(c.instance) + " " + signed_pct(c.change_pct) + " " +
                               format_value(c.before, c.metric.unit, UnitText::terminal) + " -> " +
                               format_value(c.after, c.metric.unit, UnitText::terminal);
      out << (text ? "    " + terminal_text(line) : "- " + md(line)) << '\n';
    }
    out << '\n';
  }
}

void write_compare(std::ostream& out, const CompareReport& report, Format format, bool all_rows) {
  if (format == Format::json) return write_compare_json(out, report);
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> below;  // text: the moved source lines under each row
  std::vector<std::pair<std::string, const std::vector<LineChange>*>> md_lines;
  std::set<std::string> lines_shown;  // instances whose lines are listed already
  std::size_t hidden = 0;
  std::vector<std::string> names;
  for (const auto& r : report.rows) names.push_back(r.instance.name);
  const ShortNames short_names(names);  // for people; JSON and JUnit keep the full names
  // A recorded program's short answer (it leads with the program): only the rows that fail the job.
  // At most kProgramTopKernels of them: the rest are counted (--all and JSON have them).
  const bool short_program = report.program && !all_rows;
  std::size_t failing_hidden = 0;
  for (const auto& r : report.rows) {
    const bool fails = is_regression(r) || r.verdict == Verdict::failed;
    const bool listed = all_rows || (short_program ? fails : r.verdict != Verdict::same);
    if (!listed) {
      ++hidden;
      continue;
    }
    if (short_program && cells.size() == kProgramTopKernels) {
      ++failing_hidden;
      ++hidden;
      continue;
    }
    const bool both = r.base && r.candidate && r.base->n > 0 && r.candidate->n > 0;
    std::string verdict = to_string(r.verdict);
    if (format == Format::md && (is_regression(r))) verdict = "**" + verdict + "**";
    const std::string name = short_names.display_name(r.instance);
    cells.push_back({format == Format::md ? md(name) : name, format == Format::md ? md(r.metric.name) : r.metric.name,
                     value_cell(r.base, r.metric), value_cell(r.candidate, r.metric),
                     both ? signed_pct(r.change_pct) : "", verdict, r.gated ? "yes" : "no",
                     format == Format::md ? md(r.note) : r.note});
    // An instance's lines once, under its first changed row (duration first): its other rows moved with it.
    const bool first = !r.lines.empty() && lines_shown.insert(r.instance.display_name()).second;
    std::string under = first ? lines_below(r.lines) : std::string();
    if (!r.next_step.empty()) {
      under = "next: " + r.next_step + (under.empty() ? "" : "\n    " + under);
      if (format == Format::md) cells.back().back() += (r.note.empty() ? "" : "; ") + md("next: " + r.next_step);
    }
    below.push_back(under);
    if (first) md_lines.emplace_back("**" + md(name) + "** " + md(r.metric.name) + ":", &r.lines);
  }
  const std::vector<std::string> header{"benchmark", "metric",  "base",  "candidate",
                                        "change",    "verdict", "gates", "note"};
  const bool regression = report.regression();
  if (format == Format::text) {
    out << "base       " << side_line(report.base) << '\n';
    out << "candidate  " << side_line(report.candidate) << "\n";
    if (!report.environment.empty()) out << "changed    " << terminal_text(env::describe(report.environment)) << "\n";
    out << "\n";
    if (report.program) write_program(out, *report.program, false);
    if (!cells.empty()) {
      if (short_program) out << failing_title(cells.size(), failing_hidden) << ":\n";
      write_table(out, header, cells, &below);
      out << '\n';
    }
    if (report.kinds) {
      write_kind_split_text(out, *report.kinds);
      out << '\n';
    }
    out << summary_line(report);
    if (hidden > 0) {
      out << " (" << hidden << (short_program ? " rows" : " same") << " not listed; --all lists them)";
    }
    if (const std::string missing = missing_line(report); !missing.empty()) out << '\n' << missing;
    out << "\ngate: " << report.gate.describe() << '\n' << (regression ? "REGRESSION" : "no regression") << '\n';
    return;
  }
  out << "### gpuperf compare: " << (regression ? "regression" : "no regression") << "\n\n";
  // "`abc1234567` (main, run 4d67a681)"; a run measured outside git has no commit or branch to show.
  const auto side = [](const RunSide& r) {
    std::string where = r.branch.empty() ? "" : md(r.branch) + ", ";
    const std::string rank = r.rank ? ", " + rank_text(r.rank, r.world_size) : std::string();
    return (r.commit.empty() ? std::string("no commit") : "`" + md(short_commit(r.commit)) + "`") + " (" + where +
           "run " + md(short_uuid(r.uuid)) + rank + ")";
  };
  out << "Base " << side(report.base) << " against candidate " << side(report.candidate);
  if (!report.candidate.gpu_name.empty()) out << " on " << md(report.candidate.gpu_name);
  out << ".\n\n";
  if (!report.environment.empty()) out << "Environment changed: " << md(env::describe(report.environment)) << ".\n\n";
  if (report.program) write_program(out, *report.program, true);
  if (!cells.empty()) {
    if (short_program) out << failing_title(cells.size(), failing_hidden) << ":\n\n";
    write_md_table(out, header, "llrrrlll", cells);
    write_md_lines(out, md_lines);
    out << '\n';
  }
  if (report.kinds) {
    write_kind_split_md(out, *report.kinds);
    out << '\n';
  }
  out << summary_line(report);
  if (hidden > 0)
    out << " (" << hidden << (short_program ? " rows not listed; --all lists them)" : " same not listed)");
  if (const std::string missing = missing_line(report); !missing.empty()) out << ".\n\n" << md(missing);
  out << ".\n\nGate: " << md(report.gate.describe()) << ".\n";
}

namespace {

// The series detect could not judge, as lines under its table: the first few with their next step, named as
// the table names instances.
void write_short_series(std::ostream& out, const std::vector<ShortSeries>& too_short, const ShortNames& names,
                        bool markdown) {
  if (too_short.empty()) return;
  constexpr std::size_t kShown = 5;
  out << (markdown ? "\n" : "") << "not enough data: " << too_short.size() << " series with fewer runs than the "
      << too_short.front().needed << " the change-point test needs" << (markdown ? "\n\n" : "\n");
  for (std::size_t i = 0; i < too_short.size() && i < kShown; ++i) {
    const auto& s = too_short[i];
    const std::string what = names.display_name(s.instance) + " " + s.metric.name + " (" + std::to_string(s.runs) +
                             " run" + (s.runs == 1 ? "" : "s") + "): next: ";
    // Markdown: the command in a code span, copied as it reads.
    out << (markdown ? "- " + md(what) + reports::md_code(s.next_command) + md(s.after_command)
                     : "  " + terminal_text(what + s.next_command + s.after_command))
        << "\n";
  }
  if (too_short.size() > kShown)
    out << (markdown ? "- " : "  ") << "... and " << too_short.size() - kShown << " more\n";
}

}  // namespace

void write_changes(std::ostream& out, const std::vector<ChangePoint>& changes, Format format,
                   const std::vector<EnvironmentStep>& steps, const std::vector<ShortSeries>& too_short,
                   const std::vector<ChangePoint>& programs, const std::vector<std::string>& names) {
  if (format == Format::text) write_program_changes(out, programs, false);
  if (format == Format::json) return write_changes_json(out, changes, steps, too_short, programs);
  std::set<std::string> machines;
  for (const auto& c : changes) machines.insert(c.machine);
  const bool machine_column = machines.size() > 1;
  std::size_t answered = 0;
  for (const auto& c : changes) answered += c.answer ? 1 : 0;
  const bool text = format == Format::text;
  const auto esc = [&](const std::string& s) { return text ? s : md(s); };

  std::vector<std::string> header;
  if (machine_column) header.push_back("machine");
  for (const char* h : {"benchmark", "metric", "change", "before", "after", "commit", "previous", "kind", "confidence",
                        "state", "gates"}) {
    header.push_back(h);
  }
  if (!text) header.push_back("hints");
  std::vector<std::string> changed = names;
  if (changed.empty()) {
    for (const auto& c : changes) changed.push_back(c.instance.name);
  }
  const ShortNames short_names(changed);
  std::vector<std::vector<std::string>> cells;
  std::vector<const ChangePoint*> listed;  // the changes with a row: those of an environment step are under it
  for (const auto& c : changes) {
    if (c.environment_step > 0 && c.environment_step <= steps.size()) continue;
    listed.push_back(&c);
    std::vector<std::string> row;
    if (machine_column) row.push_back(esc(machine_shown(c)));
    std::string kind = to_string(c.kind);
    if (!text && c.kind == ChangeKind::regression) kind = "**" + kind + "**";
    for (const std::string& cell :
         {esc(short_names.display_name(c.instance)), esc(c.metric.name), signed_pct(c.change_pct),
          format_value(c.before, c.metric.unit, UnitText::terminal),
          format_value(c.after, c.metric.unit, UnitText::terminal), esc(short_commit(c.commit)),
          esc(short_commit(c.previous_commit)), kind, confidence_cell(c.confidence), esc(state_cell(c)),
          std::string(c.gated ? "yes" : "no")}) {
      row.push_back(cell);
    }
    if (!text) {
      std::string hints;
      for (const auto& h : c.hints) hints += (hints.empty() ? "" : ", ") + md(h);
      row.push_back(hints);
    }
    cells.push_back(std::move(row));
  }
  const std::string summary =
      changes_headline(changes) + (answered > 0 ? "; " + std::to_string(answered) + " acknowledged" : "") +
      (too_short.empty() ? "" : "; " + std::to_string(too_short.size()) + " series: not enough data");
  if (text) {
    if (!machine_column && !machines.empty())
      out << "machine  " << terminal_text(machine_shown(changes.front())) << "\n\n";
    if (!cells.empty()) {
      std::vector<std::string> below;
      const std::vector<bool> holds = line_holders(changes);
      for (std::size_t i = 0; i < changes.size(); ++i) {
        const auto& c = changes[i];
        if (std::find(listed.begin(), listed.end(), &c) == listed.end()) continue;
        std::string hints;
        for (const auto& h : c.hints) hints += (hints.empty() ? "with: " : ", ") + h;
        const std::string lines = holds[i] ? lines_below(c.lines) : std::string();
        below.push_back(hints.empty() ? lines : lines.empty() ? hints : hints + "\n    " + lines);
      }
      write_table(out, header, cells, &below);
      out << '\n';
    }
    write_steps(out, steps, changes, short_names, true);
    write_short_series(out, too_short, short_names, false);
    out << summary << '\n';
    return;
  }
  out << "### gpuperf detect: " << summary << "\n\n";
  write_program_changes(out, programs, true);
  if (!cells.empty()) {
    std::string align(header.size(), 'l');
    write_md_table(out, header, align, cells);
    std::vector<std::pair<std::string, const std::vector<LineChange>*>> md_lines;
    const std::vector<bool> holds = line_holders(changes);
    for (std::size_t i = 0; i < changes.size(); ++i) {
      const auto& c = changes[i];
      if (!holds[i] || std::find(listed.begin(), listed.end(), &c) == listed.end()) continue;
      md_lines.emplace_back("**" + md(short_names.display_name(c.instance)) + "** " + md(c.metric.name) + " at " +
                                md(short_commit(c.commit)) + ":",
                            &c.lines);
    }
    write_md_lines(out, md_lines);
  }
  if (!steps.empty()) out << '\n';
  write_steps(out, steps, changes, short_names, false);
  write_short_series(out, too_short, short_names, true);
}

}  // namespace gpuperf::reports
