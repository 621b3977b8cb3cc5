// An owning device allocation of `count` elements of T, with the copies workloads need.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "kernels/benchmark.hpp"
#include "kernels/cuda_check.hpp"

namespace gpuperf {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) GPUPERF_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
    AllocationLog::note(data_, bytes());
  }
  ~DeviceBuffer() {
    if (data_ == nullptr) return;
    AllocationLog::forget(data_);
    cudaFree(data_);  // no throw from a destructor; a failure here is not actionable
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      if (data_ != nullptr) {
        AllocationLog::forget(data_);
        cudaFree(data_);
      }
      data_ = std::exchange(o.data_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  // Synchronous upload of the whole buffer (setup only, never inside timing).
  void upload(const std::vector<T>& host) {
    if (host.size() != count_) throw InputError("DeviceBuffer::upload: host vector size does not match");
    GPUPERF_CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  // Synchronises `stream`, then copies the whole buffer back.
  std::vector<T> download(StreamHandle stream) const {
    GPUPERF_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<T> host(count_);
    GPUPERF_CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
  // Every byte 0xFF: a NaN for float and double, -1 for signed integers. Asynchronous on `stream`.
  void poison(StreamHandle stream) { GPUPERF_CUDA_CHECK(cudaMemsetAsync(data_, 0xFF, bytes(), stream)); }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace gpuperf
