// The one L2 flush of gpuperf: the timing loop's before each cold sample (profiler/gpu/cuda_timing_device.cu)
// and the collector's before each profiled pass (profiler/metric_device.cu). A buffer of twice the L2 size
// goes through L2 by one of three methods, and the flush kernels live here.
#pragma once

#include <cstddef>

#include "kernels/benchmark.hpp"  // StreamHandle

namespace gpuperf::gpu {

// How the L2 is emptied.
enum class FlushMethod {
  // Read the buffer (a kernel that loads it all): the L2 then holds only clean lines of that buffer, and
  // whatever the previous sample left dirty was written back during the flush, not during the next
  // measurement. The timing loop's default.
  read,
  // Write the buffer (cudaMemsetAsync, as NVBench does): the L2 is left full of dirty lines that the
  // measured kernel must write back as it evicts them.
  write,
  // Write the buffer, then drop each of its lines from L2 without writing it back (PTX discard.global.L2,
  // sm_80+): L2 is left empty, as Nsight Compute's cache control leaves it. The collector's. On Turing (no
  // discard) the second step reads another buffer of the same size: L2 is left full of clean lines.
  write_discard,
};

class L2Flush {
 public:
  // For the current device, whose L2 holds `l2_bytes` (0: no flush at all) and which has `sm_count` SMs.
  // Allocates nothing yet: see allocate().
  L2Flush(std::size_t l2_bytes, int sm_count);
  ~L2Flush();
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;

  // Allocates the buffer now and fills it (a read flush then reads written memory); else the first flush
  // allocates it.
  void allocate();
  // Enqueues a flush on `stream`. write_discard first reads one word at each of the `n_warm` device addresses
  // in the device array `warm` (when not null; cooperative() only), so their translations are in the TLBs.
  void flush(StreamHandle stream, FlushMethod method, const int* const* warm = nullptr, std::size_t n_warm = 0);
  // How many kernels one flush of `method` launches (CUPTI's auto ranges count them).
  std::size_t kernels(FlushMethod method) const;
  // Whether write_discard is one cooperative kernel (with a grid-wide barrier between its steps) rather than
  // two; only then can it read `warm` first.
  bool cooperative() const { return cooperative_blocks_ > 0; }
  // Whether write_discard's second step discards (code built for sm_80 or later) or reads a second buffer
  // (Turing's code).
  bool discards() const { return discards_; }
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_ = 0;  // twice the L2, a multiple of 128 bytes (the discard's line)
  int sm_count_ = 1;
  int cooperative_blocks_ = 0;  // the one-kernel write_discard's grid; 0: two kernels
  bool discards_ = true;
  void* buffer_ = nullptr;
  void* evict_ = nullptr;  // write_discard's second buffer where the code cannot discard, else null
  int* sink_ = nullptr;    // the never-taken store that keeps the loads of a read alive
  int write_value_ = 0;    // the byte of the last write flush
};

}  // namespace gpuperf::gpu
