// Source lines of a recorded program (`record --metrics`): the record-file lines the injection library's
// source-line part (inject_lines.hpp) writes, and how an identity's instrumented launches become its
// Result::source, exactly as `run`'s pass gives it (core/source_lines.hpp). Plain C++ (no CUDA): unit-tested
// with hand-written record files.
//
// Lines (record_file.hpp lists every kind):
//   S 0 ok                                   source lines are collected in this process
//   S 0 unsupported|failed <why>             ... are not (no SASS metrics on this chip, CUPTI busy, ...)
//   J <id> <text>                            a function name or a source path the L lines name by id
//   L <correlation> <function id> <file id> <line> <sass offset> <11 counters>
//                                            one source line of an instrumented launch (file id 0 and line 0
//                                            without line info: then the SASS offset is the key); the counters
//                                            in SourceLine's order, inst_executed ... local_sectors, per launch;
//                                            then, for code inlined from a helper, <call-site file id> <line>
//   S <correlation> ok|failed|unsupported <message>   how that launch's collection went (the message may be
//                                            empty; "f: no line info ...: per SASS offset", metrics the chip lacks)
//   I <correlation> <ns> [<device> <gx> <gy> <gz> <bx> <by> <bz> <range id> <function id>]
//                                            the launch was instrumented; its collection held the program <ns>;
//                                            with its identity when kernel tracing was paused for it (no K line)
//                                            (written last: L and S lines without their I line are a killed
//                                            process's half-written launch: failed, its lines dropped)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.hpp"

namespace gpuperf {
class SourceTextCache;
}

namespace gpuperf::record {

// An instrumented launch that no K line names (kernel tracing was paused for it): what its I line says.
struct LaunchIdentity {
  std::uint32_t device = 0;
  std::uint32_t grid[3] = {1, 1, 1};
  std::uint32_t block[3] = {1, 1, 1};
  std::uint64_t range = 0;  // its R id; 0 outside NVTX ranges
  std::string function;     // mangled, as CUPTI names the kernel
};

// One instrumented launch: its lines (file as the line table names it; text empty) and how it went.
struct SourceLaunch {
  std::optional<LaunchIdentity> identity;
  std::uint64_t ns = 0;  // wall time its collection held the program: sync, instrumented run, flush, disable
  Status status = Status::ok;
  std::string message;
  std::vector<SourceLine> lines;
};

// What one process file says of source lines.
struct SourceRecords {
  bool started = false;                            // an "S 0 ok" line
  Status unavailable_status = Status::ok;          // an "S 0 unsupported|failed" line: ...
  std::string unavailable;                         // ... and why ("" when none)
  std::map<std::uint32_t, SourceLaunch> launches;  // by correlation id (those without an I line: failed)
  std::size_t unfinished = 0;                      // launches without their I line (the process was killed)
};

// Reads a process file's S, L, I and J lines (ProcessParser hands them over).
class SourceRecordParser {
 public:
  // `line` is the whole line, kind first. Returns "" or what is malformed (the caller names file and line).
  std::string parse(std::string_view line);
  SourceRecords finish();

 private:
  SourceRecords out_;
  std::unordered_map<std::uint64_t, std::string> strings_;  // J lines
  std::map<std::uint32_t, SourceLaunch> pending_;           // L and S lines waiting for their I line
};

// Why an identity has no instrumented launch, for its Result::source message.
struct NoSourceLaunch {
  bool communication = false;  // a communication kernel (core/kernel_kind.hpp): never instrumented
  bool graph_only = false;     // every launch came from a CUDA graph
  bool all_profiled = false;   // every launch was range-profiled: none was left for the instrumented one
  std::uint64_t launches = 0;
};

// An identity's Result::source from its instrumented launches (any number, from any of its processes):
// lines summed per (function, file, line, SASS offset) and divided by the launches that gave them, paths
// shown and text read as `run` does (`texts`: relative to the checkout, read when the file is here).
// Without a launch: `unavailable` non-empty gives status unsupported (or `unavailable_status`) with it, else
// skipped with the reason `none` says.
SourceLines identity_source_lines(const std::vector<const SourceLaunch*>& launches, SourceTextCache& texts,
                                  Status unavailable_status, const std::string& unavailable,
                                  const NoSourceLaunch& none);

}  // namespace gpuperf::record
