// `gpuperf record --metrics`: hardware metrics of the first launches of each kernel identity (symbol, grid,
// block, NVTX path), within a budget of profiled launches per process, collected inside the
// recorded program by the injection library (CUPTI Range Profiler, auto range + kernel replay: CUPTI saves
// and restores the memory the kernel writes, so the program's results stay correct), with L2 emptied before
// each profiled launch as the collector does. Writes "C <perfworks names...>" once and
// "M <correlation> <values...>" per profiled launch (profiler/record/recorder/record_file.hpp).
#pragma once

#include <cupti.h>

namespace gpuperf::record::inject {

// Reads GPUPERF_RECORD_METRICS (comma-separated Perfworks names), GPUPERF_RECORD_PROFILE_LAUNCHES (first N
// launches of each identity), GPUPERF_RECORD_PROFILE_BUDGET (profiled launches per process at most; 0: no
// limit) and GPUPERF_RECORD_CUPTI_MODULE (gpuperf's CUPTI back end); loads the back end
// and enables the launch callbacks on `subscriber`. False (and an X line) when profiling is impossible;
// tracing goes on either way. Does nothing and returns true without GPUPERF_RECORD_METRICS.
bool init_metrics(CUpti_SubscriberHandle subscriber);

// The launch API callbacks (runtime and driver domains).
void on_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* data);

// Ends the range profiler's session kept enabled since the last profiled launch (at the process's exit, before
// the last flush); with GPUPERF_RECORD_PROFILE_TRACE=1 prints how sessions began and ended.
void end_metrics_session();

// Ends the range profiler's kept session before PM sampling starts (inject_pm.hpp): the two never hold the
// counters at once. Nothing without --metrics.
void end_session_for_pm_sampling();

// Whether a kernel record is the library's own L2 flush (left out of the record file).
bool is_own_kernel(const char* name);

}  // namespace gpuperf::record::inject
