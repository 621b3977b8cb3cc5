// The HTML report's figures: trend charts per instance and metric, and the three charts of a variant pair,
// plus the hover data the page's script reads. Internal to the HTML writer.
#pragma once

#include <cstddef>
#include <string>

#include "reports/report_model.hpp"
#include "reports/svg_chart.hpp"

namespace gpuperf::reports::html {

// Collects, per chart, the exact values its lines have at each run, as one JSON document:
//   {"machines": [{"runs": [[commit, date, branch], ...]}], "charts": [{"m": 0, "u": "ns", "l": [[label, [v|null,
//   ...]], ...]}]}
class HoverData {
 public:
  // Registers `spec` (drawn for machine `machine`) and returns its hover index.
  int add(std::size_t machine, const ChartSpec& spec);
  std::string json(const ReportModel& model) const;
  std::size_t size() const { return static_cast<std::size_t>(count_); }

 private:
  std::string charts_;
  int count_ = 0;
};

// <figure> with the chart of one series, its change points, levels and quartile band.
std::string trend_figure(const MachineReport& m, std::size_t machine_index, const InstanceTrends& inst,
                         const TrendSeries& series, HoverData& hover);

// The duration, key-metric and ratio figures of a variant pair.
std::string pair_figures(const MachineReport& m, std::size_t machine_index, const VariantPair& pair, HoverData& hover);

// Tooltip text of a change point: change, levels, commits, date, hints.
std::string change_title(const analysis::ChangePoint& cp);
// A note's hover text: "Note on night 2026-11-20: driver 590 installed\nana, 2026-11-20 09:00".
std::string note_title(const RunNote& n);

// "m0-i3": the anchor of an instance's trends.
std::string instance_anchor(std::size_t machine_index, std::size_t instance_index);

}  // namespace gpuperf::reports::html
