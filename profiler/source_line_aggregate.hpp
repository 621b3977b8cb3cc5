// From one instance's SASS-metric records to its source lines (core/source_lines.hpp): per instruction,
// the counters of each configured metric; per (function, file, line), their sums divided by the launches.
// Plain C++ over the back end's records, tested without a GPU (tests/collector/test_source_lines.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "profiler/cupti/sass_backend.hpp"

namespace gpuperf {

// What each SASS metric of the pass counts. Names from CUPTI's list for GH100 (CUPTI 13.0,
// cuptiSassMetricsGetMetrics): a chip without one of them gets the others, and the message says which is
// missing.
enum class SassCounter : std::size_t {
  inst_executed,            // warp instructions
  thread_inst_executed,     // thread instructions
  op_global_ld,             // global load warp instructions: tells a load's sectors from a store's
  op_global_st,             // global store warp instructions
  sectors_global,           // global sectors accessed by the instruction
  sectors_global_ideal,     // ... if its threads' bytes were packed
  wavefronts_shared,        // shared-memory wavefronts
  wavefronts_shared_ideal,  // ... without bank conflicts
  sectors_local,            // local-memory sectors (register spills, local arrays)
  count_
};
inline constexpr std::size_t kSassCounters = static_cast<std::size_t>(SassCounter::count_);
// CUPTI's name of each counter, in SassCounter order.
const std::array<const char*, kSassCounters>& sass_counter_names();

// Reads a source file's lines once per file (the line's text for SourceLine::text).
class SourceTextCache {
 public:
  // `read`: the file's lines, or nothing when it cannot be read. Default: the file system. `shown`: how a
  // path is named (shown_path); default: relative to its checkout. The injection library of `record` reads no
  // text and keeps the line table's paths as they are (the recorder reads and names them after the program).
  explicit SourceTextCache(std::function<std::vector<std::string>(const std::string& path)> read = {},
                           std::function<std::string(const std::string& path)> shown = {});
  // Line `line` (1-based) of `path`, whitespace trimmed; "" when the file or the line is not there.
  std::string line(const std::string& path, std::int64_t line);
  // How a run names `path`: relative to the source root the binary was built from (core/source_roots.hpp),
  // whether or not the file is here; else relative to the git checkout that holds it when the file is here
  // ("kernels/matmul.cu", the same on every machine that builds the same tree); else as given.
  std::string shown_path(const std::string& path);
  // The files (as shown) whose text was asked for and found neither here nor in the binary, each once: the
  // ones not returned by an earlier call.
  std::vector<std::string> take_missing();

 private:
  std::function<std::vector<std::string>(const std::string&)> read_;
  std::function<std::string(const std::string&)> shown_of_;
  std::map<std::string, std::vector<std::string>> files_;
  std::map<std::string, std::string> shown_;
  std::set<std::string> missing_, said_;
};

using LocateFn = std::function<cupti::SassLocation(std::uint32_t crc, const std::string& function, std::uint32_t pc)>;

// The source lines of one instance from the records of its `launches` launches. `counter_of[m]` is the
// counter of configured metric m (values of metrics not listed are ignored). Instructions without a line
// (no -lineinfo, or a module loaded before tracking began) are kept per function and SASS offset, and the
// message says so once per function. Lines whose counters are all zero are left out. Lines come in
// source order: function, file, line (then SASS offset). status ok; launches and lines_total set.
SourceLines aggregate_source_lines(const std::vector<cupti::SassValue>& values,
                                   const std::vector<SassCounter>& counter_of, std::int64_t launches,
                                   const LocateFn& locate, SourceTextCache& texts);

}  // namespace gpuperf
