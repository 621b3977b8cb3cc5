#include "reports/chart_zoom.hpp"

namespace gpuperf::reports {

bool wants_zoom(std::size_t run_count, std::size_t newest_change) {
  return run_count > kZoomAfterRuns && newest_change + kZoomRuns >= run_count;
}

ChartSpec zoom_spec(const ChartSpec& full, const std::vector<RunRef>& recent, std::size_t first) {
  ChartSpec z;
  z.unit = full.unit;
  z.runs = &recent;
  z.reference = full.reference;
  z.min_relative_span = full.min_relative_span;
  z.aria_label = full.aria_label + ", newest " + std::to_string(recent.size()) + " runs";
  for (const ChartLine& line : full.lines) {
    ChartLine l;
    l.label = line.label;
    l.color = line.color;
    for (std::size_t i = 0; i < line.points.size(); ++i) {
      if (line.points[i].first < first) continue;
      l.points.emplace_back(line.points[i].first - first, line.points[i].second);
      if (i < line.band.size()) l.band.push_back(line.band[i]);
    }
    if (l.band.size() != l.points.size()) l.band.clear();
    z.lines.push_back(std::move(l));
  }
  for (const ChartMarker& m : full.markers) {
    if (m.run >= first) z.markers.push_back({m.run - first, m.regression, m.title});
  }
  for (const ChartNote& n : full.notes) {
    if (n.run >= first) z.notes.push_back({n.run - first, n.title});
  }
  for (const ChartLevel& level : full.levels) {
    if (level.to < first) continue;
    z.levels.push_back({level.from < first ? 0 : level.from - first, level.to - first, level.value});
  }
  return z;
}

}  // namespace gpuperf::reports
