#include "tests/support/pg_template.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>

namespace gpuperf::testing::pg_detail {
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool template_enabled() {
  const char* env = std::getenv("GPUPERF_PG_TEMPLATE");
  return env == nullptr || (std::string(env) != "0" && std::string(env) != "off");
}

// Names the server build and initdb's options: a new PostgreSQL package or other options get a new template.
std::string template_key(const fs::path& bindir, const std::string& superuser_password) {
  struct stat st {};
  stat((bindir / "postgres").c_str(), &st);
  const std::string id = "v1|" + bindir.string() + "|" + std::to_string(st.st_size) + "|" +
                         std::to_string(st.st_mtime) + "|" + superuser_password;
  char hex[17];
  snprintf(hex, sizeof hex, "%016zx", std::hash<std::string>{}(id));
  return hex;
}

// An exclusive flock held for the object's life.
class FileLock {
 public:
  explicit FileLock(const fs::path& path) {
    fd_ = open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) throw std::runtime_error("open " + path.string() + ": " + strerror(errno));
    while (flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) throw std::runtime_error("flock " + path.string() + ": " + strerror(errno));
    }
  }
  ~FileLock() { close(fd_); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

// A usable template: complete (renamed into place only when initdb succeeded) and the server user's.
bool usable(const ServerUser& user, const fs::path& folder) {
  struct stat st {};
  return stat(folder.c_str(), &st) == 0 && st.st_uid == user.uid && fs::exists(folder / "data" / "PG_VERSION");
}

fs::path cached_template(const ServerUser& user, const fs::path& bindir, const std::string& superuser_password) {
  const std::string name =
      "gpuperf-pg-template-" + std::to_string(geteuid()) + "-" + template_key(bindir, superuser_password);
  const fs::path folder = fs::path("/tmp") / name;
  if (usable(user, folder)) return folder;
  FileLock lock(fs::path("/tmp") / (name + ".lock"));
  if (usable(user, folder)) return folder;  // another process made it while we waited
  std::error_code ec;
  fs::remove_all(folder, ec);
  std::string pattern = (fs::path("/tmp") / (name + "-new-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern + ": " + strerror(errno));
  try {
    give_to(user, pattern);
    run_initdb(user, bindir, pattern, superuser_password);
    fs::rename(pattern, folder);
  } catch (...) {
    fs::remove_all(pattern, ec);
    throw;
  }
  return folder;
}

const char* cp_path() {
  for (const char* p : {"/usr/bin/cp", "/bin/cp"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return "/bin/cp";
}

}  // namespace

void run_initdb(const ServerUser& user, const fs::path& bindir, const fs::path& folder,
                const std::string& superuser_password) {
  const fs::path pwfile = folder / "superuser.pw";
  {
    std::ofstream out(pwfile);
    out << superuser_password << "\n";
  }
  give_to(user, pwfile);
  // -N (no fsync of the new files) and the C locale: initdb's fastest form.
  const int rc = run(
      user,
      {(bindir / "initdb").string(), "-D", (folder / "data").string(), "-U", "postgres", "--pwfile=" + pwfile.string(),
       "--auth-local=trust", "--auth-host=scram-sha-256", "-N", "-E", "UTF8", "--locale=C", "--no-instructions"},
      {folder, folder / "initdb.log", false});
  fs::remove(pwfile);
  if (rc != 0) {
    throw std::runtime_error("initdb failed (exit " + std::to_string(rc) + ") as user " + user.name + ":\n" +
                             read_file(folder / "initdb.log"));
  }
}

void make_data_dir(const ServerUser& user, const fs::path& bindir, const fs::path& folder,
                   const std::string& superuser_password) {
  if (!template_enabled()) {
    run_initdb(user, bindir, folder, superuser_password);
    return;
  }
  const fs::path source = cached_template(user, bindir, superuser_password);
  // cp -a as the server user: the copy is its own, with initdb's 0700 modes.
  const int rc = run(user, {cp_path(), "-a", (source / "data").string(), (folder / "data").string()},
                     {folder, folder / "copy.log", false});
  if (rc != 0) {
    throw std::runtime_error("copying the template " + source.string() + " failed (exit " + std::to_string(rc) +
                             "):\n" + read_file(folder / "copy.log"));
  }
}

}  // namespace gpuperf::testing::pg_detail
