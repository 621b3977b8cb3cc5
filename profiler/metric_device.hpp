// What the collector needs from the CUDA runtime, behind an interface so the collector's logic is tested
// with a fake: the device's CUDA context (for CUPTI), an L2 flush between passes, synchronisation, NVTX
// ranges and the kernel's static attributes. The real implementation (metric_device.cpp) uses cudart only;
// the driver is reached through cudaGetDriverEntryPointByVersion, never by linking libcuda.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "kernels/benchmark.hpp"
#include "profiler/metric_eval.hpp"

namespace gpuperf {

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
