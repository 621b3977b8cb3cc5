// The commands a "not enough data" verdict names as its next step (docs/regressions.md): more runs of one
// instance, or more recordings of a program. Plain text; used by not_enough_data (compare, check, detect) and by
// program_change (a recorded program's verdict), so it depends on nothing of the analysis.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace gpuperf::analysis {

// `text` with every ECMAScript regex metacharacter escaped: matched literally inside a --filter.
std::string regex_escape(std::string_view text);

// '^matmul/naive\[n=1024\]$': an instance as an anchored --filter, its regex metacharacters escaped.
std::string exact_filter(const BenchmarkInstance& instance);

// "gpuperf run --filter '^...$' --branch main --repeat 3": N more runs of one instance.
std::string repeat_command(const BenchmarkInstance& instance, const std::string& branch, std::size_t runs);

// "for i in $(seq 3); do gpuperf record --branch main -- python3 train.py; done": N more recordings of a
// program, `command` as Run::command stores it (already quoted for a shell).
std::string repeat_record_command(const std::string& command, const std::string& branch, std::size_t runs);

}  // namespace gpuperf::analysis
