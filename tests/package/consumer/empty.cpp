// A bench executable that registers nothing: every measuring command must say so and exit 2. Its project has
// a core/result.hpp of its own (this folder is on its include path): both headers are seen, neither hides
// the other.
#include <gpuperf/gpuperf.hpp>

#include "core/result.hpp"

static_assert(user_project::kAnswer == 42, "the user's own core/result.hpp");
static_assert(sizeof(gpuperf::Params) > 0, "gpuperf's result model, from <gpuperf/core/result.hpp>");
