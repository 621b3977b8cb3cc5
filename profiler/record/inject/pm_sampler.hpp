// `record --pm-sampling` inside the program: CUPTI's PM sampling of one device over one window, as a probe
// measured it on an H200 before this was built (docs/pm-sampling.md): nothing is decoded while sampling (the hardware
// buffer holds the window), Stop comes right after the window's launches finish, then ONE DecodeData into one
// counter-data image sized to the window (a DecodeData that stops on a full image drops the rest of the hardware
// buffer, so the image is never re-initialized and decoded again), then evaluation, sample by sample, out of the
// decode. The first sample is dropped (its start lies seconds before Start); an overflow (OUT_OF_MEMORY from
// DecodeData in KEEP_OLDEST mode) ends the session.
#pragma once

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "profiler/record/pm_records.hpp"

namespace gpuperf::record::inject {

class PmSampler {
 public:
  // Chooses the metrics for the device's chip (pm_sampling.hpp, choose_pm_metrics), enables PM sampling on it and
  // sets the configuration: a GPU-time trigger every `interval_ns`, a hardware buffer of `buffer_bytes` that keeps
  // the oldest samples. "" or why not (the caller writes an X line).
  std::string setup(int device, std::uint64_t interval_ns, std::uint64_t buffer_bytes);
  const std::vector<std::string>& metrics() const { return metrics_; }

  // Start and Stop, each with its timestamp on CUPTI's clock (the activity records'). "" or why not.
  std::string start();
  std::string stop();
  std::uint64_t start_ns() const { return start_ns_; }
  std::uint64_t stop_ns() const { return stop_ns_; }

  // After stop(): one decode into an image for the window's samples (its length over the interval, x1.15, at most
  // `max_samples`), then every sample but the first evaluated and handed to `emit`. Fills `w`'s counts, flags and
  // host times. "" or why decoding failed.
  std::string decode(std::uint64_t max_samples, const std::function<void(const PmSample&)>& emit, PmWindowRecord& w);

  // Disables PM sampling and frees the host object (the hardware buffer goes with it).
  void disable();

 private:
  std::size_t image_size(std::uint64_t samples, std::string* error);
  int device_ = 0;
  std::uint64_t interval_ns_ = 0;
  std::vector<std::string> metrics_;
  std::vector<const char*> names_;  // metrics_' c_str(), for CUPTI
  CUpti_Profiler_Host_Object* host_ = nullptr;
  CUpti_PmSampling_Object* pm_ = nullptr;
  std::vector<std::uint8_t> config_;
  std::uint64_t start_ns_ = 0, stop_ns_ = 0;
};

}  // namespace gpuperf::record::inject
