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

namespace gpuperf::analysis {

// `text` with every ECMAScript regex metacharacter escaped: matched literally inside a --filter.
std::string regex_escape(std::string_view text);

// '^matmul/naive\[n=1024\]$': an instance as an anchored --filter, its regex metacharacters escaped.
std::string exact_filter(const BenchmarkInstance& instance);

// "gpuperf run --filter '^...$' --branch main --repeat 3": N more runs of one instance.
std::string repeat_command(const BenchmarkInstance& instance, const std::string& branch, std::size_t runs);

// "for i in $(seq 3); do gpuperf record --branch main -- python3 train.py; done": N more recordings of a
// program, `command` as Run::command stores it (already quoted for a shell).
std::string repeat_record_command(const std::string& command, const std::string& branch, std::size_t runs);

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
