// The summary of a recording, in its own writer: the sentences `record` prints and stores (Recording's fields,
// recorder.hpp) about what reached the record files, what was profiled and why not, what the source lines and
// the library's own work cost. They read the record files' processes and the stored runs; they decide nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "profiler/record/recorder/aggregate.hpp"
#include "profiler/record/recorder/record_file.hpp"

namespace gpuperf::record {

// What the record files say went wrong: unreadable records, processes that did not flush, dropped records.
std::vector<std::string> record_warnings(const std::vector<ProcessRecord>& processes);

// How much of a program's recording reached the record files, for a program that did not flush at its end
// (SIGKILL, _exit): the library writes its records every second or so, so what it kept is known.
struct Flushed {
  bool complete = true;        // every process ended with its last flush
  std::uint64_t launches = 0;  // launches in the record files
  double last_flush_s = -1;    // seconds from the first process's start to the last flush; < 0: none
};
Flushed flushed_of(const std::vector<ProcessRecord>& processes);

// Why nothing was recorded from a program that left no launch in its record files ("it launched no
// kernel", "it was killed before anything was flushed", ...); `processes` = 0 when no process recorded.
std::string nothing_recorded_reason(std::size_t processes, const Flushed& flushed, int exit_status,
                                    const std::string& inject_library);

// The note an incomplete run carries (each result's message) and `record` prints: "incomplete: the program
// ended with signal 9 before its last flush; 4512 launches kept, flushed up to 11.80 s after it started".
std::string incomplete_message(const Flushed& flushed, int exit_status);

// With --metrics: which identities have counters and why the others have none, one sentence: "counters for
// 33 of 35 identities (the first 3 launches of each); 2 left unprofiled: 2 ran only in CUDA graph replays".
// Communication kernels are one such reason ("2 are communication kernels, never profiled"), and so is the
// watchdog ("profiling was given up after 30.00 s in launch 812 of gemm 8x1x1 128x1x1 (process 4242): nothing
// was profiled after it").
// With profiling wall times (W lines) it adds how long profiling held the program in its launch calls and
// the identity that took longest: "; profiling took 12.40 s in 96 launches, the slowest identity
// gemm_kernel [step/fwd] 256x1x1 128x1x1: 3 launches, 1.32 s"; with a T line, that the time budget was spent.
// With `source_lines` (the launches were instrumented for them), ranks and partial identities: that
// --no-source-lines lets a rank keep its profiler session (launch_policy.hpp, keep_sessions_by_default).
std::string describe_profiled(const KernelTotals& totals, const std::vector<ProcessRecord>& processes,
                              std::uint64_t per_identity, bool source_lines = false);

// With --metrics: which metrics the partial identities lack and why, grouped by the metrics lacked, one clause
// appended to describe_profiled's sentence: "; partial identities lack sm_throughput, memory_throughput (60:
// gemm [step] 8x1x1 128x1x1, ...): each profiled launch collects ..."; "" when none is partial.
std::string describe_lacking(const std::vector<Run>& runs);

// With --metrics and a selection: the kernels whose launches the selection kept out of profiling inside the
// program (e lines), one clause: "; the selection (...) kept launches of 2 kernel(s) out of profiling, traced
// only: vectorized_elementwise_kernel, reduce_kernel"; "" when none.
std::string describe_excluded(const std::vector<ProcessRecord>& processes);

// The injection library's own time inside the program (its O lines, summed over processes), one sentence:
// "inside the program: 0.412 ms on its threads (0.400 ms in 600 NVTX callbacks, 0.012 ms in 3 buffer
// requests); 1.100 ms on other threads (1.100 ms writing 7,217 records on CUPTI's thread)". Empty when no
// process wrote O lines (killed, or an older library). bench/record/record_overhead.py reads it.
std::string describe_own_work(const std::vector<ProcessRecord>& processes);

// With --metrics and source lines: how many identities have lines, why the others have none, and what the
// instrumented launches cost the program (their I lines), one sentence: "lines for 3 of 4 identities; 1
// without: each of its 3 launches was range-profiled ...; 3 instrumented launches took 0.21 s, 70.1 ms a
// launch (median), the slowest 120.3 ms".
std::string describe_source_lines(const std::vector<Run>& runs, const KernelTotals& totals,
                                  const std::vector<ProcessRecord>& processes);

}  // namespace gpuperf::record
