// The table `gpuperf run` prints when a run is finished: one row per instance with its median duration,
// achieved bandwidth and arithmetic rate, sample count and status; the reasons of failed rows below it.
// Plain text from the result model only (measuring and printing never meet).
#pragma once

#include <string>

#include "core/result.hpp"

namespace gpuperf {

std::string format_run_summary(const Run& run);

// "850 ns", "52.31 us", "1.234 ms", "2.500 s": three or four significant digits in a fitting unit.
std::string format_duration_ns(double ns);

}  // namespace gpuperf
