// `record --pm-sampling`: the samples of a process's window given to its launches (docs/pm-sampling.md). PM
// sampling counts device-wide, so a sample belongs to a launch only when it lies wholly inside it and that launch
// ran alone on the device; a sample over a launch's edge is dropped (the probe measured that overlap weighting
// agrees within 0.2 points), and a launch that overlapped another (two streams) is flagged concurrent and gets
// none. Sample and launch times are on one clock (the activity records'; FINDINGS.md's clock check).
// Plain C++, tested with made-up samples (tests/record/test_pm_sampling.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "profiler/record/pm_records.hpp"
#include "profiler/record/recorder/record_file.hpp"

namespace gpuperf::record {

// Reads a p, w or s line (the whole line, its kind `kind`) into `pm`; "" or why the line is malformed.
std::string parse_pm_line(char kind, std::string_view line, ProcessPm& pm);

// Sets each launch's `pm` from the process's samples and fills pm.coverage; drops the samples.
void attribute_pm(ProcessRecord& process);

// One identity's sampled values over its launches in a window.
struct IdentityPm {
  std::uint64_t launches = 0;                   // its launches inside a window
  std::uint64_t sampled = 0;                    // of them, those with a sample of their own
  std::uint64_t concurrent = 0;                 // of them, those that overlapped another launch
  std::vector<std::vector<double>> per_launch;  // per metric, each sampled launch's mean
};

// Adds a launch (one with a window state) to its identity's values; `metrics` is its process's p line.
void add_launch_pm(IdentityPm& acc, const LaunchRecord& launch, const std::vector<std::string>& metrics,
                   const std::vector<std::string>& order);

// The identity's measurements: pm_launches_in_window, pm_launches_sampled, pm_launches_concurrent, then per
// metric of `order` (Perfworks names) its stored name's measurement, one sample per sampled launch (its mean
// over the launch's samples; the summary gives the mean and spread over launches), skipped with the reason when
// no launch has a sample.
std::vector<Measurement> identity_pm_measurements(const IdentityPm& acc, const std::vector<std::string>& order,
                                                  std::uint64_t interval_ns);

// "PM sampling: window 64.4 ms at 1000 ns on GPU 0, 63,012 samples (0 lost), 118 of 120 launches with a sample
// (2 concurrent), decode + evaluate 7.49 s on the host (setup 1.30 s)"; "" without a window.
std::string describe_pm(const std::vector<ProcessRecord>& processes);

}  // namespace gpuperf::record
