// The timing loop: warm-up, then batches of tagged launches until the stopping rule says enough.
//
// Cold mode, per sample:  flush L2 -> [tag] launch [untag] -> read SM clock
// Hot mode, per batch:    [tag] launch [untag] x hot_batch -> read SM clock (one reading for the batch)
//
// Every launch is tagged with its own external id and wrapped in an NVTX range; its duration is the GPU
// start..end of the kernels carrying that tag (CUPTI activity records), so the flush and the clock probe
// never count. The host only enqueues and, once per batch, synchronises and collects: no host clock is
// ever read around a launch (the wall clock only bounds the time spent). Plain C++ behind two seams,
// ActivitySource and TimingDevice, so it is unit-tested with fakes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "profiler/cupti/activity_records.hpp"
#include "profiler/timing.hpp"

namespace gpuperf {

// The GPU operations the loop needs besides the launch itself (CUDA implementation: profiler/gpu/).
class TimingDevice {
 public:
  virtual ~TimingDevice() = default;
  // Enqueue a write of a buffer twice the size of L2 on `stream`, evicting the benchmark's data.
  virtual void flush_l2(StreamHandle stream) = 0;
  // Enqueue a tiny kernel that measures the SM clock into `slot` (0 <= slot < clock_slots()).
  virtual void record_clock(StreamHandle stream, std::size_t slot) = 0;
  virtual std::size_t clock_slots() const = 0;
  // Waits for `stream`; throws on a CUDA error (a faulting kernel shows up here).
  virtual void synchronize(StreamHandle stream) = 0;
  // After synchronize: the readings of slots [0, count), in MHz (0 where none could be taken).
  virtual std::vector<double> read_clocks_mhz(std::size_t count) = 0;
  // The clock throttling is measured against (the device's peak SM clock), 0 when unknown.
  virtual double reference_clock_mhz() const = 0;
};

class SampleLoop : public SampleTimer {
 public:
  SampleLoop(cupti::ActivitySource& activity, TimingDevice& device) : activity_(activity), device_(device) {}
  TimingResult time(Workload& workload, StreamHandle stream, const std::string& range_name,
                    const TimingOptions& options) override;

 private:
  // Launches once, tagged with `id` and inside the NVTX range.
  void tagged_launch(Workload& workload, StreamHandle stream, const std::string& range_name, std::uint64_t id);

  cupti::ActivitySource& activity_;
  TimingDevice& device_;
  std::uint64_t next_id_ = 1;  // external ids are unique across the process's instances
};

// Launches in the next warm-up chunk after `warm` launches in `elapsed_s` wall seconds, the last chunk
// `chunk` (plain, unit-tested): what reaches both the minimum count and, at the rate so far, the minimum
// time; at least 1 and at most twice `chunk` (1024 at most).
std::size_t next_warmup_chunk(std::size_t chunk, std::size_t warm, double elapsed_s, const TimingOptions& options);

// Samples to take in the next batch given `taken` so far (plain, unit-tested): the first batch brings the
// count to the minimum, later ones add about a quarter of what is there (8..64), never past the maximum
// or the clock slots.
std::size_t next_batch_size(std::size_t taken, const TimingOptions& options, std::size_t clock_slots);

}  // namespace gpuperf
