// The injection library's periodic flush never waits on the profiler (inject.cpp's flush thread,
// inject_metrics.cpp's profiled launches).
//
// cuptiActivityFlushAll, called while a profiled launch's kernel replay ran, blocked inside CUPTI for as long
// as the replay did: when a replay hung (a DDP program's NCCL kernel, replayed while its peer had left the
// collective), the flush thread hung with it, nothing more reached the record file, and a fatal signal's last
// flush, which that thread serves, never came. So the two exclude each other without either waiting on
// CUPTI: a profiled launch marks itself in progress (and waits, at most a second, for a flush already inside
// CUPTI to return), and a periodic flush that finds one in progress skips that period, touching nothing.
// The flags are sequentially consistent atomics: of a flush and a profiled launch that begin at once, at
// least one sees the other.
//
// Plain C++ over the ActivityApi wrapper; unit-tested with a fake CUPTI (tests/record/test_flush_guard.cpp).
#pragma once

#include <cstdint>

#include "profiler/cupti/activity_api.hpp"

namespace gpuperf::record {

// A profiled launch begins: from now on periodic flushes skip. Waits for a flush already inside CUPTI, at
// most `wait_ms`; returns false if it was still there (the launch goes on all the same).
bool begin_profiled_launch(unsigned wait_ms = 1000);
// It ended (returned, failed, or was given up and returned late).
void end_profiled_launch();
// Whether a profiled launch is in progress now.
bool profiled_launch_in_progress();

enum class PeriodicFlush { flushed, skipped, refused };

// One periodic flush (not forced: only buffers whose records are complete): skipped, without calling CUPTI,
// while a profiled launch is in progress; refused when CUPTI refused.
PeriodicFlush periodic_flush(cupti::ActivityApi& api);

// Periods skipped so far (the library reports them with its own time).
std::uint64_t periodic_flushes_skipped();

}  // namespace gpuperf::record
