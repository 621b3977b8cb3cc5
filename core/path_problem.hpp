// Why a file cannot be opened or created, in plain words, from the file system alone: the database layer's errors
// and db/new_file.cpp's word a failure with it.
#pragma once

#include <string>

namespace gpuperf {

// Why `path` cannot be opened (or, with `create`, created) in plain words: a missing folder, a path under a
// regular file, no permission, a read-only file system. Empty when none of these is the cause.
std::string location_problem(const std::string& path, bool create);

}  // namespace gpuperf
