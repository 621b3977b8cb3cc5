#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>
#include <vector>

#include "core/errors.hpp"

namespace gpuperf {
namespace {

// "cannot write 'out/report.html': cannot create the folder 'out': Permission denied".
[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what, int err) {
  throw EnvironmentError("cannot write '" + path.string() + "'" + (what.empty() ? "" : ": " + what) + ": " +
                         std::strerror(err));
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& fill) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) fail(path, "cannot create the folder '" + dir.string() + "'", ec.value());

  std::string tmpl = (dir / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) fail(path, "cannot create a temporary file in '" + dir.string() + "'", errno);
  const std::string tmp(name.data());
  auto abandon = [&](const std::string& what, int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(path, what, err);
  };
  // mkstemp creates 0600; a report or an export is for everyone who can read the directory.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(fd, 0666 & ~mask) != 0) abandon("cannot set its permissions", errno);
  try {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(path, "", errno);
    fill(out);
    out.close();
    if (!out) fail(path, "", errno != 0 ? errno : EIO);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::fsync(fd) != 0)
    abandon("cannot flush it to disk", errno);  // on disk before it has the name: no named empty file
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(path, "", err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(path, "cannot rename its temporary file into place", err);
  }
}

void write_file_atomically(const std::filesystem::path& path, const std::string& content) {
  write_file_atomically(path, [&content](std::ostream& out) { out << content; });
}

}  // namespace gpuperf
