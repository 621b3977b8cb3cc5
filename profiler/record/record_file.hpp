// The files `gpuperf record` and its injection library (profiler/record/inject.cpp) exchange: one text file
// per recorded process, `<dir>/process-<pid>.txt`, one record a line, the kind first:
//
//   P <pid> <ppid> <unix time ns> <argv0>     the process started recording (first line)
//   N <name id> <kernel name as CUPTI gives it, mangled>
//   R <range id> <NVTX range path: "outer/inner">
//   K <device> <context> <stream> <correlation> <start ns> <end ns> <gx> <gy> <gz> <bx> <by> <bz> <name id>
//   E <correlation> <range id>                 the launch with this correlation ran inside that range path
//   C <perfworks name>...                      the hardware metrics profiled (`record --metrics`), in order
//   M <correlation> <value>...                 one profiled launch's values, in the C line's order
//   D <count>                                  activity records CUPTI dropped (buffers full)
//   X <message>                                the injection library could not record (e.g. another profiler)
//   Z                                          the process ended and everything was flushed (last line)
//
// A file without Z belongs to a process that died before flushing (a signal, _exit): what it holds was
// seen, the rest was lost. Plain C++ (no CUDA): the parser and the aggregation are unit-tested with
// hand-written files.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gpuperf::record {

// The kernel names and NVTX paths one process file defines. Launches view them: the strings are shared by
// every copy of the ProcessRecord, so a launch stays valid as long as one of them lives.
struct RecordStrings {
  std::map<std::uint64_t, std::string> names;   // N lines
  std::map<std::uint64_t, std::string> ranges;  // R lines
};

struct LaunchRecord {
  std::uint32_t device = 0;
  std::uint32_t context = 0;
  std::uint32_t stream = 0;
  std::uint32_t correlation = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t grid[3] = {1, 1, 1};
  std::uint32_t block[3] = {1, 1, 1};
  std::string_view name;        // mangled
  std::string_view nvtx_path;   // "" outside any NVTX range
  std::uint32_t pid = 0;
  std::vector<double> metrics;  // a profiled launch's values, in ProcessRecord::metric_names order; else empty
};

struct ProcessRecord {
  std::uint32_t pid = 0, ppid = 0;
  std::string argv0;
  bool complete = false;       // ended with Z
  std::uint64_t dropped = 0;   // CUPTI's dropped records
  std::vector<std::string> errors;  // X lines
  std::vector<std::string> metric_names;  // the C line
  std::vector<LaunchRecord> launches;  // in file order
  std::shared_ptr<const RecordStrings> strings;  // what the launches' name and nvtx_path view
};

// Parses one process file. Throws InputError naming the file and line for a malformed line (a truncated
// last line of a killed process is not malformed: it is dropped and the process is marked incomplete).
ProcessRecord parse_process_file(const std::string& path);
// The same from text (tests); `what` names it in errors.
ProcessRecord parse_process_text(const std::string& text, const std::string& what);

// Every process-*.txt in `dir`, in pid order.
std::vector<ProcessRecord> read_record_dir(const std::string& dir);

}  // namespace gpuperf::record
