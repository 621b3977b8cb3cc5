#include "db/new_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>

#include "core/errors.hpp"
#include "core/path_problem.hpp"

namespace gpuperf::db {
namespace fs = std::filesystem;

namespace {

// SQLite's companions of a database file, and the stamp a writer leaves (sqlite/verified_stamp.hpp): removed
// together with the temporary.
constexpr const char* kSuffixes[] = {"", "-journal", "-wal", "-shm", "-verified"};
constexpr int kNames = 5;

// ---- removal on SIGINT / SIGTERM / SIGHUP ----
// The handler may only call async-signal-safe functions, so the names are kept in fixed buffers, written
// before a slot is marked in use.
constexpr int kSlots = 4;
constexpr std::size_t kMaxName = 4096 + 16;
struct Slot {
  std::atomic<bool> used{false};
  char names[kNames][kMaxName];
};
Slot g_slots[kSlots];
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};  // SIGXFSZ: past `ulimit -f`
struct sigaction g_previous[4];
bool g_replaced[4] = {};  // a signal the process ignores (`nohup`, `cmd &` in a script) stays ignored
int g_installed = 0;      // slots in use; the handler is installed while it is > 0
std::mutex g_mutex;

void remove_all_and_reraise(int sig) {
  for (Slot& s : g_slots) {
    if (!s.used.load()) continue;
    for (const auto& name : s.names) unlink(name);
  }
  for (int i = 0; i < 4; ++i) {
    if (kSignals[i] == sig) sigaction(sig, &g_previous[i], nullptr);
  }
  raise(sig);  // the previous disposition: usually the default, which ends the process with this signal
}

int take_slot(const std::string& temp) {
  if (temp.size() + 16 > kMaxName) return -1;  // not guarded; the failure paths still remove it
  std::lock_guard<std::mutex> lock(g_mutex);
  for (int i = 0; i < kSlots; ++i) {
    Slot& s = g_slots[i];
    if (s.used.load()) continue;
    for (int n = 0; n < kNames; ++n) std::snprintf(s.names[n], kMaxName, "%s%s", temp.c_str(), kSuffixes[n]);
    s.used.store(true);
    if (g_installed++ == 0) {
      struct sigaction on {};
      on.sa_handler = remove_all_and_reraise;
      sigemptyset(&on.sa_mask);
      for (int k = 0; k < 4; ++k) {
        sigaction(kSignals[k], nullptr, &g_previous[k]);
        g_replaced[k] = g_previous[k].sa_handler != SIG_IGN;
        if (g_replaced[k]) sigaction(kSignals[k], &on, nullptr);
      }
    }
    return i;
  }
  return -1;
}

void release_slot(int i) {
  if (i < 0) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_slots[i].used.store(false);
  if (--g_installed == 0) {
    for (int k = 0; k < 4; ++k) {
      if (g_replaced[k]) sigaction(kSignals[k], &g_previous[k], nullptr);
    }
  }
}

void remove_with_companions(const std::string& base) {
  for (const char* suffix : kSuffixes) unlink((base + suffix).c_str());
}

// Temporaries whose writer is gone (a SIGKILL, a power cut): every live NewFile holds an flock on its
// file, which a dead process no longer does, in any PID namespace. The file is removed while the lock is
// held here, so a writer that was just creating it finds it unlinked once it gets the lock, and starts
// over. SQLite's companions go with their file, or alone when their file is gone.
void remove_stale_temporaries(const fs::path& dir, const std::string& prefix) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    for (const char* suffix : kSuffixes) {
      const std::size_t n = std::strlen(suffix);
      if (n > 0 && name.size() > n && name.compare(name.size() - n, n, suffix) == 0) {
        name.resize(name.size() - n);
        break;
      }
    }
    const std::string base = (dir / name).string();
    const int fd = open(base.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
      if (errno == ENOENT) remove_with_companions(base);
      continue;
    }
    struct stat st {};
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0) {
      remove_with_companions(base);
    }
    close(fd);
  }
  closedir(d);
}

void sync_path(const std::string& path, int flags) {
  const int fd = open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return;
  fsync(fd);
  close(fd);
}

}  // namespace

std::string temp_prefix(const std::string& dest) { return "." + fs::path(dest).filename().string() + ".tmp-"; }

NewFile::NewFile(const std::string& dest) : dest_(dest) {
  const fs::path d(dest);
  const fs::path dir = d.has_parent_path() ? d.parent_path() : fs::path(".");
  const std::string prefix = temp_prefix(dest);
  remove_stale_temporaries(dir, prefix);
  std::random_device rd;
  for (int attempt = 0;; ++attempt) {
    char tail[32];
    std::snprintf(tail, sizeof tail, "%ld-%06x", static_cast<long>(getpid()), rd() & 0xffffffu);
    temp_ = (dir / (prefix + tail)).string();
    slot_ = take_slot(temp_);
    const int fd = open(temp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      // "In use", for remove_stale_temporaries; it may wait a moment for one that is removing this name.
      struct stat st {};
      if (flock(fd, LOCK_EX) == 0 && fstat(fd, &st) == 0 && st.st_nlink > 0) {
        lock_fd_ = fd;
        return;
      }
      close(fd);  // taken for a stale one and removed under us: another name
      release_slot(slot_);
      slot_ = -1;
      if (attempt < 16) continue;
    }
    const int err = fd >= 0 ? EEXIST : errno;
    release_slot(slot_);
    slot_ = -1;
    if (err == EEXIST && attempt < 16) continue;
    std::string cause = location_problem(dest, true);
    if (cause.empty()) cause = "cannot create a file in the folder '" + dir.string() + "': " + std::strerror(err);
    throw EnvironmentError("cannot create '" + dest + "': " + cause);
  }
}

NewFile::~NewFile() {
  if (!published_) remove_with_companions(temp_);
  if (lock_fd_ >= 0) close(lock_fd_);
  release_slot(slot_);
}

bool NewFile::publish() {
  fsync(lock_fd_);  // its bytes on disk before it has the name, so a crash cannot expose a hole
  int rc = renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, dest_.c_str(), RENAME_NOREPLACE);
  if (rc != 0 && (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP)) {
    // A file system without RENAME_NOREPLACE: link() also refuses an existing name.
    rc = link(temp_.c_str(), dest_.c_str());
    if (rc == 0) unlink(temp_.c_str());
  }
  if (rc != 0) {
    const int err = errno;
    if (err == EEXIST) return false;  // the destructor removes the temporary
    throw EnvironmentError("cannot give '" + temp_ + "' its name '" + dest_ + "': " + std::strerror(err));
  }
  published_ = true;
  remove_with_companions(temp_);  // an empty -journal a closed connection may leave; never the file itself
  const fs::path d(dest_);
  sync_path(d.has_parent_path() ? d.parent_path().string() : ".", O_RDONLY | O_DIRECTORY);  // the new name
  return true;
}

}  // namespace gpuperf::db
