#include "reports/bisect_writer.hpp"
#include "reports/line_text.hpp"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/value_text.hpp"
#include "reports/analysis/detect.hpp"
#include "reports/escape.hpp"

namespace gpuperf::reports {
namespace {

using nlohmann::json;

std::string short_sha(const std::string& sha) { return sha.substr(0, 10); }

std::string pct(double from, double to) {
  if (from == 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", (to / from - 1) * 100);
  return buf;
}

std::string value(double v, const MetricInfo& m) { return format_value(v, m.unit, UnitText::terminal); }

std::string moved_text(const analysis::CompareRow& r) {
  if (!r.base || !r.candidate) return r.metric.name;
  return analysis::change_hint(r.metric, r.base->median, r.candidate->median);
}

std::string cost_text(const BisectReport& r) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%d commits built, %d runs measured, %d reused, %.0f s", r.commits_built,
                r.runs_measured, r.runs_reused, r.wall_s);
  return buf;
}

std::string culprit_line(const BisectReport& r) {
  if (!r.same_code.empty()) return "none: " + r.same_code;
  if (r.resolved) return r.culprit.sha + " " + r.culprit.subject + " (" + r.culprit.date + ")";
  std::string out = "one of " + std::to_string(r.candidates.size()) + " commits (skipped ones left git unsure):";
  for (const auto& c : r.candidates) out += " " + short_sha(c);
  return out;
}

}  // namespace

void write_bisect_text(std::ostream& out, const BisectReport& r) {
  out << "bisect " << short_sha(r.good) << ".." << short_sha(r.bad) << " (" << r.commits_in_range << " commits), "
      << r.metric << " of /" << r.filter << "/\n";
  out << "culprit  " << culprit_line(r) << "\n\n";
  if (!r.levels.empty()) {
    char line[400];
    std::snprintf(line, sizeof line, "%-40s %-16s %12s %12s %12s %9s\n", "instance", "metric", "good", "before",
                  "culprit", "change");
    out << line;
    for (const BisectLevel& l : r.levels) {
      std::snprintf(line, sizeof line, "%-40s %-16s %12s %12s %12s %9s\n", l.instance.c_str(), l.metric.name.c_str(),
                    value(l.good, l.metric).c_str(), value(l.before, l.metric).c_str(), value(l.at, l.metric).c_str(),
                    pct(l.before, l.at).c_str());
      out << line;
    }
  }
  out << "moved with it: ";
  if (r.moved.empty()) out << "no other metric";
  for (std::size_t i = 0; i < r.moved.size(); ++i) out << (i ? ", " : "") << moved_text(r.moved[i]);
  out << "\n";
  for (const std::string& b : r.bounds) out << "bound: " << b << "\n";
  for (const auto& il : r.lines) {
    for (const auto& l : il.lines) out << "line: " << il.instance << "  " << line_change_text(l) << "\n";
  }
  out << "\nsteps\n";
  for (const BisectStepRow& s : r.steps) {
    out << "  " << short_sha(s.commit) << "  " << s.verdict << "  (" << (s.built ? "built, " : "") << s.runs_measured
        << " measured, " << s.runs_reused << " reused)  " << s.why << "\n";
  }
  out << "cost: " << cost_text(r) << "\n";
}

void write_bisect_markdown(std::ostream& out, const BisectReport& r) {
  out << "### Bisect: " << md_escape(r.metric) << " of `" << md_escape(r.filter) << "`\n\n";
  if (r.resolved) {
    out << "**Culprit:** `" << short_sha(r.culprit.sha) << "` " << md_escape(r.culprit.subject) << " ("
        << md_escape(r.culprit.date) << ")\n\n";
  } else {
    out << "**Culprit:** " << md_escape(culprit_line(r)) << "\n\n";
  }
  out << "Range `" << short_sha(r.good) << "..` `" << short_sha(r.bad) << "` (" << r.commits_in_range
      << " commits)\n\n";
  if (!r.levels.empty()) {
    out << "| instance | metric | good | before | culprit | change |\n|---|---|---:|---:|---:|---:|\n";
    for (const BisectLevel& l : r.levels) {
      out << "| " << md_escape(l.instance) << " | " << md_escape(l.metric.name) << " | " << value(l.good, l.metric)
          << " | " << value(l.before, l.metric) << " | " << value(l.at, l.metric) << " | " << pct(l.before, l.at)
          << " |\n";
    }
    out << "\n";
  }
  out << "Moved with it: ";
  if (r.moved.empty()) out << "no other metric";
  for (std::size_t i = 0; i < r.moved.size(); ++i) out << (i ? ", " : "") << md_escape(moved_text(r.moved[i]));
  out << "\n\n";
  for (const std::string& b : r.bounds) out << "Bound: " << md_escape(b) << "\n\n";
  for (const auto& il : r.lines) {
    out << "Source lines of " << md_escape(il.instance) << " that moved:\n\n";
    for (const auto& l : il.lines) out << "- " << md_escape(line_change_text(l)) << "\n";
    out << "\n";
  }
  out << "Cost: " << cost_text(r) << "\n";
}

void write_bisect_json(std::ostream& out, const BisectReport& r) {
  json j{{"good", r.good},
         {"bad", r.bad},
         {"filter", r.filter},
         {"metric", r.metric},
         {"commits_in_range", r.commits_in_range},
         {"resolved", r.resolved}};
  if (r.resolved) {
    j["culprit"] = {{"commit", r.culprit.sha},
                    {"subject", r.culprit.subject},
                    {"date", r.culprit.date},
                    {"parent", r.culprit.parent}};
  } else {
    j["culprit"] = nullptr;
  }
  j["candidates"] = r.candidates;
  if (!r.same_code.empty()) j["same_code"] = r.same_code;
  json levels = json::array();
  for (const BisectLevel& l : r.levels) {
    levels.push_back({{"instance", l.instance},
                      {"metric", l.metric.name},
                      {"unit", l.metric.unit},
                      {"good", l.good},
                      {"before", l.before},
                      {"culprit", l.at},
                      {"bad", l.bad}});
  }
  j["levels"] = levels;
  json moved = json::array();
  for (const auto& m : r.moved) {
    moved.push_back({{"instance", m.instance.display_name()},
                     {"metric", m.metric.name},
                     {"unit", m.metric.unit},
                     {"before", m.base ? json(m.base->median) : json(nullptr)},
                     {"culprit", m.candidate ? json(m.candidate->median) : json(nullptr)},
                     {"verdict", analysis::to_string(m.verdict)}});
  }
  j["moved"] = moved;
  j["bounds"] = r.bounds;
  json lines = json::array();
  for (const auto& il : r.lines) lines.push_back({{"instance", il.instance}, {"lines", line_changes_json(il.lines)}});
  j["lines"] = lines;
  json steps = json::array();
  for (const auto& s : r.steps) {
    steps.push_back({{"commit", s.commit},
                     {"verdict", s.verdict},
                     {"why", s.why},
                     {"built", s.built},
                     {"runs_measured", s.runs_measured},
                     {"runs_reused", s.runs_reused}});
  }
  j["steps"] = steps;
  j["cost"] = {{"commits_built", r.commits_built},
               {"runs_measured", r.runs_measured},
               {"runs_reused", r.runs_reused},
               {"wall_s", std::round(r.wall_s * 10) / 10}};
  out << j.dump(2) << "\n";
}

}  // namespace gpuperf::reports
