// The files `gpuperf record` and its injection library (profiler/record/inject/inject.cpp) exchange: one text file
// per recorded process, `<dir>/process-<pid>.txt`, one record a line, the kind first. Each kind is written and read
// by one codec (profiler/record/record_codec.hpp):
//
//   P <pid> <ppid> <unix time ns> <argv0>     the process started recording (first line)
//   N <name id> <kernel name as CUPTI gives it, mangled>
//   R <range id> <NVTX range path: "outer/inner">
//   K <device> <context> <stream> <correlation> <start ns> <end ns> <gx> <gy> <gz> <bx> <by> <bz> <name id> [<graph>]
//                                              (graph: the CUDA graph whose launch ran it; absent outside graphs)
//   E <correlation> <range id>                 the launch with this correlation ran inside that range path
//   C <perfworks name>...                      the hardware metrics profiled (`record --metrics`), in order
//   M <correlation> <value>...                 one profiled launch's values, in the C line's order
//   H <group> <index>...                       --metrics split into groups (numbered 0, 1, ...): the C line's
//                                              metrics (by 0-based index) that group holds
//   Q <correlation> <group> <value>...         one profiled launch's values of one group, in its H line's order;
//                                              an identity's launches together make its counters
//   D <count>                                  activity records CUPTI dropped (buffers full)
//   F <unix time ns>                           the records above reached the file then (after every buffer)
//   B <budget>                                 --metrics: the budget of profiled launches was spent
//   T <budget ms>                              --metrics: the time budget of profiling was spent
//   U communication                            --metrics: no launch was range-profiled from then on: the process
//                                              launched a communication kernel (kernel replay could lose what a
//                                              peer wrote; --profile-replay). Files of an older library may say
//                                              `U distributed`: a rank that was not range-profiled at all
//   Y [<index>...]                             --metrics: the process is a rank of a distributed job, replayed one
//                                              pass a launch (nothing restored), the metrics in one-pass groups
//                                              (H lines); the C line's metrics listed (by 0-based index) need more
//                                              passes and were not collected
//   W <correlation> <ns>                       --metrics: the wall time profiling that launch took (its call)
//   A <rank> <local rank> <world size>         the process's RANK, LOCAL_RANK, WORLD_SIZE ("-": unset), when
//                                              any is set (after P)
//   G <correlation> <ms> <identity>            --metrics: the watchdog gave that profiled launch up after ms
//                                              (identity: mangled name, grid, block, NVTX range id); nothing
//                                              was profiled after it, and M and W lines of that correlation
//                                              (written if the launch returned late) are dropped
//   O <work> <thread> <calls> <items> <ns>     the library's own time, written at the end (before Z): <work>
//                                              nvtx (callbacks; items: pushes), write (buffers written;
//                                              items: records), request (buffers handed to CUPTI; items: 0),
//                                              external (CUPTI's push/pop of the external id inside the
//                                              NVTX callbacks, apart from nvtx: CUPTI's cost, not ours);
//                                              <thread> program (the program's threads), cupti (CUPTI's
//                                              worker thread) or gpuperf (the library's flush thread)
//   X <message>                                the injection library could not record (e.g. another profiler)
//   V <correlation> <ms>                       --metrics: that launch was not profiled, a collective still running
//                                              after waiting ms
//   e <mangled name>                           --metrics: a kernel the launch selection kept out of profiling
//   x <correlation> <group> <why>              --metrics: that launch's counters were lost, its group given back
//   c <fingerprint> <mangled name>             a loaded module's function and its code fingerprint
//                                              (cubin/code_fingerprint.hpp), at the module's load
//   l <path>                                   a CUDA library or framework the process had loaded (at its end,
//                                              before Z; loaded_libraries.hpp says which)
//   S, L, I, J                                 --metrics: source lines of instrumented launches (source_records.hpp)
//   p <perfworks name>...                      --pm-sampling: the metrics sampled, in order (pm_sampling.hpp)
//   w <device> <interval ns> <start ns> <stop ns> <samples> <invalid> <overflow 0|1> <image full 0|1>
//     <setup ns> <decode ns> <evaluate ns> <launches>
//                                              --pm-sampling: the window (its Start and Stop on the activity
//                                              records' clock), what was decoded and the host time it took
//   s <start ns> <end ns> <value>...           --pm-sampling: one evaluated sample, in the p line's order
//   Z                                          the process ended and everything was flushed (last line)
//
// A reader keeps O lines of a <work> or <thread> it does not know and ignores their fields past the fifth, so
// the library may account more than this reader knows of.
//
// A K line whose end is 0 is a kernel that had not finished when its record was flushed (forced, at the end
// of a program killed while that kernel ran, e.g. one that hangs): a launch without a duration, `unfinished`.
// One with start and end 0 is that too, unless a W line names its correlation (kernel replay hands a
// profiled launch back without timestamps) or a G line does.
//
// A file without Z belongs to a process that died before flushing (a signal, _exit): what it holds was
// seen, the rest was lost. The library writes its buffers every second or so (inject.cpp), so such a file
// holds the launches up to its last F line. Plain C++ (no CUDA): the parser and the aggregation are unit-tested with
// hand-written files.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/errors.hpp"
#include "profiler/record/pm_records.hpp"
#include "profiler/record/record_codec.hpp"
#include "profiler/record/recorder/source_records.hpp"

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
  std::string_view name;       // mangled
  std::string_view nvtx_path;  // "" outside any NVTX range
  std::uint32_t pid = 0;
  std::uint32_t graph = 0;               // the CUDA graph whose launch ran it; 0 outside graphs
  std::vector<double> metrics;           // a profiled launch's values, in ProcessRecord::metric_names order; else empty
  std::uint64_t profile_ns = 0;          // a profiled launch: the wall time its profiling took (W line); else 0
  bool unfinished = false;               // it had not finished when its record was flushed (end 0): no duration
  const SourceLaunch* source = nullptr;  // an instrumented launch (I line): its source lines; in ProcessRecord::source

  // A launch that collected one metric group (Q line): which of `metrics` it has (the others are NaN, absent);
  // empty for a launch with every metric (M line) or none.
  std::vector<bool> metrics_present;

  LaunchPm pm;  // --pm-sampling: its part in the window (pm_attribution.hpp)
};

struct ProcessRecord {
  std::uint32_t pid = 0, ppid = 0;
  std::string argv0;
  std::uint64_t started_ns = 0;              // unix time the process began recording (P line)
  std::uint64_t last_flush_ns = 0;           // unix time of its last F line; 0: none
  std::uint64_t profile_budget_spent = 0;    // --metrics: the budget of a B line, 0 when not spent
  std::uint64_t profile_time_budget_ms = 0;  // --metrics: the time budget of a T line, 0 when not spent
  // --metrics: the U line: "distributed" (a rank of a distributed job) or "communication" (after the process's
  // first communication kernel): launches from then on were not range-profiled; "" without one
  std::string unreplayed;
  // --metrics: the Y line: profiled one pass a launch (a rank of a distributed job); the C line's metrics that
  // were not collected so, one flag each (empty without a Y line)
  bool one_pass = false;
  std::vector<bool> not_collected;
  std::optional<int> rank, local_rank, world_size;  // the A line (RANK, LOCAL_RANK, WORLD_SIZE)
  std::vector<GivenUp> given_up;                    // G lines (at most one from this library)
  std::uint64_t communication_busy = 0;             // V lines: launches not profiled, a collective still running
  std::uint64_t communication_wait_ms = 0;          // the bound they waited (their ms)
  std::vector<OwnWork> own_work;                    // O lines (none from a killed process or an older library)
  bool complete = false;                            // ended with Z
  std::uint64_t dropped = 0;                        // CUPTI's dropped records
  std::vector<std::string> errors;                  // X lines
  // e lines: the kernels (mangled) whose launches --kernel-regex, --nvtx-include, --launch-skip or --launch-count
  // kept out of profiling in the program (launch_selection.hpp), each named at its first such launch
  std::vector<std::string> excluded;
  // x lines: profiled launches whose counters CUPTI failed to give, each one's group given back to a later launch
  // of its identity; the first's reason
  std::uint64_t lost_counters = 0;
  std::string lost_first;
  std::map<std::string, std::string> fingerprints;  // c lines: mangled name -> code fingerprint (first kept)
  std::vector<std::string> libraries;               // l lines: paths of the loaded libraries of interest
  std::vector<std::string> metric_names;            // the C line
  std::vector<LaunchRecord> launches;               // in file order
  std::shared_ptr<const RecordStrings> strings;     // what the launches' name and nvtx_path view
  std::shared_ptr<const SourceRecords> source;      // S, L, I, J lines; what the launches' source points into

  // H lines: per metric group, indices into metric_names
  std::vector<std::vector<std::size_t>> metric_groups;

  ProcessPm pm;  // p, w and s lines (--pm-sampling); its samples attributed to the launches by finish()
};

// Reads one process file as it grows: feed() takes the bytes written since the last call, cut anywhere (a
// line may arrive in pieces), finish() returns the record. Throws InputError naming the file and line for
// a malformed line. A last line without '\n' when finish() is called is the half-written line of a killed
// process, not malformed: it is dropped (the process has no Z line, so it is marked incomplete).
class ProcessParser {
 public:
  explicit ProcessParser(std::string what);
  void feed(std::string_view bytes);
  ProcessRecord finish();

 private:
  void parse_line(std::string_view line);
  void parse_kernel_line(std::string_view line);
  void parse_metrics_line(char kind, std::string_view line);
  void parse_process_line(char kind, std::string_view line);
  void parse_outcome_line(char kind, std::string_view line);
  // The fields of `line` (record_codec.hpp); throws bad() when it is malformed.
  template <typename Line>
  Line decoded(std::string_view line);
  InputError bad(std::string_view line, const char* why) const;  // "FILE:LINE: why: 'the line'"

  std::string what_;
  std::string partial_;  // the bytes after the last '\n' fed
  int lineno_ = 0;
  ProcessRecord p_;
  std::shared_ptr<RecordStrings> strings_ = std::make_shared<RecordStrings>();
  std::vector<std::uint64_t> name_ids_;  // of p_.launches, resolved by finish()
  std::unordered_map<std::uint32_t, std::uint64_t> range_of_correlation_;
  std::unordered_map<std::uint32_t, std::vector<double>> metrics_of_correlation_;

  std::unordered_map<std::uint32_t, std::vector<bool>> present_of_correlation_;  // Q lines' groups
  std::unordered_map<std::uint32_t, std::uint64_t> profile_ns_of_correlation_;
  SourceRecordParser source_;
};

// Parses a whole process file's text (tests); `what` names it in errors.
ProcessRecord parse_process_text(const std::string& text, const std::string& what);

// Follows the process-*.txt files of a record folder while the recorded program runs: poll() reads what
// each file has gained since (new files included), so that little is left to read once the program ends;
// finish() reads the rest and returns every process in pid order. EnvironmentError when the folder or a
// file cannot be read.
class RecordDirReader {
 public:
  explicit RecordDirReader(std::string dir);
  ~RecordDirReader();
  RecordDirReader(const RecordDirReader&) = delete;
  RecordDirReader& operator=(const RecordDirReader&) = delete;
  void poll();
  std::vector<ProcessRecord> finish();

 private:
  struct File;
  std::string dir_;
  std::map<std::string, std::unique_ptr<File>> files_;  // by file name
  std::vector<char> buffer_ = std::vector<char>(1 << 20);
};

// Every process-*.txt in `dir`, in pid order (a RecordDirReader finished at once).
std::vector<ProcessRecord> read_record_dir(const std::string& dir);

// An NVTX range path as it names a kernel instance: the same in every run of the same program. XLA (JAX,
// TensorFlow) names its ranges "XlaCompileBackend:#module=jit_step,program_id=1989#", where program_id counts
// the programs the process compiled so far and differs between two runs of one program: such `program_id=N`
// fields are removed ("XlaCompileBackend:#module=jit_step#"). Anything else is kept as it is.
std::string stable_nvtx_path(std::string_view path);

}  // namespace gpuperf::record
