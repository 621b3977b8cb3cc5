// `gpuperf record --metrics`: hardware metrics of the first launches of each kernel identity (symbol, grid,
// block, NVTX path), within a budget of profiled launches per process, collected inside the
// recorded program by the injection library (CUPTI Range Profiler, auto range + kernel replay: CUPTI saves
// and restores the memory the kernel writes, so the program's results stay correct), with L2 emptied before
// each profiled launch as the collector does. Writes a C line (the Perfworks names) once and an M line (a
// launch's values) per profiled launch, through the record file's codec (profiler/record/record_codec.hpp).
#pragma once

#include <cupti.h>

namespace gpuperf::record::inject {

// Reads the record configuration the recorder wrote (record_config.hpp: its metrics and TriageCompute
// alternative, profile_launches per identity, profile_budget per process, the time budget and watchdog, the launch
// selection, the replay, and cupti_module, gpuperf's CUPTI back end); loads the back end and enables the launch
// callbacks on `subscriber`. False (and an X line) when profiling is impossible; tracing goes on either way. Does
// nothing and returns true when the configuration asks for no metrics.
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
