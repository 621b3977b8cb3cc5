#include "reports/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "reports/escape.hpp"
#include "reports/format.hpp"

namespace gpuperf::reports {
namespace {

using G = ChartGeometry;

constexpr double kPlotW = G::width - G::left - G::right;
constexpr double kPlotH = G::height - G::top - G::bottom;
constexpr double kCharWidth = 6.1;  // average glyph advance at the legend's 11px font, for layout only

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  if (s == "-0") s = "0";
  return s;
}

// Decimals needed to print multiples of `step` exactly (0.25 -> 2, 5 -> 0).
int decimals_for(double step) {
  for (int d = 0; d < 6; ++d) {
    const double x = step * std::pow(10.0, d);
    if (std::fabs(x - std::round(x)) < 1e-6 * std::max(1.0, x)) return d;
  }
  return 6;
}

const char* month_name(int m) {
  static const char* const kNames[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  return (m >= 1 && m <= 12) ? kNames[m - 1] : "?";
}

// "Nov 1" (or "Nov 1 2026" when the axis spans several years) from an ISO timestamp.
std::string tick_date(const std::string& iso, bool with_year) {
  if (iso.size() < 10 || iso[4] != '-' || iso[7] != '-') return iso.substr(0, std::min<std::size_t>(iso.size(), 10));
  const int month = std::atoi(iso.substr(5, 2).c_str());
  const int day = std::atoi(iso.substr(8, 2).c_str());
  std::string s = std::string(month_name(month)) + " " + std::to_string(day);
  if (with_year) s += " " + iso.substr(0, 4);
  return s;
}

std::string truncate_label(const std::string& s, std::size_t max_chars) {
  // Counts bytes, cuts on a UTF-8 boundary.
  if (s.size() <= max_chars) return s;
  std::size_t cut = max_chars - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "\xE2\x80\xA6";  // …
}

}  // namespace

AxisTicks nice_ticks(double lo, double hi, int target) {
  AxisTicks t;
  if (!(hi > lo)) {
    const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.05;
    lo -= pad;
    hi += pad;
  }
  const double raw = (hi - lo) / std::max(1, target - 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  // 1, 2 or 5 times a power of ten: ticks read 0, 20, 40 or 0, 50, 100, never 0, 25, 50 or 47.68.
  const double mult = f < 1.5 ? 1 : (f < 3 ? 2 : (f < 7 ? 5 : 10));
  t.step = mult * mag;
  t.lo = std::floor(lo / t.step + 1e-9) * t.step;
  t.hi = std::ceil(hi / t.step - 1e-9) * t.step;
  if (t.hi <= t.lo) t.hi = t.lo + t.step;
  for (double v = t.lo; v <= t.hi + t.step * 1e-6; v += t.step)
    t.values.push_back(std::fabs(v) < t.step * 1e-9 ? 0 : v);
  return t;
}

std::pair<double, double> value_domain(double lo, double hi, double min_relative_span, bool percent) {
  const double span = min_relative_span * std::max(std::fabs(lo), std::fabs(hi));
  if (!(hi - lo < span)) return {lo, hi};
  const double mid = (lo + hi) / 2;
  double a = mid - span / 2, b = mid + span / 2;
  if (lo >= 0 && a < 0) {  // non-negative data keeps a non-negative axis
    b -= a;
    a = 0;
  }
  if (percent && b > 100) {  // a percentage keeps its 100% ceiling
    a = std::max(0.0, a - (b - 100));
    b = 100;
  }
  return {a, b};
}

std::vector<std::size_t> x_tick_runs(std::size_t run_count, std::size_t max_ticks) {
  std::vector<std::size_t> out;
  if (run_count == 0 || max_ticks == 0) return out;
  if (run_count <= max_ticks) {
    for (std::size_t i = 0; i < run_count; ++i) out.push_back(i);
    return out;
  }
  // Evenly spaced from the first run; the last run gets a tick too unless it would crowd the one before.
  const std::size_t last = run_count - 1;
  const std::size_t step = (last + max_ticks - 2) / (max_ticks - 1);
  for (std::size_t i = 0; i < last; i += step) out.push_back(i);
  if (2 * (last - out.back()) >= step) {
    out.push_back(last);
  } else {
    out.back() = last;
  }
  return out;
}

namespace {

// The plot's frame: the runs along x, the value axis along y (ticks in the metric's unit).
struct Frame {
  std::size_t n = 0;
  AxisTicks ticks;  // in the metric's unit
  UnitScale scale;  // how tick labels show it
  int decimals = 0;
  double x_of(std::size_t run) const {
    if (n <= 1) return G::left + kPlotW / 2;
    return G::left + kPlotW * static_cast<double>(run) / static_cast<double>(n - 1);
  }
  double y_of(double v) const { return G::top + (ticks.hi - v) / (ticks.hi - ticks.lo) * kPlotH; }
};

// The range of everything drawn: points, bands, levels and the reference line.
std::pair<double, double> data_range(const ChartSpec& spec) {
  double lo = INFINITY, hi = -INFINITY;
  auto include = [&](double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  };
  for (const auto& line : spec.lines) {
    for (const auto& p : line.points) include(p.second);
    for (const auto& b : line.band) {
      include(b.first);
      include(b.second);
    }
  }
  for (const auto& l : spec.levels) include(l.value);
  if (spec.reference) include(*spec.reference);
  if (!std::isfinite(lo)) lo = hi = 0;
  return {lo, hi};
}

// The value axis: its unit is chosen from the data first and the ticks are round numbers of that unit
// (0, 50, 100 MB), not round numbers of bytes shown in another unit.
Frame value_axis(const ChartSpec& spec, std::size_t n) {
  auto [lo, hi] = data_range(spec);
  const bool percent = spec.unit == "%" && lo >= 0 && hi <= 100;
  std::tie(lo, hi) = value_domain(lo, hi, spec.min_relative_span, percent);
  Frame f;
  f.n = n;
  f.scale = scale_for(spec.unit, std::max(std::fabs(lo), std::fabs(hi)));
  const double d = f.scale.divisor;
  f.ticks = nice_ticks(lo / d, hi / d);
  if (percent) {  // efficiencies and occupancies stay within 0..100
    f.ticks.lo = std::max(f.ticks.lo, 0.0);
    f.ticks.hi = std::min(f.ticks.hi, 100.0);
    f.ticks.values.erase(std::remove_if(f.ticks.values.begin(), f.ticks.values.end(),
                                        [&](double v) { return v < f.ticks.lo || v > f.ticks.hi; }),
                         f.ticks.values.end());
  }
  f.decimals = decimals_for(f.ticks.step);
  f.ticks.lo *= d;
  f.ticks.hi *= d;
  f.ticks.step *= d;
  for (double& v : f.ticks.values) v *= d;
  return f;
}

void draw_value_axis(std::string& o, const ChartSpec& spec, const Frame& f) {
  o += "<g class=\"grid\">";
  for (double v : f.ticks.values) {
    const double y = f.y_of(v);
    o += "<line x1=\"" + num(G::left) + "\" x2=\"" + num(G::plot_right()) + "\" y1=\"" + num(y) + "\" y2=\"" + num(y) +
         "\"/>";
  }
  o += "</g><g class=\"ticks y\">";
  for (double v : f.ticks.values) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", f.decimals, v / f.scale.divisor);
    o += "<text x=\"" + num(G::left - 6) + "\" y=\"" + num(f.y_of(v) + 3.5) + "\">" + buf + "</text>";
  }
  std::string unit_label = f.scale.unit.empty() ? spec.unit : f.scale.unit;
  // From the left edge rightwards: a long unit ("warps/issue") is not cut off by the chart's left border.
  o += "</g><text class=\"unit\" x=\"2\" y=\"" + num(G::top - 8) + "\">" + html_escape(unit_label) + "</text>";
}

// Run dates under the plot, the axis lines, and the caption ("30 runs, 2026-10-01 to 2026-10-30").
void draw_time_axis(std::string& o, const std::vector<RunRef>& runs, const Frame& f) {
  const std::size_t n = runs.size();
  const bool several_years = n > 0 && runs.front().started_at.substr(0, 4) != runs.back().started_at.substr(0, 4);
  o += "<g class=\"ticks x\">";
  for (std::size_t i : x_tick_runs(n, several_years ? 4 : 6)) {
    const double x = f.x_of(i);
    // The last label ends at its tick so it stays inside the chart.
    const char* anchor = (n > 1 && i == n - 1) ? " class=\"last\"" : "";
    o += "<line x1=\"" + num(x) + "\" x2=\"" + num(x) + "\" y1=\"" + num(G::top + kPlotH) + "\" y2=\"" +
         num(G::top + kPlotH + 4) + "\"/>";
    o += "<text x=\"" + num(x) + "\" y=\"" + num(G::top + kPlotH + 15) + "\"" + anchor + ">" +
         html_escape(tick_date(runs[i].started_at, several_years)) + "</text>";
  }
  o += "</g><path class=\"axis\" d=\"M" + num(G::left) + " " + num(G::top) + "V" + num(G::top + kPlotH) + "H" +
       num(G::plot_right()) + "\"/>";
  std::string caption = n == 1 ? "1 run" : std::to_string(n) + " runs";
  if (n > 0) caption += ", " + format_date(runs.front().started_at) + " to " + format_date(runs.back().started_at);
  o += "<text class=\"caption\" x=\"" + num(G::left + kPlotW / 2) + "\" y=\"" + num(G::height - 6) + "\">" +
       html_escape(caption) + "</text>";
}

// The reference line, quartile bands, then the segment levels, then the lines (and dots) on top.
void draw_data(std::string& o, const ChartSpec& spec, const Frame& f) {
  if (spec.reference) {
    const double y = f.y_of(*spec.reference);
    o += "<line class=\"reference\" x1=\"" + num(G::left) + "\" x2=\"" + num(G::plot_right()) + "\" y1=\"" + num(y) +
         "\" y2=\"" + num(y) + "\"/>";
  }
  for (const auto& line : spec.lines) {
    if (line.band.size() != line.points.size() || line.points.size() < 2) continue;
    std::string d;
    for (std::size_t i = 0; i < line.points.size(); ++i) {
      d += (i == 0 ? "M" : "L") + num(f.x_of(line.points[i].first)) + " " + num(f.y_of(line.band[i].second));
    }
    for (std::size_t i = line.points.size(); i-- > 0;) {
      d += "L" + num(f.x_of(line.points[i].first)) + " " + num(f.y_of(line.band[i].first));
    }
    o += "<path class=\"band c" + std::to_string(line.color) + "\" d=\"" + d + "Z\"/>";
  }
  for (const auto& l : spec.levels) {
    const double y = f.y_of(l.value);
    o += "<line class=\"level\" x1=\"" + num(f.x_of(l.from)) + "\" x2=\"" + num(f.x_of(l.to)) + "\" y1=\"" + num(y) +
         "\" y2=\"" + num(y) + "\"/>";
  }
  for (const auto& line : spec.lines) {
    const std::string cls = "c" + std::to_string(line.color);
    if (line.points.size() >= 2) {
      std::string pts;
      pts.reserve(line.points.size() * 12);
      for (const auto& p : line.points) {
        if (!pts.empty()) pts += ' ';
        pts += num(f.x_of(p.first)) + "," + num(f.y_of(p.second));
      }
      o += "<polyline class=\"line " + cls + "\" points=\"" + pts + "\"/>";
    }
    if (line.points.size() <= 40) {  // few points: draw each one so single runs are visible
      o += "<g class=\"dots " + cls + "\">";
      for (const auto& p : line.points) {
        o += "<circle cx=\"" + num(f.x_of(p.first)) + "\" cy=\"" + num(f.y_of(p.second)) + "\" r=\"2.5\"/>";
      }
      o += "</g>";
    }
  }
}

// Change points: a dashed rule across the plot and a flag at the top, each with its tooltip.
void draw_markers(std::string& o, const ChartSpec& spec, const Frame& f) {
  for (const auto& m : spec.markers) {
    const double x = f.x_of(m.run);
    const char* cls = m.regression ? "marker regression" : "marker improvement";
    o += std::string("<g class=\"") + cls + "\"><title>" + html_escape(m.title) + "</title>";
    o += "<line x1=\"" + num(x) + "\" x2=\"" + num(x) + "\" y1=\"" + num(G::top) + "\" y2=\"" + num(G::top + kPlotH) +
         "\"/>";
    o += "<path d=\"M" + num(x - 5) + " " + num(G::top - 1) + "h10l-5 7z\"/></g>";
  }
}

// Annotations: a dotted rule and a dot on the time axis, the note on hover (a wide invisible rule makes the
// hover target easy to hit on a touch screen).
void draw_notes(std::string& o, const ChartSpec& spec, const Frame& f) {
  for (const auto& n : spec.notes) {
    const double x = f.x_of(n.run);
    o += "<g class=\"note\" tabindex=\"0\"><title>" + html_escape(n.title) + "</title>";
    o += "<line x1=\"" + num(x) + "\" x2=\"" + num(x) + "\" y1=\"" + num(G::top) + "\" y2=\"" + num(G::top + kPlotH) +
         "\"/>";
    o += "<line class=\"hit\" x1=\"" + num(x) + "\" x2=\"" + num(x) + "\" y1=\"" + num(G::top) + "\" y2=\"" +
         num(G::top + kPlotH) + "\"/>";
    o += "<circle cx=\"" + num(x) + "\" cy=\"" + num(G::top + kPlotH) + "\" r=\"4\"/></g>";
  }
}

// Legend, top right, when there is more than one line.
void draw_legend(std::string& o, const ChartSpec& spec) {
  if (spec.lines.size() < 2) return;
  double x = G::plot_right();
  std::string items;
  const double per_item = (G::width - 10) / static_cast<double>(spec.lines.size()) - 24;
  const auto max_chars = static_cast<std::size_t>(std::max(6.0, per_item / kCharWidth));
  for (std::size_t i = spec.lines.size(); i-- > 0;) {
    const auto& line = spec.lines[i];
    const std::string label = truncate_label(line.label, max_chars);
    x -= static_cast<double>(label.size()) * kCharWidth + 24;
    items = "<g class=\"c" + std::to_string(line.color) + "\"><title>" + html_escape(line.label) +
            "</title><line class=\"swatch\" x1=\"" + num(x) + "\" x2=\"" + num(x + 14) + "\" y1=\"" + num(G::top - 10) +
            "\" y2=\"" + num(G::top - 10) + "\"/><text x=\"" + num(x + 18) + "\" y=\"" + num(G::top - 6) + "\">" +
            html_escape(label) + "</text></g>" + items;
  }
  o += "<g class=\"legend\">" + items + "</g>";
}

}  // namespace

std::string render_chart(const ChartSpec& spec) {
  const std::vector<RunRef> no_runs;
  const std::vector<RunRef>& runs = spec.runs != nullptr ? *spec.runs : no_runs;
  const Frame frame = value_axis(spec, runs.size());

  std::string o;
  o.reserve(2048 + 16 * runs.size() * spec.lines.size());
  o += "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + num(G::width) + " " +
       num(G::height) + "\" role=\"img\"";
  if (!spec.aria_label.empty()) o += " aria-label=\"" + html_escape(spec.aria_label) + "\"";
  if (spec.hover_index >= 0) o += " data-chart=\"" + std::to_string(spec.hover_index) + "\"";
  o += ">";
  draw_value_axis(o, spec, frame);
  draw_time_axis(o, runs, frame);
  draw_data(o, spec, frame);
  draw_markers(o, spec, frame);
  draw_legend(o, spec);
  if (spec.hover_index >= 0) {  // the page's script moves the cursor line over this rectangle
    o += "<line class=\"cursor\" x1=\"0\" x2=\"0\" y1=\"" + num(G::top) + "\" y2=\"" + num(G::top + kPlotH) +
         "\" visibility=\"hidden\"/><rect class=\"hover\" x=\"" + num(G::left) + "\" y=\"" + num(G::top) +
         "\" width=\"" + num(kPlotW) + "\" height=\"" + num(kPlotH) + "\"/>";
  }
  draw_notes(o, spec, frame);  // above the hover rectangle, so a note's own text shows on hover
  o += "</svg>";
  return o;
}

}  // namespace gpuperf::reports
