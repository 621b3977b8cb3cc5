// The clock the CUPTI activity layer and `record`'s injection library time their own work with: CLOCK_MONOTONIC
// through the vDSO (tens of ns a read, no system call), free of wall-clock steps. Plain C, so it is safe in the
// injection library's callbacks and in a signal handler's wait.
#pragma once

#include <cstdint>
#include <ctime>

namespace gpuperf {

inline std::uint64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(t.tv_nsec);
}

}  // namespace gpuperf
