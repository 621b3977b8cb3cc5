#include "reports/analysis/not_enough_data.hpp"

namespace gpuperf::analysis {

std::vector<ShortSeries> short_series(const std::vector<db::Series>& series, const DetectOptions& options,
                                      const std::string& branch, const RunCommand& command_of) {
  std::vector<ShortSeries> out;
  const std::size_t needed = 2 * options.min_segment;
  for (const db::Series& s : series) {
    std::size_t usable = 0;
    const db::SeriesPoint* newest = nullptr;
    for (const db::SeriesPoint& p : s.points) {
      if (p.excluded || p.status != Status::ok) continue;
      ++usable;
      newest = &p;
    }
    if (usable == 0 || usable >= needed) continue;
    ShortSeries row;
    row.machine = s.key.fingerprint;
    row.instance = s.key.instance;
    row.metric = s.key.metric;
    row.runs = usable;
    row.needed = needed;
    const std::string command = command_of ? command_of(newest->run_id) : std::string();
    row.next_command = command.empty() ? repeat_command(s.key.instance, branch, needed - usable)
                                       : repeat_record_command(command, branch, needed - usable);
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace gpuperf::analysis
