#include "reports/html_source.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "db/source_lines.hpp"
#include "reports/escape.hpp"
#include "reports/format.hpp"
#include "reports/line_text.hpp"

namespace gpuperf::reports::html {
namespace {

std::string esc(const std::string& s) { return html_escape(s); }

std::string pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", std::clamp(v, 0.0, 100.0));
  return buf;
}

std::string ratio(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// A counter cell: the value as text over a bar `share` wide (of the column's largest), marked "waste" where
// the line moves more than its ideal; the ideal (same scale) as a tick.
std::string bar_cell(const std::string& text, double share, std::optional<double> ideal_share, bool waste,
                     const std::string& title) {
  std::string o = "<td class=\"srcbar\" title=\"" + esc(title) + "\"><span class=\"sbar\"><span class=\"sfill" +
                  (waste ? " waste" : "") + "\" style=\"width:" + pct(100 * share) + "\"></span>";
  if (ideal_share) o += "<span class=\"sideal\" style=\"left:" + pct(100 * *ideal_share) + "\"></span>";
  return o + "</span><span class=\"sval\">" + esc(text) + "</span></td>";
}

struct Column {
  const char* head;
  double SourceLine::*count;
  double SourceLine::*ideal;     // may be null
  double SourceLine::*requests;  // per request where set
};
constexpr Column kColumns[] = {
    {"Warp instructions", &SourceLine::inst_executed, nullptr, nullptr},
    {"Global load sectors / request", &SourceLine::global_ld_sectors, &SourceLine::global_ld_sectors_ideal,
     &SourceLine::global_ld_requests},
    {"Global store sectors / request", &SourceLine::global_st_sectors, &SourceLine::global_st_sectors_ideal,
     &SourceLine::global_st_requests},
    {"Shared wavefronts", &SourceLine::shared_wavefronts, &SourceLine::shared_wavefronts_ideal, nullptr},
    {"Local sectors", &SourceLine::local_sectors, nullptr, nullptr},
};

double column_value(const Column& c, const SourceLine& l) {
  if (c.requests == nullptr) return l.*c.count;
  return l.*c.requests > 0 ? l.*c.count / (l.*c.requests) : 0;
}
double column_ideal(const Column& c, const SourceLine& l) {
  if (c.ideal == nullptr) return 0;
  if (c.requests == nullptr) return l.*c.ideal;
  return l.*c.requests > 0 ? l.*c.ideal / (l.*c.requests) : 0;
}
std::string column_text(const Column& c, double v) {
  return c.requests != nullptr ? ratio(v) : format_value(v, "count");
}

const InstanceSource* source_of(const MachineReport& m, const InstanceTrends& inst) {
  auto it = m.sources.find(inst.instance.display_name());
  return it == m.sources.end() ? nullptr : &it->second;
}

// A kernel's lines as a table: one row per line, one bar per counter the lines of `scale` have (the bars' 100%
// is the largest value among them, so two tables on one scale compare bar for bar).
std::string line_table(const std::vector<const SourceLine*>& lines, const std::vector<analysis::LineChange>* changed,
                       const std::vector<const SourceLine*>& scale) {
  std::vector<const Column*> cols;
  for (const Column& c : kColumns) {
    if (std::any_of(scale.begin(), scale.end(), [&](const SourceLine* l) { return l->*c.count > 0; }))
      cols.push_back(&c);
  }
  std::string o = "<table class=\"src\"><thead><tr><th>Line</th><th>Source</th>";
  for (const Column* c : cols) o += "<th>" + esc(c->head) + "</th>";
  o += "</tr></thead><tbody>\n";
  for (const SourceLine* l : lines) {
    const analysis::LineChange* ch = changed != nullptr ? change_of(*changed, *l) : nullptr;
    o += std::string("<tr") + (ch != nullptr ? " class=\"changed\"" : "") + "><td class=\"sline\">";
    if (ch != nullptr) o += "<span class=\"smark\" title=\"" + esc(line_change_text(*ch)) + "\">changed</span> ";
    o += "<code>" + esc(line_place(*l)) + "</code></td><td class=\"scode\"><code>" +
         (l->text.empty() ? "<span class=\"muted\">(source not stored)</span>" : esc(l->text)) + "</code>" +
         (l->text_from_run != 0
              ? " <span class=\"muted\">(text from run " + std::to_string(l->text_from_run) + ")</span>"
              : "") +
         "</td>";
    for (const Column* c : cols) {
      double top = 0;
      for (const SourceLine* x : scale) top = std::max({top, column_value(*c, *x), column_ideal(*c, *x)});
      const double v = column_value(*c, *l), ideal = column_ideal(*c, *l);
      if (l->*c->count <= 0) {
        o += "<td></td>";
        continue;
      }
      std::optional<double> ideal_share;
      std::string title = c->head + std::string(": ") + column_text(*c, v);
      if (c->ideal != nullptr) {
        ideal_share = top > 0 ? ideal / top : 0;
        title += " (ideal " + column_text(*c, ideal) + ")";
      }
      const bool waste = c->ideal != nullptr && analysis::ratio_moved(ideal, v) && v > ideal;
      std::string text = column_text(*c, v);
      if (c->ideal != nullptr && waste && ideal > 0) text += " (" + ratio(v / ideal) + "x ideal)";
      o += bar_cell(text, top > 0 ? v / top : 0, ideal_share, waste, title);
    }
    o += "</tr>\n";
  }
  // What the bars and the tick mean, under every line table.
  return o +
         "</tbody></table>\n<p class=\"muted slegend\"><span class=\"sbar\"><span class=\"sfill\" "
         "style=\"width:70%\"></span><span class=\"sideal\" style=\"left:30%\"></span></span>bar: the line's "
         "count (the column's largest fills it); tick: its ideal, what coalesced, conflict-free accesses would "
         "take; <span class=\"sbar\"><span class=\"sfill waste\" style=\"width:70%\"></span></span>red: "
         "above its ideal</p>\n";
}

}  // namespace

std::string source_style(const ReportModel& model) {
  const bool any = std::any_of(model.machines.begin(), model.machines.end(),
                               [](const MachineReport& m) { return !m.sources.empty(); });
  if (!any) return "";
  return R"CSS(
details.source { margin: 8px 0; }
details.source > summary { cursor: pointer; font-size: 13px; color: var(--muted); }
table.src { font-size: 12.5px; width: 100%; }
table.src td.scode code { white-space: pre-wrap; overflow-wrap: anywhere; }
table.src td.sline { white-space: nowrap; }
table.src tr.changed { background: #fff4e5; }
.smark { display: inline-block; background: var(--bad); color: #fff; border-radius: 3px; padding: 0 4px;
  font-size: 11px; }
td.srcbar { min-width: 150px; white-space: nowrap; }
.sbar { position: relative; display: inline-block; width: 90px; height: 9px; background: #e6e9ee; border-radius: 2px;
  vertical-align: middle; margin-right: 6px; }
.sfill { display: block; height: 100%; background: #6f8fb8; border-radius: 2px; }
.sfill.waste { background: var(--bad); }
.sideal { position: absolute; top: -2px; bottom: -2px; border-left: 2px solid var(--fg); }
.sval { font-variant-numeric: tabular-nums; }
.slegend { font-size: 12px; margin: 2px 0 8px; }
.slegend .sbar { width: 40px; }
.srcpair { display: grid; grid-template-columns: minmax(0, 1fr); gap: 4px; }
.srcpair h5 { margin: 8px 0 4px; }
table.src td.scode { min-width: 280px; }
)CSS";
}

std::string source_view(const MachineReport& m, const InstanceTrends& inst) {
  const InstanceSource* s = source_of(m, inst);
  if (s == nullptr) return "";
  if (s->source.status != Status::ok) {
    return "<p class=\"muted srcnote\">Source lines " + esc(to_string(s->source.status)) +
           (s->source.message.empty() ? "" : ": " + esc(s->source.message)) + "</p>\n";
  }
  if (s->source.lines.empty()) return "";
  const std::vector<const SourceLine*> lines = heaviest_lines(s->source, kViewLines);
  std::string o = "<details class=\"source\" open><summary>Source lines at <code>" + esc(short_commit(s->commit)) +
                  "</code>: " + std::to_string(lines.size()) + " of " + std::to_string(s->source.lines_total) +
                  " (the heaviest by warp instructions, and every line above its ideal sectors or wavefronts), per "
                  "launch";
  if (!s->previous_commit.empty()) {
    o += "; " + std::to_string(s->changed.size()) + " moved since <code>" + esc(short_commit(s->previous_commit)) +
         "</code> (the window's first run)";
  }
  o += "</summary>\n" + line_table(lines, &s->changed, lines);
  if (!s->changed.empty()) {
    o += "<ul class=\"srcchanges\">";
    for (const auto& c : s->changed) o += "<li><code>" + esc(line_change_text(c)) + "</code></li>";
    o += "</ul>\n";
  }
  return o + "</details>\n";
}

std::string source_pair(const MachineReport& m, const InstanceTrends& variant, const InstanceTrends& baseline) {
  const InstanceSource* v = source_of(m, variant);
  const InstanceSource* b = source_of(m, baseline);
  if (v == nullptr || b == nullptr || v->source.lines.empty() || b->source.lines.empty()) return "";
  // Each kernel's lines that touch memory, most traffic (global and shared) first.
  const auto memory_lines = [](const SourceLines& s) {
    std::vector<const SourceLine*> out;
    for (const SourceLine& l : s.lines) {
      if (l.global_ld_sectors + l.global_st_sectors + l.shared_wavefronts + l.local_sectors > 0) out.push_back(&l);
    }
    std::stable_sort(out.begin(), out.end(), [](const SourceLine* x, const SourceLine* y) {
      return x->global_ld_sectors + x->global_st_sectors + x->shared_wavefronts >
             y->global_ld_sectors + y->global_st_sectors + y->shared_wavefronts;
    });
    if (out.size() > 6) out.resize(6);
    return out;
  };
  const auto bl = memory_lines(b->source), vl = memory_lines(v->source);
  if (bl.empty() && vl.empty()) return "";
  std::vector<const SourceLine*> both = bl;  // one scale for both tables
  both.insert(both.end(), vl.begin(), vl.end());
  return "<details class=\"source\" open><summary>Line by line: the memory access of each kernel's lines, on one "
         "scale</summary>"
         "<div class=\"srcpair\"><div><h5>" +
         esc(baseline.short_display_name()) + "</h5>" + line_table(bl, nullptr, both) + "</div><div><h5>" +
         esc(variant.short_display_name()) + "</h5>" + line_table(vl, nullptr, both) + "</div></div></details>\n";
}

}  // namespace gpuperf::reports::html
