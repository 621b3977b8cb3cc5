// Writing a file all or nothing: a reader (a browser, a CI upload step, the next import) never sees a
// half-written file, and a failed write leaves the previous file in place. The one writer of reports,
// JUnit and JSON outputs and exports.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>

namespace gpuperf {

// Writes what `fill` streams to a temporary file next to `path` (".NAME.tmp-XXXXXX"), flushes it to disk
// (fsync) and renames it over `path`. Creates the parent directory. Throws EnvironmentError naming `path`
// and the reason when anything fails, and removes the temporary file; an exception of `fill` also removes
// it and passes on.
void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& fill);
void write_file_atomically(const std::filesystem::path& path, const std::string& content);

}  // namespace gpuperf
