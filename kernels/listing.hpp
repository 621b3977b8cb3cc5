// What `gpuperf list` prints: every selected instance with its declared bytes and FLOPs per launch and
// its baseline, as a text table or as JSON. Needs no GPU.
#pragma once

#include <string>
#include <vector>

#include "kernels/benchmark.hpp"

namespace gpuperf {

std::string format_instance_table(const std::vector<InstanceRef>& instances);

// {"instances": [{"name": "matmul/tiled", "params": {"n": 1024, "tile": 16},
//   "display_name": "matmul/tiled[n=1024,tile=16]", "baseline": "matmul/naive", "bytes": 12582912,
//   "flops": 2147483648, "in_default_suite": true, "description": "..."}]}
std::string format_instance_json(const std::vector<InstanceRef>& instances);

// "12.6 MB", "2.15 G": a count with a decimal SI prefix and three significant digits.
std::string format_si(double value, const std::string& unit);

}  // namespace gpuperf
