// `gpuperf record --metrics`: per-source-line counters of the recorded program's kernels (CUPTI's SASS
// metrics, profiler/cupti/sass_backend.hpp), the same counters `run`'s source-line pass collects
// (profiler/source_line_pass.hpp), written as S, L, I and J lines (profiler/record/recorder/source_records.hpp).
//
// Which launch: one per kernel identity (symbol, grid, block, NVTX path) and process, the first launch after
// the identity's range-profiled ones (inject_metrics.cpp decides, within the same --profile-budget and
// --profile-seconds). Not the first launch: the range-profiled launches stay the identity's first ones, as
// `--metrics` documents, so turning lines on moves no hardware counter; and SASS counts are counts of
// executed instructions, the same for any launch of the same code and shape (they do not depend on caches).
// An identity launched no more often than --profile-launches gets no lines, and its Result says so.
//
// How: the launch holds the gate exclusively, as a range-profiled one does. Before its launch call: wait for
// the context (nothing of the program's is pending, so only this launch runs patched), enable (lazy patching:
// the kernel is instrumented at this launch). After it: wait, flush, disable, and write the lines. Each
// launch is alone between an enable and a flush, as CUPTI's counts carry no launch id. The configuration
// is set at the first enable and kept (sass_backend_cupti.cpp: set before a Range Profiler session it gave
// no records; set again after an unset it failed). Module loads are followed from InitializeInjection on
// (CUPTI's resource callback on the library's own subscriber), so each kernel's cubin, and its line
// table, is kept: nvcc -lineinfo and Triton kernels map to their .cu and .py lines, others are counted per
// function and SASS offset, and the S line says so once per function.
//
// Never instrumented: communication kernels (core/kernel_kind.hpp; they wait for peers), launches captured
// into a graph, cooperative and graph launches. No SASS metrics on this chip, or no back end: an "S 0
// unsupported" line, and everything else is recorded as before.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <string>

namespace gpuperf::cupti {
class SassBackendFactory;
}

namespace gpuperf::record::inject {

// Whether `record` asked for source lines: the record configuration's source_lines (record_config.hpp; read by
// init_lines, and by the session rules of inject_metrics.cpp before it).
bool source_lines_asked();

// With source lines asked: follows module loads on `subscriber` and keeps `sass` (the CUPTI module's SASS back
// end; null when it has none). Writes an S line (process 0): ok, or unsupported and why.
void init_lines(CUpti_SubscriberHandle subscriber, const cupti::SassBackendFactory* sass);

// The resource callbacks (a module loaded: keep its cubin).
void on_resource(CUpti_CallbackId cbid, const void* data);

// Whether the launch may be its identity's instrumented one: lines on, the identity not yet instrumented in
// this process, not a communication kernel, its device not given up. The caller checks the budgets.
bool lines_wanted(const CUpti_CallbackData* data, const std::string& identity);

// The launch's API entry, with the gate held exclusively: marks the identity done, waits for the context
// and enables SASS metrics. False when it could not (said in an S line; the launch runs uninstrumented).
bool lines_begin(const CUpti_CallbackData* data, const std::string& identity);

// The launch's API exit on the same thread: waits, flushes, disables, writes its J, L, S and I lines.
// Returns the wall time the instrumented launch held the program (ns, from lines_begin), or 0 when this
// thread began none or its counters are read at the next launch (GPUPERF_RECORD_LINES_FLUSH, the .cpp).
std::uint64_t lines_end();

// Whether an instrumented launch's counters wait to be read; then the next launch's entry, holding the gate
// exclusively, calls lines_settle(), which reads them and returns the wall time as lines_end() does.
bool lines_pending();
std::uint64_t lines_settle();

}  // namespace gpuperf::record::inject
