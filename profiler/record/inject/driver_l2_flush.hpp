// The injected library's L2 flush before a profiled launch, loaded as PTX through the driver (the library needs no
// CUDA runtime of its own). It empties L2 as the collector does (FlushMethod::write_discard,
// profiler/gpu/l2_flush.cu) in two launches of one kernel, the launch boundary the barrier between them:
//  1. write every 128-byte line of a buffer twice the L2's size (write-allocation evicts every line in L2, so the
//     program's dirty lines are written back now, before the profiled launch);
//  2. from sm_80, drop the buffer's lines from L2 without writing them back (discard.global.L2); on Turing, which
//     has no discard, read a second buffer of the same size, so the lines step 1 left dirty are written back now
//     and L2 holds only clean lines, which the profiled launch evicts without writing anything back.
// Until 2026-11-29 one kernel wrote and discarded each line in turn, so each discarded line's place took the next
// line written and the program's lines stayed: on an H200 a kernel reading 8 MiB its predecessor had just written
// read 0 bytes of DRAM where Nsight Compute (--cache-control all) reads 8 MiB (bench/record/l2_state_gpu.sh).
// Until 2026-12-07 the PTX targeted sm_80 alone, and a Turing GPU could not load it: no counters at all there.
#pragma once

#include <cuda.h>

namespace gpuperf::record::inject {

// The flush kernel's entry name (left out of the record file: inject_metrics.hpp's is_own_kernel).
extern const char* const kFlushKernelName;

// The flush for a GPU of compute capability `cc_major`.minor: the PTX to load and whether its second step discards
// (sm_80 and later) or reads the second half of the buffer (Turing).
struct DriverFlushCode {
  const char* ptx = nullptr;
  bool discards = true;
};
DriverFlushCode driver_flush_code(int cc_major);

// The bytes of device memory the flush needs for an L2 of `l2_bytes`: twice the L2, and as much again where it
// cannot discard.
unsigned long long driver_flush_bytes(unsigned long long l2_bytes, bool discards);

// Enqueues both steps on the null stream: `flush` loaded from driver_flush_code's PTX, `buffer` of
// driver_flush_bytes(l2_bytes, discards). Returns the first failure's result.
CUresult enqueue_driver_flush(CUfunction flush, CUdeviceptr buffer, unsigned long long l2_bytes, bool discards);

}  // namespace gpuperf::record::inject
