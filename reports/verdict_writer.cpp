#include "reports/verdict_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/short_name.hpp"
#include "core/value_text.hpp"
#include "db/answers_json.hpp"
#include "reports/analysis/detect.hpp"
#include "reports/analysis/identity_findings.hpp"
#include "reports/escape.hpp"
#include "reports/format.hpp"
#include "reports/kind_split_text.hpp"
#include "reports/line_text.hpp"
#include "reports/program_text.hpp"
#include "reports/text_table.hpp"

namespace gpuperf::reports {

// The writers read the analysis results, in its terms.
using namespace gpuperf::analysis;

namespace {

using nlohmann::json;

std::string short_uuid(const std::string& uuid) { return uuid.size() > 8 ? uuid.substr(0, 8) : uuid; }

std::string signed_pct(double v) {
  if (!std::isfinite(v)) return v > 0 ? "+inf%" : (v < 0 ? "-inf%" : "n/a");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", v);
  return buf;
}

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json params_object(const Params& p) { return json::parse(params_json(p)); }

// One escaper per format for every writer (reports/escape.hpp), under short names.
std::string md(const std::string& s) { return reports::md_escape(s); }
std::string xml(const std::string& s) { return reports::xml_escape(s); }

std::string value_cell(const std::optional<Summary>& s, const MetricInfo& m) {
  return s && s->n > 0 ? format_value(s->median, m.unit, UnitText::terminal) : "-";
}

// A change's machine as every command names it (its fingerprint where the name is unknown).
std::string machine_shown(const ChangePoint& c) { return c.machine_name.empty() ? c.machine : c.machine_name; }

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

std::map<Verdict, std::size_t> verdict_counts(const std::vector<CompareRow>& rows) {
  std::map<Verdict, std::size_t> c;
  for (const auto& r : rows) ++c[r.verdict];
  return c;
}

std::size_t ambiguous_by_history(const std::vector<CompareRow>& rows) {
  return static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(), [](const CompareRow& r) { return r.ambiguous_by_history; }));
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

// The title of a recorded program's short list of failing rows: "Rows that fail the job" or "Rows that fail the
// job (10 of 400)".
std::string failing_title(std::size_t listed, std::size_t more) {
  return "Rows that fail the job" +
         (more == 0 ? std::string() : " (" + std::to_string(listed) + " of " + std::to_string(listed + more) + ")");
}

json side_json(const RunSide& s) {
  json j{{"run", s.uuid},    {"run_id", s.run_id},         {"commit", s.commit},       {"branch", s.branch},
         {"label", s.label}, {"started_at", s.started_at}, {"machine", s.fingerprint}, {"gpu_name", s.gpu_name}};
  // A recorded process of a distributed job; absent otherwise, as in the interchange format.
  if (s.rank) j["rank"] = *s.rank;
  if (s.local_rank) j["local_rank"] = *s.local_rank;
  if (s.world_size) j["world_size"] = *s.world_size;
  return j;
}

json row_json(const CompareRow& r, const CompareReport& report) {
  json j;
  j["machine"] = r.machine;
  j["benchmark"] = r.instance.name;
  j["params"] = params_object(r.instance.params);
  j["metric"] = r.metric.name;
  j["unit"] = r.metric.unit;
  j["commit"] = report.candidate.commit;
  j["previous_commit"] = report.base.commit;
  j["run"] = report.candidate.uuid;
  j["kind"] = r.verdict == Verdict::slower   ? json("regression")
              : r.verdict == Verdict::faster ? json("improvement")
                                             : json(nullptr);
  const bool both = r.base && r.candidate && r.base->n > 0 && r.candidate->n > 0;
  j["change_pct"] = both ? number_or_null(r.change_pct) : json(nullptr);
  j["before"] = r.base && r.base->n > 0 ? json(r.base->median) : json(nullptr);
  j["after"] = r.candidate && r.candidate->n > 0 ? json(r.candidate->median) : json(nullptr);
  j["confidence"] = 1 - r.p_value;
  j["verdict"] = to_string(r.verdict);
  j["p_value"] = r.p_value;
  j["welch_p_value"] = r.welch_p_value;
  j["ci_low_pct"] = number_or_null(r.ci_low_pct);
  j["ci_high_pct"] = number_or_null(r.ci_high_pct);
  j["min_effect_pct"] = r.min_effect_pct;
  j["n_before"] = r.base ? r.base->n : 0;
  j["n_after"] = r.candidate ? r.candidate->n : 0;
  j["base_status"] = to_string(r.base_status);
  j["candidate_status"] = to_string(r.candidate_status);
  j["base_clock_mhz"] = r.base_clock_mhz > 0 ? json(r.base_clock_mhz) : json(nullptr);
  j["candidate_clock_mhz"] = r.candidate_clock_mhz > 0 ? json(r.candidate_clock_mhz) : json(nullptr);
  j["confirmed_in_cycles"] = r.confirmed_in_cycles;
  j["note"] = r.note;
  if (!r.code.empty()) j["code"] = r.code;
  j["ambiguous_by_history"] = r.ambiguous_by_history;
  j["gated"] = r.gated;
  if (!r.lines.empty()) j["lines"] = line_changes_json(r.lines);
  if (r.accepted) j["accepted_baseline"] = db::acknowledgement_json(*r.accepted);
  if (!r.next_step.empty()) j["next_step"] = r.next_step;
  return j;
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

std::string lines_detail(const std::vector<LineChange>& lines) {
  std::string s;
  for (const LineChange& l : lines) s += "; " + line_change_text(l);
  return s;
}

std::string confidence_cell(double c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", c);
  return buf;
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

// "confirmed", or "unconfirmed (1 run)": how much of the new level there is to go on.
// An answered change says so first: "accepted: new kernel" or "acknowledged: tracked in #123".
std::string state_cell(const ChangePoint& c) {
  if (c.answer) return format_answer(c.answer->accepted, c.answer->reason);
  return format_state(c.unconfirmed, c.runs_after);
}

}  // namespace

Format parse_format(const std::string& name) {
  if (name == "text") return Format::text;
  if (name == "md" || name == "markdown") return Format::md;
  if (name == "json") return Format::json;
  throw InputError("unknown format '" + name + "' (expected text, md or json)");
}

json environment_json(const std::vector<env::Change>& changes) {
  json out = json::array();
  for (const env::Change& c : changes) out.push_back(json{{"field", c.key}, {"before", c.before}, {"after", c.after}});
  return out;
}

json steps_json(const std::vector<EnvironmentStep>& steps, const std::vector<ChangePoint>& changes) {
  json out = json::array();
  for (const EnvironmentStep& s : steps) {
    json kernels = json::array();
    for (std::size_t i : s.changes) {
      const ChangePoint& c = changes[i];
      kernels.push_back(json{{"benchmark", c.instance.name},
                             {"params", params_object(c.instance.params)},
                             {"kind", to_string(c.kind)},
                             {"change_pct", number_or_null(c.change_pct)},
                             {"code", c.code}});
    }
    out.push_back(json{{"machine", s.machine},
                       {"run", s.run_uuid},
                       {"run_id", s.run_id},
                       {"previous_run_id", s.previous_run_id},
                       {"commit", s.commit},
                       {"previous_commit", s.previous_commit},
                       {"started_at", s.started_at},
                       {"environment", environment_json(s.environment)},
                       {"summary", describe_step(s, changes)},
                       {"kernels", std::move(kernels)}});
  }
  return out;
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
  if (format == Format::json) {
    json j;
    j["base"] = side_json(report.base);
    j["candidate"] = side_json(report.candidate);
    j["regression"] = report.regression();
    j["gate"] = json{{"rule", report.gate.describe()}, {"added", report.gate.added()}};
    j["ungated_slower"] = std::count_if(report.rows.begin(), report.rows.end(),
                                        [](const CompareRow& r) { return is_ungated_slowdown(r); });
    json summary = json::object();
    for (const auto& [v, n] : verdict_counts(report.rows)) summary[to_string(v)] = n;
    j["summary"] = summary;
    j["ambiguous_by_history"] = ambiguous_by_history(report.rows);
    j["missing_instances"] = report.missing_instances();
    j["missing_fails"] = report.missing_fails();
    j["allow_missing"] = report.allow_missing;
    if (report.program) j["program"] = program_change_json(*report.program);
    j["rows"] = json::array();
    for (const auto& r : report.rows) j["rows"].push_back(row_json(r, report));
    if (report.kinds) j["kinds"] = kind_split_change_json(*report.kinds);
    j["environment"] = environment_json(report.environment);
    out << j.dump(2) << '\n';
    return;
  }
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

json short_series_json(const std::vector<ShortSeries>& too_short) {
  json a = json::array();
  for (const auto& s : too_short) {
    a.push_back(json{{"machine", s.machine},
                     {"benchmark", s.instance.name},
                     {"params", params_object(s.instance.params)},
                     {"metric", s.metric.name},
                     {"verdict", "not enough data"},
                     {"runs", s.runs},
                     {"needed", s.needed},
                     {"next_step", s.next_command + s.after_command}});
  }
  return a;
}

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
  if (format == Format::json) {
    json j;
    if (!programs.empty()) j["programs"] = program_changes_json(programs);
    j["changes"] = json::array();
    for (const auto& c : changes) {
      j["changes"].push_back(json{{"machine", c.machine},
                                  {"benchmark", c.instance.name},
                                  {"params", params_object(c.instance.params)},
                                  {"metric", c.metric.name},
                                  {"unit", c.metric.unit},
                                  {"deterministic", c.metric.deterministic},
                                  {"commit", c.commit},
                                  {"previous_commit", c.previous_commit},
                                  {"run", c.run_uuid},
                                  {"run_id", c.run_id},
                                  {"previous_run_id", c.previous_run_id},
                                  {"started_at", c.started_at},
                                  {"index", c.index},
                                  {"kind", to_string(c.kind)},
                                  {"change_pct", number_or_null(c.change_pct)},
                                  {"before", c.before},
                                  {"after", c.after},
                                  {"confidence", c.confidence},
                                  {"unconfirmed", c.unconfirmed},
                                  {"runs_after", c.runs_after},
                                  {"gated", c.gated},
                                  {"hints", c.hints}});
      if (!c.lines.empty()) j["changes"].back()["lines"] = line_changes_json(c.lines);
      json& x = j["changes"].back();
      if (c.answer) x["acknowledgement"] = db::acknowledgement_json(*c.answer);
      if (!c.code.empty()) x["code"] = c.code;
      if (!c.environment.empty()) x["environment"] = environment_json(c.environment);
      if (c.environment_step > 0) x["environment_step"] = c.environment_step;
    }
    if (!steps.empty()) j["environment_steps"] = steps_json(steps, changes);  // absent where none: files as before
    j["not_enough_data"] = short_series_json(too_short);
    out << j.dump(2) << '\n';
    return;
  }
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

void write_compare_junit(std::ostream& out, const CompareReport& report) {
  std::size_t failures = 0, errors = 0, skipped = 0;
  for (const auto& r : report.rows) {
    if (is_regression(r) && r.verdict == Verdict::slower) ++failures;
    if (r.verdict == Verdict::failed) ++errors;
    if (r.verdict == Verdict::new_ || r.verdict == Verdict::missing) ++skipped;
  }
  // A partial candidate fails as one test case of its own (its rows stay skipped); a recorded program's line
  // is one test case too, failed when it gates and got slower.
  const bool missing_fails = report.missing_fails();
  const bool program_fails = report.program && report.program->regression();
  const std::size_t tests = report.rows.size() + (missing_fails ? 1 : 0) + (report.program ? 1 : 0);
  failures += (missing_fails ? 1 : 0) + (program_fails ? 1 : 0);
  const std::string suite =
      "gpuperf compare " + short_commit(report.base.commit) + ".." + short_commit(report.candidate.commit);
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"gpuperf compare\" tests=\"" << tests << "\" failures=\"" << failures << "\" errors=\""
      << errors << "\" skipped=\"" << skipped << "\">\n";
  out << "  <testsuite name=\"" << xml(suite) << "\" tests=\"" << tests << "\" failures=\"" << failures
      << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\">\n";
  if (report.program) {
    const std::string detail = program_line(*report.program);
    out << "    <testcase classname=\"gpuperf.program\" name=\"" << xml(report.program->program)
        << " GPU time\" time=\"0\">";
    if (program_fails) {
      out << "\n      <failure type=\"regression\" message=\"" << xml(detail) << "\">" << xml(detail)
          << "</failure>\n    ";
    } else {
      out << "\n      <system-out>" << xml(detail) << "</system-out>\n    ";
    }
    out << "</testcase>\n";
  }
  for (const auto& r : report.rows) {
    out << "    <testcase classname=\"" << xml(r.instance.display_name()) << "\" name=\"" << xml(r.metric.name)
        << "\" time=\"0\">";
    const std::string detail =
        std::string(to_string(r.verdict)) + (r.base && r.candidate ? " " + signed_pct(r.change_pct) : std::string()) +
        (is_ungated_slowdown(r) ? " (not gated)" : "") + (r.note.empty() ? "" : ": " + r.note) + lines_detail(r.lines);
    if (is_regression(r) && r.verdict == Verdict::slower) {
      out << "\n      <failure type=\"regression\" message=\"" << xml(detail) << "\">" << xml(detail)
          << "</failure>\n    ";
    } else if (r.verdict == Verdict::failed) {
      out << "\n      <error type=\"failed\" message=\"" << xml(detail) << "\">" << xml(detail) << "</error>\n    ";
    } else if (r.verdict == Verdict::new_ || r.verdict == Verdict::missing) {
      out << "\n      <skipped message=\"" << xml(detail) << "\"/>\n    ";
    } else if (r.verdict != Verdict::same) {
      out << "\n      <system-out>" << xml(detail) << "</system-out>\n    ";
    }
    out << "</testcase>\n";
  }
  if (missing_fails) {
    const std::string detail = missing_line(report);
    out << "    <testcase classname=\"gpuperf.compare\" name=\"instances missing from the candidate\" "
           "time=\"0\">\n      <failure type=\"missing\" message=\""
        << xml(detail) << "\">" << xml(detail) << "</failure>\n    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

void write_changes_junit(std::ostream& out, const std::vector<ChangePoint>& changes, std::size_t series_count) {
  std::size_t failures = 0;
  // An answered regression (gpuperf ack) fails nothing: it is listed with its answer.
  const auto fails = [](const ChangePoint& c) { return c.kind == ChangeKind::regression && c.gated && !c.answer; };
  for (const auto& c : changes) failures += fails(c) ? 1 : 0;
  const std::size_t tests = changes.empty() ? 1 : changes.size();
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"gpuperf detect\" tests=\"" << tests << "\" failures=\"" << failures << "\">\n";
  out << "  <testsuite name=\"gpuperf detect (" << series_count << " series)\" tests=\"" << tests << "\" failures=\""
      << failures << "\">\n";
  if (changes.empty()) {
    out << "    <testcase classname=\"gpuperf.detect\" name=\"no change points in " << series_count
        << " series\" time=\"0\"></testcase>\n";
  }
  for (const auto& c : changes) {
    std::string detail =
        std::string(to_string(c.kind)) + ' ' + signed_pct(c.change_pct) + " at " + c.commit + " (after " +
        c.previous_commit + "): " + format_value(c.before, c.metric.unit, UnitText::terminal) + " -> " +
        format_value(c.after, c.metric.unit, UnitText::terminal) + ", confidence " + confidence_cell(c.confidence) +
        (c.unconfirmed && !c.answer ? ", " + state_cell(c) : std::string()) +
        (c.kind == ChangeKind::regression && !c.gated ? " (not gated)" : "") +
        (c.answer ? ", " + state_cell(c) : std::string());
    for (const auto& h : c.hints) detail += "; " + h;
    for (const auto& l : c.lines) detail += "; " + line_change_text(l);
    out << "    <testcase classname=\"" << xml(c.instance.display_name()) << "\" name=\""
        << xml(c.metric.name + " @ " + short_commit(c.commit)) << "\" time=\"0\">";
    if (fails(c)) {
      out << "\n      <failure type=\"regression\" message=\"" << xml(detail) << "\">" << xml(detail)
          << "</failure>\n    ";
    } else {
      out << "\n      <system-out>" << xml(detail) << "</system-out>\n    ";
    }
    out << "</testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace gpuperf::reports
