// SVG line charts for the HTML report: axes with "nice" ticks, the unit, a legend, optional quartile bands,
// change-point markers with <title> tooltips, segment levels and a reference line. The x axis is a machine's
// run order, labelled with run dates. Every string that reaches the SVG is escaped here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reports/report_model.hpp"

namespace gpuperf::reports {

struct ChartLine {
  std::string label;  // legend text; the legend is drawn when a chart has two lines or more
  int color = 0;      // palette index 0..3 (CSS classes c0..c3)
  std::vector<std::pair<std::size_t, double>> points;  // (run index, value in the chart's unit), run order
  std::vector<std::pair<double, double>> band;         // optional (q1, q3) per point
};

struct ChartMarker {
  std::size_t run = 0;
  bool regression = true;  // red; false: an improvement, green
  std::string title;       // tooltip text
};

struct ChartNote {  // a team's annotation (RunNote): a dotted rule and a dot under the plot, its text on hover
  std::size_t run = 0;
  std::string title;
};

struct ChartLevel {  // a horizontal level over runs [from, to]: the segments between change points
  std::size_t from = 0, to = 0;
  double value = 0;
};

// 4%: twice compare's 2% duration floor, so a change below the floor stays inside half the chart's height.
constexpr double kMinRelativeSpan = 0.04;

struct ChartSpec {
  std::string unit;                           // metric unit of every line ("ns", "%", "count", "bytes", "" for a ratio)
  const std::vector<RunRef>* runs = nullptr;  // the x axis
  std::vector<ChartLine> lines;
  std::vector<ChartMarker> markers;
  std::vector<ChartNote> notes;
  std::vector<ChartLevel> levels;
  std::optional<double> reference;  // a dashed horizontal line, e.g. ratio 1
  // The value axis spans at least this fraction of the data's level (its largest magnitude), centred on the
  // data: run-to-run jitter of a few tenths of a percent then reads as noise, and a step's size can be read
  // from the axis, instead of every chart zooming to fill its height.
  double min_relative_span = kMinRelativeSpan;
  int hover_index = -1;    // index into the page's hover data (data-chart attribute); -1: none
  std::string aria_label;  // what the chart shows, for screen readers
};

// The viewBox geometry shared with the page's hover script.
struct ChartGeometry {
  static constexpr double width = 480, height = 228;
  static constexpr double left = 62, right = 14, top = 20, bottom = 40;
  static constexpr double plot_left() { return left; }
  static constexpr double plot_right() { return width - right; }
};

// <svg class="chart" ...>...</svg>
std::string render_chart(const ChartSpec& spec);

// Ticks for the value axis: a round step (1, 2 or 5 times a power of ten) covering [lo, hi]. render_chart
// calls it in the unit the axis shows (MB, µs), so the labels are round numbers of that unit.
struct AxisTicks {
  double lo = 0, hi = 1, step = 1;
  std::vector<double> values;
};
AxisTicks nice_ticks(double lo, double hi, int target = 5);

// The value range a chart shows for data in [lo, hi]: widened around its middle to at least
// `min_relative_span` x max(|lo|, |hi|), and kept on the data's side of 0 (and of 100 for a percentage
// within 0..100) when the widening would cross it.
std::pair<double, double> value_domain(double lo, double hi, double min_relative_span, bool percent);

// Run indices that get an x tick label (at most `max_ticks`, first and last included).
std::vector<std::size_t> x_tick_runs(std::size_t run_count, std::size_t max_ticks = 6);

}  // namespace gpuperf::reports
