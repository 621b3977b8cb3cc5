// The source-line pass: CUPTI's SASS metrics (profiler/cupti/sass_backend.hpp) for a group of verified,
// live instances, in a pass of its own after their timing and their Range Profiler sessions. Kernels are
// patched (instrumented) while it runs, about 10x slower per launch on an H100, so nothing is timed or
// range-profiled while it is enabled.
//
// Per group: enable (lazy patching: each kernel is patched at its first launch), then per instance its
// `launches` launches, a wait, and a flush (the counts have no launch id: a flush after each instance keeps
// them apart), then disable. The counters are counts, not samples, and do not depend on the cache state, so
// there is no L2 flush and no warm launch. Plain C++ above the seam: tested with a fake back end.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "profiler/live_groups.hpp"

namespace gpuperf {

namespace cupti {
class SassMetricsBackend;
}
class DeviceOps;

struct SourceLineOptions {
  int device = 0;
  std::int64_t launches = 1;  // instrumented launches per instance; counters are divided by them
};

class SourceLineCollector {
 public:
  virtual ~SourceLineCollector() = default;
  // One SourceLines per target, in order. Never throws: a failure is a SourceLines with status failed (or
  // unsupported) and the reason in its message.
  virtual std::vector<SourceLines> collect_batch(const std::vector<ProfileTarget>& targets, StreamHandle stream) = 0;
  // Non-empty when no instance can get source lines in this process (then every SourceLines is
  // unsupported with this reason).
  virtual std::string unavailable() const = 0;
};

// Over explicit parts (tests pass a fake back end and fake device operations). `backend` null: every
// result's source lines are unsupported with `unavailable` as the reason.
std::unique_ptr<SourceLineCollector> make_source_line_collector(std::unique_ptr<cupti::SassMetricsBackend> backend,
                                                                std::unique_ptr<DeviceOps> device,
                                                                const SourceLineOptions& options,
                                                                std::string unavailable = "");

// The CUPTI one for GPU `options.device`: starts following module loads (call it before the kernels'
// first launch, or their lines are per SASS offset) and opens the SASS back end. Never throws for CUPTI's
// reasons (libcupti missing, an unsupported chip, another tool holding CUPTI): unavailable() says why.
// Throws EnvironmentError when there is no usable GPU.
std::unique_ptr<SourceLineCollector> make_cupti_source_line_collector(const SourceLineOptions& options);

}  // namespace gpuperf
