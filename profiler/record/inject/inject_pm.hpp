// `record --pm-sampling` in the injection library (docs/pm-sampling.md): one window a process (pm_sampling.hpp's
// PmWindow, fed the launch callbacks and NVTX pushes and pops), PM-sampled by PmSampler (pm_sampler.hpp). At the
// window's end its context is synchronized (its launches finish inside it), sampling stops, and the samples are
// decoded, evaluated and written (p, w and s lines, record_file.hpp) on the thread that closed it: the program
// pauses there once, for the host time the w line gives, and no launch of the window is slowed. No launch inside
// the window is range-profiled or instrumented (inject_metrics.cpp asks pm_window_open()), and a range profiler
// session kept from before is ended first: the two never hold the counters at once.
#pragma once

#include <cupti.h>

#include <cstddef>
#include <string>

namespace gpuperf::record::inject {

// With --pm-sampling, enables the launch callbacks on `subscriber` (inject_metrics may have already). False (and
// an X line) when they cannot be.
bool init_pm(CUpti_SubscriberHandle subscriber);

// A launch API callback (entry and exit), before (entry) and after (exit) inject_metrics' own.
void pm_on_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* data);

// An NVTX push of `name` leaving the calling thread `depth` ranges deep, and a pop from `depth`.
void pm_on_nvtx_push(const std::string& name, std::size_t depth);
void pm_on_nvtx_pop(std::size_t depth);

// Whether the window is open now: launches are then neither range-profiled nor instrumented.
bool pm_window_open();

// At the process's normal exit (before the last flush): closes a window still open.
void end_pm_window();

}  // namespace gpuperf::record::inject
