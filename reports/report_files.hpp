// Writing reports to disk: all or nothing (core/atomic_file.hpp).
#pragma once

#include "core/atomic_file.hpp"

namespace gpuperf::reports {

using gpuperf::write_file_atomically;

}  // namespace gpuperf::reports
