#include "reports/analysis/recent_samples.hpp"

#include <algorithm>
#include <unordered_map>

namespace gpuperf::analysis {

std::size_t recent_runs_for_samples(const DetectOptions& options) {
  if (!options.unconfirmed) return 0;
  // At least the default's window: a smaller --min-segment must not test its tails on fewer samples.
  const std::size_t m = std::max(options.min_segment, DetectOptions{}.min_segment);
  return 2 * ((2 * m - 1) + options.tail.sample_runs);
}

void attach_recent_samples(const db::Store& store, db::HistoryFilter filter, std::vector<db::Series>& series,
                           std::size_t runs) {
  if (runs == 0 || series.empty()) return;
  filter.last_runs = filter.last_runs ? std::min(*filter.last_runs, runs) : runs;
  filter.with_samples = true;
  std::vector<db::Series> recent = store.history(filter);
  std::unordered_map<std::int64_t, db::SeriesPoint*> by_result;
  for (db::Series& s : recent) {
    for (db::SeriesPoint& p : s.points) by_result.emplace(p.result_id, &p);
  }
  for (db::Series& s : series) {
    for (db::SeriesPoint& p : s.points) {
      const auto it = by_result.find(p.result_id);
      if (it == by_result.end()) continue;
      p.samples = std::move(it->second->samples);
      p.sm_clock_mhz = std::move(it->second->sm_clock_mhz);
    }
  }
}

}  // namespace gpuperf::analysis
