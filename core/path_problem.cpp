#include "core/path_problem.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>

namespace gpuperf {
namespace fs = std::filesystem;

std::string location_problem(const std::string& path, bool create) {
  if (path.empty() || path == ":memory:") return {};
  const fs::path p(path);
  // Each folder on the way must exist and be a folder.
  fs::path prefix;
  for (auto it = p.begin(); it != p.end(); ++it) {
    if (std::next(it) == p.end()) break;
    prefix /= *it;
    struct stat st {};
    if (stat(prefix.c_str(), &st) != 0) {
      if (errno == ENOENT) return "the folder '" + prefix.string() + "' does not exist";
      if (errno == EACCES) return "permission denied: you cannot enter the folder '" + prefix.string() + "'";
      return "cannot reach '" + prefix.string() + "': " + std::strerror(errno);
    }
    if (!S_ISDIR(st.st_mode)) return "'" + prefix.string() + "' is a file, not a folder";
  }
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : std::string(".");
  if (access(path.c_str(), F_OK) == 0) {
    if (access(path.c_str(), R_OK) != 0) return "permission denied: you cannot read '" + path + "'";
    if (create && access(path.c_str(), W_OK) != 0) {
      if (errno == EROFS) return "'" + path + "' is on a read-only file system";
      return "permission denied: you cannot write '" + path + "'";
    }
    return {};
  }
  if (create && access(dir.c_str(), W_OK | X_OK) != 0) {
    if (errno == EROFS) return "the folder '" + dir + "' is on a read-only file system";
    return "permission denied: you cannot create files in the folder '" + dir + "'";
  }
  return {};
}

}  // namespace gpuperf
