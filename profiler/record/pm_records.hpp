// What a process file says of `record --pm-sampling` (record_file.hpp's p, w and s lines) and what the recorder
// makes of it (pm_attribution.hpp). Plain types, no CUDA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuperf::record {

// One evaluated sample: [start, end) on the activity records' clock, a value per p-line metric.
struct PmSample {
  std::uint64_t start_ns = 0, end_ns = 0;
  std::vector<double> values;
};

// The w line: the window and what decoding it cost.
struct PmWindowRecord {
  std::uint32_t device = 0;
  std::uint64_t interval_ns = 0;
  std::uint64_t start_ns = 0, stop_ns = 0;  // cuptiGetTimestamp at Start and at Stop
  std::uint64_t samples = 0;                // decoded (the first dropped), with invalid ones
  std::uint64_t invalid = 0;                // whose evaluation failed or gave a value that is not finite
  bool overflow = false;                    // the hardware buffer overflowed: samples after it were lost
  bool image_full = false;                  // the window held more samples than the image: the rest were lost
  std::uint64_t setup_ns = 0, decode_ns = 0, evaluate_ns = 0;  // host time: before Start; after Stop
  std::uint64_t launches = 0;                                  // kernel launches the process made inside it
};

// How the samples fell against the launches (pm_attribution.hpp).
struct PmCoverage {
  std::uint64_t attributed = 0;  // wholly inside one launch that ran alone: counted for it
  std::uint64_t straddling = 0;  // over a launch's edge: dropped
  std::uint64_t concurrent = 0;  // inside a launch that overlapped another (device-wide counters): dropped
  std::uint64_t outside = 0;     // no launch ran
  std::uint64_t lost = 0;        // gaps in the sample stream, in intervals
};

// A launch's part in the window: `state` none (outside it), alone, or concurrent (it overlapped another launch
// on the device, so its samples are not its own); its attributed samples and their mean per metric.
struct LaunchPm {
  enum State : std::uint8_t { none = 0, alone = 1, concurrent = 2 };
  State state = none;
  std::uint32_t samples = 0;
  std::vector<double> means;
};

struct ProcessPm {
  std::vector<std::string> metrics;  // the p line (Perfworks names)
  std::optional<PmWindowRecord> window;
  std::vector<PmSample> samples;  // the s lines (dropped once attributed)
  PmCoverage coverage;
};

}  // namespace gpuperf::record
