// Kernel activity records as the timing loop sees them, the seam in front of the CUPTI Activity API, and
// the matching of records to the benchmark's own launches. Plain C++: no CUDA or CUPTI header, so the
// matching and the timing loop are unit-tested with hand-built records.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpuperf::cupti {

// One kernel execution (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), GPU timestamps in ns.
struct KernelRecord {
  std::uint32_t correlation_id = 0;  // ties the record to the launch API call
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint32_t stream_id = 0;
  std::string name;                   // mangled kernel name
  std::uint32_t grid[3] = {0, 0, 0};  // launch shape; 0 where the record did not say
  std::uint32_t block[3] = {0, 0, 0};
  std::uint64_t dynamic_smem = 0;  // bytes of dynamic shared memory
};

// The external id that was pushed while the API call with `correlation_id` was made
// (CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION).
struct ExternalCorrelation {
  std::uint64_t external_id = 0;
  std::uint32_t correlation_id = 0;
};

struct ActivityBatch {
  std::vector<KernelRecord> kernels;
  std::vector<ExternalCorrelation> correlations;
  std::uint64_t dropped = 0;  // records CUPTI had to drop (buffers full)
};

// What the timing loop needs of an activity tracer. The CUPTI implementation is CuptiActivitySource
// (activity_tracer.hpp); tests hand-build records.
class ActivitySource {
 public:
  virtual ~ActivitySource() = default;
  // Starts recording kernel and external-correlation activity (idempotent).
  virtual void enable() = 0;
  // Stops recording; records still buffered are discarded at the next collect().
  virtual void disable() = 0;
  // Every launch made on this thread until the matching pop is tagged with `external_id`.
  virtual void push_external_id(std::uint64_t external_id) = 0;
  virtual void pop_external_id() = 0;
  // All records completed since the last collect(); call after synchronising the stream.
  virtual ActivityBatch collect() = 0;
};

// Duration of each tagged launch: for every external id in `ids`, the span from the earliest start to
// the latest end of the kernels whose launch carried that id (a workload may launch more than one kernel
// per sample; the usual single kernel gives end - start). Kernels without a tag (the L2 flush, the clock
// probe) are ignored. Ids without any kernel record are absent from the map.
std::map<std::uint64_t, double> durations_by_external_id(const ActivityBatch& batch,
                                                         const std::vector<std::uint64_t>& ids);

// The kernels of one sample: those tagged with the first of `ids` that has any, in start order (a workload may
// launch several kernels per sample). Empty when none of the ids has a kernel record.
std::vector<KernelRecord> kernels_of_first_tag(const ActivityBatch& batch, const std::vector<std::uint64_t>& ids);

}  // namespace gpuperf::cupti
