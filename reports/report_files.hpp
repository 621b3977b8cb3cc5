// Writing reports to disk: all or nothing. A reader (a browser, a CI upload step) never sees a half-written
// report, and a failed write leaves the previous report in place.
#pragma once

#include <filesystem>
#include <string>

namespace gpuperf::reports {

// Writes `content` to a temporary file next to `path`, flushes it to disk and renames it over `path`.
// Creates the parent directory. Throws EnvironmentError naming the path when anything fails (and removes the
// temporary file).
void write_file_atomically(const std::filesystem::path& path, const std::string& content);

}  // namespace gpuperf::reports
