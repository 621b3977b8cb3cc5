// `record --metrics`: CUDA's part of communication_wait.hpp (events after communication launches, polled
// before a profiled launch), for inject_metrics.cpp.
#pragma once

#include <cuda.h>

#include <cstdint>

namespace gpuperf::record::inject {

// Reads the configuration's communication_wait_ms (GPUPERF_RECORD_COMMUNICATION_WAIT_MS, a diagnostic variable
// that wins over it; default 10000). Once, from init_metrics.
void init_communication_wait();

// After a communication launch's call returned, on its thread (its context current): an event after it on
// `stream`, unless the stream is being captured into a graph (an event there would become a graph node).
void communication_launched(CUcontext context, CUstream stream);

// Before a profiled launch's synchronize: whether the communication kernels of `context` have finished,
// waiting for them at most the bound (polling). False: leave this launch unprofiled.
bool communication_idle(CUcontext context);

std::uint64_t communication_wait_ms();

}  // namespace gpuperf::record::inject
