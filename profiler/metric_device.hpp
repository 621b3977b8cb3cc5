// What the collector needs from the CUDA runtime, behind an interface so the collector's logic is tested
// with a fake: the device's CUDA context (for CUPTI), an L2 flush between passes, synchronisation, NVTX
// ranges and the kernel's static attributes. The real implementation (metric_device.cpp) uses cudart only;
// the driver is reached through cudaGetDriverEntryPointByVersion, never by linking libcuda.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "kernels/benchmark.hpp"
#include "profiler/metric_eval.hpp"

namespace gpuperf {

// Addresses whose translations a flush warms (DeviceOps::make_warm_list), held on the device.
class WarmList {
 public:
  virtual ~WarmList() = default;
};

class DeviceOps {
 public:
  virtual ~DeviceOps() = default;
  // The current CUcontext of the device (the primary context), as void*.
  virtual void* cu_context() = 0;
  virtual std::string device_name() = 0;
  // Empties L2 (writes a buffer of twice its size, so dirty lines are written back now, not inside the next
  // range, then discards the buffer's lines) so the next launch starts from DRAM with an empty L2, as after
  // ncu's --cache-control all. Asynchronous.
  virtual void flush_l2(StreamHandle stream) = 0;
  // How many kernels one flush_l2() launches (0 when it launches none): CUPTI's auto ranges count them.
  virtual std::size_t flush_l2_kernels() const = 0;
  // A word of every 64 KiB of `memory`, for flush_l2(stream, list) to read before it empties L2, or null
  // when the flush cannot (the two-kernel flush, nothing to read, no device memory for the list). A profiled launch
  // after that flush finds its address translations warm, as after a warm launch of the kernel, and in CUPTI's auto
  // ranges it costs no range of its own (the collector's speed-of-light session).
  virtual std::unique_ptr<WarmList> make_warm_list(const std::vector<DeviceRange>& memory) {
    (void)memory;
    return nullptr;
  }
  // flush_l2, reading `warm` (from this object's make_warm_list) first: one kernel, as flush_l2_kernels().
  virtual void flush_l2(StreamHandle stream, const WarmList& warm) {
    (void)warm;
    flush_l2(stream);
  }
  // Waits for `stream`; throws gpuperf::Error naming the CUDA error when the work on it failed.
  virtual void synchronize(StreamHandle stream) = 0;
  // NVTX push/pop so Nsight tools show the instance's name around its profiled launches.
  virtual void nvtx_push(const std::string& name) = 0;
  virtual void nvtx_pop() = 0;
  // cudaFuncGetAttributes + the occupancy API for `kernel` launched with `shape`. Throws gpuperf::Error.
  virtual StaticAttributes static_attributes(const void* kernel, const LaunchShape& shape) = 0;
};

// The CUDA runtime implementation for device `device`: selects it and creates its primary context.
// Throws EnvironmentError when there is no usable GPU (no driver, no device, a bad ordinal).
std::unique_ptr<DeviceOps> make_cuda_device_ops(int device);

}  // namespace gpuperf
