#include "reports/html_charts.hpp"

#include <cmath>
#include <cstdio>

#include "reports/chart_zoom.hpp"
#include "reports/escape.hpp"
#include "reports/format.hpp"

namespace gpuperf::reports::html {
namespace {

// Exact enough for a tooltip, short in the page: up to 10 significant digits.
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

ChartLine line_of(const TrendSeries& s, const std::string& label, int color, bool with_band) {
  ChartLine line;
  line.label = label;
  line.color = color;
  line.points.reserve(s.points.size());
  for (const auto& p : s.points) line.points.emplace_back(p.run, p.summary.median);
  // The interquartile band of the samples, where a run had several.
  bool any_spread = false;
  for (const auto& p : s.points) any_spread = any_spread || (p.summary.n > 1 && p.summary.q3 > p.summary.q1);
  if (with_band && any_spread) {
    for (const auto& p : s.points) {
      line.band.emplace_back(p.summary.n > 1 ? p.summary.q1 : p.summary.median,
                             p.summary.n > 1 ? p.summary.q3 : p.summary.median);
    }
  }
  return line;
}

// The change points of `s` as chart markers, their tooltips naming `who`.
void add_markers(ChartSpec& spec, const TrendSeries& s, const std::string& who) {
  for (std::size_t k = 0; k < s.changes.size(); ++k) {
    const auto& cp = s.changes[k];
    spec.markers.push_back({s.change_runs[k], cp.kind == analysis::ChangeKind::regression,
                            who + " " + cp.metric.name + ": " + change_title(cp)});
  }
}

std::string figure(const std::string& caption_html, const std::string& svg, const std::string& css_class = "") {
  std::string o = "<figure";
  if (!css_class.empty()) o += " class=\"" + css_class + "\"";
  o += "><figcaption>" + caption_html + "</figcaption>\n" + svg + "</figure>\n";
  return o;
}

}  // namespace

int HoverData::add(std::size_t machine, const ChartSpec& spec) {
  const std::size_t n = spec.runs != nullptr ? spec.runs->size() : 0;
  std::string c = "{\"m\":" + std::to_string(machine) + ",\"u\":" + json_string(spec.unit) + ",\"l\":[";
  for (std::size_t li = 0; li < spec.lines.size(); ++li) {
    const auto& line = spec.lines[li];
    if (li > 0) c += ',';
    c += "[" + json_string(line.label) + ",[";
    std::size_t k = 0;
    for (std::size_t run = 0; run < n; ++run) {
      if (run > 0) c += ',';
      if (k < line.points.size() && line.points[k].first == run) {
        c += json_number(line.points[k].second);
        ++k;
      } else {
        c += "null";
      }
    }
    c += "]]";
  }
  c += "]}";
  if (count_ > 0) charts_ += ",\n";
  charts_ += c;
  return count_++;
}

std::string HoverData::json(const ReportModel& model) const {
  std::string o = "{\"machines\":[";
  for (std::size_t mi = 0; mi < model.machines.size(); ++mi) {
    if (mi > 0) o += ',';
    o += "{\"runs\":[";
    const auto& runs = model.machines[mi].runs;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (i > 0) o += ',';
      o += "[" + json_string(short_commit(runs[i].commit)) + "," + json_string(format_datetime(runs[i].started_at)) +
           "," + json_string(runs[i].branch) + "]";
    }
    o += "]}";
  }
  o += "],\n\"charts\":[\n" + charts_ + "\n]}";
  return o;
}

std::string instance_anchor(std::size_t machine_index, std::size_t instance_index) {
  return "m" + std::to_string(machine_index) + "-i" + std::to_string(instance_index);
}

std::string note_title(const RunNote& n) {
  return "Note on " + n.on + ": " + n.text + "\n" + n.by + (n.by.empty() ? "" : ", ") + format_datetime(n.at);
}

std::string change_title(const analysis::ChangePoint& cp) {
  std::string t = std::string(cp.kind == analysis::ChangeKind::regression ? "Regression " : "Improvement ") +
                  format_change(cp.before, cp.after, cp.change_pct) + ": " + format_value(cp.before, cp.metric.unit) +
                  " \xE2\x86\x92 " + format_value(cp.after, cp.metric.unit);
  t += "\ncommits " + short_commit(cp.previous_commit) + ".." + short_commit(cp.commit) + ", " +
       format_datetime(cp.started_at);
  if (cp.unconfirmed) t += "\n" + format_state(cp.unconfirmed, cp.runs_after);
  if (cp.answer) t += "\n" + format_answer(cp.answer->accepted, cp.answer->reason);
  for (const auto& h : cp.hints) t += "\n" + h;
  return t;
}

std::string trend_figure(const MachineReport& m, std::size_t machine_index, const InstanceTrends& inst,
                         const TrendSeries& series, HoverData& hover) {
  ChartSpec spec;
  spec.unit = series.metric.unit;
  spec.runs = &m.runs;
  spec.lines.push_back(line_of(series, series.metric.name, 0, !series.metric.deterministic));
  for (std::size_t k = 0; k < series.changes.size(); ++k) {
    const auto& cp = series.changes[k];
    spec.markers.push_back({series.change_runs[k], cp.kind == analysis::ChangeKind::regression, change_title(cp)});
  }
  for (const RunNote& n : m.notes) spec.notes.push_back({n.run, note_title(n)});
  // Levels between change points: before the first change, then each change's new level.
  if (!series.changes.empty()) {
    std::size_t from = series.points.front().run;
    for (std::size_t k = 0; k < series.changes.size(); ++k) {
      const std::size_t to = series.change_runs[k];
      if (to > from) spec.levels.push_back({from, to, series.changes[k].before});
      from = to;
    }
    spec.levels.push_back({from, series.points.back().run, series.changes.back().after});
  }
  spec.aria_label =
      inst.short_display_name() + " " + series.metric.name + " over " + std::to_string(series.points.size()) + " runs";
  spec.hover_index = hover.add(machine_index, spec);

  std::string caption = "<span class=\"metric\">" + html_escape(series.metric.name) +
                        "</span> <span class=\"latest\">" +
                        html_escape(format_value(series.latest(), series.metric.unit)) + "</span>";
  for (const auto& cp : series.changes) {
    const bool bad = cp.kind == analysis::ChangeKind::regression;
    caption += std::string(" <span class=\"badge ") + (bad ? "bad" : "good") + "\">" +
               html_escape(format_change(cp.before, cp.after, cp.change_pct)) + "</span>";
  }
  std::string o = figure(caption, render_chart(spec));
  // After a long history, the newest runs drawn alone, so that a change among them is more than a pixel.
  if (!series.changes.empty() && wants_zoom(m.runs.size(), series.change_runs.back())) {
    const std::size_t first = m.runs.size() - kZoomRuns;
    const std::vector<RunRef> recent(m.runs.begin() + static_cast<std::ptrdiff_t>(first), m.runs.end());
    o += figure("<span class=\"metric\">" + html_escape(series.metric.name) + "</span> newest " +
                    std::to_string(kZoomRuns) + " of " + std::to_string(m.runs.size()) + " runs",
                render_chart(zoom_spec(spec, recent, first)), "zoom");
  }
  return o;
}

std::string pair_figures(const MachineReport& m, std::size_t machine_index, const VariantPair& pair, HoverData& hover) {
  const InstanceTrends& v = m.instances[pair.variant];
  const InstanceTrends& b = m.instances[pair.baseline];
  std::string o;
  auto two_lines = [&](const std::string& metric) {
    const TrendSeries* sv = v.find(metric);
    const TrendSeries* sb = b.find(metric);
    if (sv == nullptr || sb == nullptr) return;
    ChartSpec spec;
    spec.unit = sv->metric.unit;
    spec.runs = &m.runs;
    spec.lines.push_back(line_of(*sb, benchmark_variant(b.instance.name), 1, false));
    spec.lines.push_back(line_of(*sv, benchmark_variant(v.instance.name), 0, false));
    add_markers(spec, *sb, benchmark_variant(b.instance.name));
    add_markers(spec, *sv, benchmark_variant(v.instance.name));
    spec.aria_label = metric + " of " + v.short_display_name() + " and " + b.short_display_name();
    spec.hover_index = hover.add(machine_index, spec);
    const std::string caption = "<span class=\"metric\">" + html_escape(metric) + "</span> <span class=\"latest\">" +
                                html_escape(benchmark_variant(b.instance.name)) + " " +
                                html_escape(format_value(sb->latest(), sb->metric.unit)) + ", " +
                                html_escape(benchmark_variant(v.instance.name)) + " " +
                                html_escape(format_value(sv->latest(), sv->metric.unit)) + "</span>";
    o += figure(caption, render_chart(spec));
  };
  two_lines("duration");
  if (!pair.key_metric.empty()) two_lines(pair.key_metric);
  if (!pair.ratio.empty()) {
    ChartSpec spec;
    spec.unit = "\xC3\x97";  // ×
    spec.runs = &m.runs;
    ChartLine line;
    line.label = m.ratio_label(pair);
    line.color = 2;
    for (const auto& r : pair.ratio) line.points.emplace_back(r.run, r.value);
    spec.lines.push_back(std::move(line));
    spec.reference = 1.0;
    // The ratio moves when either side's duration does: show both sides' change points.
    if (const TrendSeries* d = b.find("duration")) add_markers(spec, *d, benchmark_variant(b.instance.name));
    if (const TrendSeries* d = v.find("duration")) add_markers(spec, *d, benchmark_variant(v.instance.name));
    spec.aria_label = "duration ratio " + m.ratio_label(pair);
    spec.hover_index = hover.add(machine_index, spec);
    const std::string caption = "<span class=\"metric\">" + html_escape(m.ratio_label(pair)) +
                                " duration</span> <span class=\"latest\">" +
                                html_escape(format_ratio(pair.ratio.back().value)) + "</span>";
    o += figure(caption, render_chart(spec), "ratio");
  }
  return o;
}

}  // namespace gpuperf::reports::html
