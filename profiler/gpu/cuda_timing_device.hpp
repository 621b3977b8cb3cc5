// The CUDA side of the timing loop: L2 flush buffer, SM clock probe, stream synchronisation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "profiler/sample_loop.hpp"

namespace gpuperf::gpu {

// How the L2 is emptied before a cold sample.
enum class FlushMethod {
  // Read a buffer of twice the L2 size (a kernel that loads it all): the L2 then holds only clean lines of
  // that buffer, and whatever the previous sample left dirty was written back during the flush, not
  // during the next measurement. The default.
  read,
  // Write the buffer (cudaMemsetAsync, as NVBench does): the L2 is left full of dirty lines that the
  // measured kernel must write back as it evicts them.
  write,
};

class CudaTimingDevice : public TimingDevice {
 public:
  // Allocates the flush buffer (twice the L2 of the current device) and the clock slots.
  explicit CudaTimingDevice(std::size_t clock_slots = 256, FlushMethod flush = FlushMethod::read);
  ~CudaTimingDevice() override;
  CudaTimingDevice(const CudaTimingDevice&) = delete;
  CudaTimingDevice& operator=(const CudaTimingDevice&) = delete;

  void flush_l2(StreamHandle stream) override;
  void record_clock(StreamHandle stream, std::size_t slot) override;
  std::size_t clock_slots() const override { return slots_; }
  void synchronize(StreamHandle stream) override;
  std::vector<double> read_clocks_mhz(std::size_t count) override;
  double reference_clock_mhz() const override { return reference_mhz_; }

  std::size_t flush_bytes() const { return flush_bytes_; }

 private:
  void* flush_ = nullptr;
  std::size_t flush_bytes_ = 0;
  FlushMethod flush_method_;
  int flush_value_ = 0;
  int* flush_sink_ = nullptr;  // keeps the read flush's loads alive
  unsigned flush_blocks_ = 0;
  unsigned long long* clocks_ = nullptr;  // per slot: SM cycles, globaltimer ns
  std::size_t slots_ = 0;
  double reference_mhz_ = 0;
};

}  // namespace gpuperf::gpu
