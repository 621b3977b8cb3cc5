// A zoom on a trend chart's newest runs. After a year of nightlies a chart draws ~365 runs in ~400 pixels, so
// tonight's step is the last pixel of a long line; the zoom draws the newest runs alone, beside the full
// chart, for the series whose newest change point lies among them. Internal to the HTML writer.
#pragma once

#include <cstddef>
#include <vector>

#include "reports/svg_chart.hpp"

namespace gpuperf::reports {

// Runs a zoom shows, and how many runs a machine needs before its charts get one (fewer: each run is several
// pixels wide already).
constexpr std::size_t kZoomRuns = 30;
constexpr std::size_t kZoomAfterRuns = 3 * kZoomRuns;

// True when a chart over `run_count` runs whose newest change point is at run `newest_change` gets a zoom.
bool wants_zoom(std::size_t run_count, std::size_t newest_change);

// `full` over `recent`, the runs from `first` on: points, bands, markers and levels before `first` are left
// out, the rest re-indexed from 0. No hover data (its indices are the machine's runs).
ChartSpec zoom_spec(const ChartSpec& full, const std::vector<RunRef>& recent, std::size_t first);

}  // namespace gpuperf::reports
