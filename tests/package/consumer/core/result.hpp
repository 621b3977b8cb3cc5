// A user's own core/result.hpp, on the include path of empty_bench: gpuperf's installed headers must not
// pick it up in place of their own (they include <gpuperf/core/result.hpp>).
#pragma once

namespace user_project {
constexpr int kAnswer = 42;
}  // namespace user_project
