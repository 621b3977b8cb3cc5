// SQLite failures in words: exit codes, code names, causes, unopenable locations and lock holders.
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "core/path_problem.hpp"
#include "db/sqlite/connection.hpp"

namespace gpuperf::db {
namespace fs = std::filesystem;

SqliteError::SqliteError(const std::string& what, int extended_code)
    : Error(what, exit_code_for(extended_code)), extended_code_(extended_code) {}

int exit_code_for(int sqlite_code) {
  switch (sqlite_code & 0xff) {
    case SQLITE_CANTOPEN:  // a missing directory, a path under a regular file, no permission
    case SQLITE_READONLY:  // a read-only file, directory or mount
    case SQLITE_PERM:
    case SQLITE_IOERR:  // the disk failed
    case SQLITE_FULL:   // the disk is full
    case SQLITE_NOMEM:
    case SQLITE_BUSY:  // another process held the lock past the busy timeout
    case SQLITE_LOCKED:
    case SQLITE_NOLFS: return kExitEnvironment;
    default:  // NOTADB, CORRUPT, CONSTRAINT, MISMATCH, ...: the data or the request
      return kExitUsage;
  }
}

std::string describe_code(int extended_code) {
  static const char* const names[] = {
      "SQLITE_OK",       "SQLITE_ERROR",      "SQLITE_INTERNAL", "SQLITE_PERM",      "SQLITE_ABORT", "SQLITE_BUSY",
      "SQLITE_LOCKED",   "SQLITE_NOMEM",      "SQLITE_READONLY", "SQLITE_INTERRUPT", "SQLITE_IOERR", "SQLITE_CORRUPT",
      "SQLITE_NOTFOUND", "SQLITE_FULL",       "SQLITE_CANTOPEN", "SQLITE_PROTOCOL",  "SQLITE_EMPTY", "SQLITE_SCHEMA",
      "SQLITE_TOOBIG",   "SQLITE_CONSTRAINT", "SQLITE_MISMATCH", "SQLITE_MISUSE",    "SQLITE_NOLFS", "SQLITE_AUTH",
      "SQLITE_FORMAT",   "SQLITE_RANGE",      "SQLITE_NOTADB"};
  int primary = extended_code & 0xff;
  std::string name = primary >= 0 && primary < static_cast<int>(sizeof names / sizeof names[0])
                         ? names[primary]
                         : "SQLITE_" + std::to_string(primary);
  return name + ", extended code " + std::to_string(extended_code);
}

void throw_sqlite(sqlite3* db, int rc, std::string_view what) {
  int ext = db != nullptr ? sqlite3_extended_errcode(db) : rc;
  if ((ext & 0xff) != (rc & 0xff)) ext = rc;  // the connection's code is stale: trust rc
  std::string msg = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  throw SqliteError(std::string(what) + ": " + msg + " (" + describe_code(ext) + ")", ext);
}

std::string cause_in_words(int extended_code, const std::string& path, int system_errno) {
  const std::string os = system_errno != 0 ? std::string(": ") + std::strerror(system_errno) : std::string();
  switch (extended_code & 0xff) {
    case SQLITE_CORRUPT:
      return "a page of the file is corrupt (the file is damaged: `gpuperf db check` lists the damage; "
             "restore it from a backup or an export)";
    case SQLITE_NOTADB: return "the file is not an SQLite database (or it is encrypted)";
    case SQLITE_FULL: return "the disk is full";
    case SQLITE_IOERR: return "the disk failed to read or write" + os;
    case SQLITE_READONLY: return "it cannot be written here (a read-only file, folder or file system)";
    case SQLITE_PERM: return "permission denied" + os;
    case SQLITE_NOMEM: return "out of memory";
    case SQLITE_CANTOPEN: {
      std::string where = location_problem(path, true);
      return where.empty() ? "it cannot be opened" + os : where;
    }
    default: return {};
  }
}

namespace {

bool inode_of(const std::string& path, ino_t& ino) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return false;
  ino = st.st_ino;
  return true;
}

std::string command_of(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!cmd.empty() && cmd.back() == '\0') cmd.pop_back();
  for (char& ch : cmd) {
    if (ch == '\0') ch = ' ';
  }
  if (cmd.size() > 120) cmd = cmd.substr(0, 117) + "...";
  return cmd;
}

}  // namespace

std::string lock_holders(const std::string& path) {
  // SQLite takes POSIX locks: in WAL mode the writer's is byte 120 of the -shm file (122: recovery); in
  // rollback mode the RESERVED/PENDING/EXCLUSIVE bytes of the file itself, from 0x40000000 on.
  ino_t shm = 0, file = 0;
  const bool has_shm = inode_of(path + "-shm", shm), has_file = inode_of(path, file);
  std::ifstream locks("/proc/locks");
  std::set<long> pids;
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream in(line);
    std::string id, kind, mode, access, device;
    long pid = 0;
    unsigned long long start = 0;
    if (!(in >> id >> kind)) continue;
    if (kind == "->") continue;  // a waiter, not a holder
    if (!(in >> mode >> access >> pid >> device >> start) || access != "WRITE" || pid <= 0 || pid == getpid()) {
      continue;
    }
    const auto colon = device.rfind(':');
    if (colon == std::string::npos) continue;
    const auto ino = static_cast<ino_t>(std::strtoull(device.c_str() + colon + 1, nullptr, 10));
    if ((has_shm && ino == shm && start >= 120 && start <= 122) ||
        (has_file && ino == file && start >= 0x40000000ULL)) {
      pids.insert(pid);
    }
  }
  std::string out;
  for (long pid : pids) {
    if (!out.empty()) out += ", ";
    const std::string cmd = command_of(pid);
    out += "pid " + std::to_string(pid) + (cmd.empty() ? std::string() : " (" + cmd + ")");
  }
  return out;
}

}  // namespace gpuperf::db
