// Where the data cannot judge a change at all, the verdict says "not enough data" and names the next step
// (docs/regressions.md, "Not enough data"): compare and check for a one-value row without enough earlier
// runs (compare.cpp), detect for a series shorter than the change-point test needs (short_series()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "db/store.hpp"
#include "reports/analysis/detect.hpp"
#include "reports/analysis/next_step.hpp"

namespace gpuperf::analysis {

// A series too short for detect's change-point test: fewer usable runs (ok, not excluded) than
// 2 * min_segment, so a step in it can be neither found nor ruled out.
struct ShortSeries {
  std::string machine;
  BenchmarkInstance instance;
  MetricInfo metric;
  std::size_t runs = 0, needed = 0;
  std::string next_command;                           // the command that adds the runs it lacks
  std::string after_command = ", then detect again";  // what to do after it
};

// The command line a run recorded (Run::command), empty for a benchmark run; looked up by run id.
using RunCommand = std::function<std::string(std::int64_t run_id)>;

// The short series of `series`, in their order; `branch` is the branch detect reads (for the next step). A
// recorded program's series (its newest run has a command, `command_of`) is settled by recording the program
// again, a benchmark's by `gpuperf run`.
std::vector<ShortSeries> short_series(const std::vector<db::Series>& series, const DetectOptions& options,
                                      const std::string& branch, const RunCommand& command_of);

}  // namespace gpuperf::analysis
