#pragma once

#include <cstdint>
#include <memory>

#include "kernels/benchmark.hpp"

namespace gpuperf::testing {

enum class Bug { none = 0, skips_last = 1, off_by_one = 2, one_element_off = 3 };

// A float copy of n elements with the given bug (Bug::none: a correct copy, the control).
std::unique_ptr<Workload> make_buggy_copy(Bug bug, unsigned n, std::uint64_t seed);

// A correct copy launched in blocks of 2048 threads, more than any GPU allows (1024).
std::unique_ptr<Workload> make_wide_copy(unsigned n, std::uint64_t seed);

// A correct copy whose kernel is built for sm_75 alone, without PTX (turing_only_kernel.cu): every later chip has
// no image it can run.
std::unique_ptr<Workload> make_turing_only_copy(unsigned n, std::uint64_t seed);

}  // namespace gpuperf::testing
