// GPU probes for the collector's GPU tests.
#pragma once

#include <memory>

#include "kernels/benchmark.hpp"

namespace gpuperf::testing {

// x[i] += 1 on `n` floats starting at 0: not idempotent.
std::unique_ptr<Workload> make_inplace_workload(unsigned n);
// x[0] of such a workload: how many launches really happened.
float inplace_first_value(const Workload& w);

// A CUDA device is present and the driver works.
bool gpu_available();

}  // namespace gpuperf::testing
