// The CUDA side of the timing loop: the L2 flush (l2_flush.hpp), SM clock probe, stream synchronisation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "profiler/gpu/l2_flush.hpp"
#include "profiler/sample_loop.hpp"

namespace gpuperf::gpu {

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

  std::size_t flush_bytes() const { return flush_->bytes(); }

 private:
  std::unique_ptr<L2Flush> flush_;
  FlushMethod flush_method_;
  unsigned long long* clocks_ = nullptr;  // per slot: SM cycles, globaltimer ns
  std::size_t slots_ = 0;
  double reference_mhz_ = 0;
};

}  // namespace gpuperf::gpu
