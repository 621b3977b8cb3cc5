#pragma once

#include <cstdint>
#include <memory>

#include "kernels/benchmark.hpp"

namespace gpuperf::testing {

enum class Bug { none = 0, skips_last = 1, off_by_one = 2, one_element_off = 3 };

// A float copy of n elements with the given bug (Bug::none: a correct copy, the control).
std::unique_ptr<Workload> make_buggy_copy(Bug bug, unsigned n, std::uint64_t seed);

}  // namespace gpuperf::testing
