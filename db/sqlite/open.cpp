// Opening a database file: checks before SQLite looks, creation under a temporary name, the read-only
// fallback for places where SQLite cannot make its -wal and -shm files, and the busy timeout.
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>
#include <thread>

#include "core/path_problem.hpp"
#include "db/new_file.hpp"
#include "db/sqlite/engine.hpp"
#include "db/sqlite/schema.hpp"

namespace gpuperf::db {
namespace fs = std::filesystem;

namespace {

constexpr std::chrono::seconds kDefaultBusyTimeout{600};

std::uint32_t big_endian32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

// The header's verdict on the file's length: empty when it is whole (or the WAL may hold the rest).
std::optional<std::string> truncation(const std::string& path, const unsigned char* h) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  std::uint32_t page_size = (std::uint32_t{h[16]} << 8) | h[17];
  if (page_size == 1) page_size = 65536;
  const std::uint32_t pages = big_endian32(h + 28);
  // The in-header size is valid when its change counter matches (SQLite file format, section 1.3.7).
  const bool size_valid = pages > 0 && big_endian32(h + 24) == big_endian32(h + 92);
  const auto wal = fs::file_size(path + "-wal", ec);
  const bool wal_has_frames = !ec && wal > 32;  // pages may live in the WAL only
  if (!size_valid || wal_has_frames || std::uint64_t{pages} * page_size <= size) return std::nullopt;
  return "database '" + path + "' is truncated: " + std::to_string(size) + " bytes, but its header says " +
         std::to_string(pages) + " pages of " + std::to_string(page_size) + " bytes (" +
         std::to_string(std::uint64_t{pages} * page_size) + "); restore it from a backup";
}

// Through SQLite's file layer (read_file_bytes): another connection of this process may have the file open.
bool read_header(const std::string& path, unsigned char (&h)[100], std::size_t& got) {
  const long long n = read_file_bytes(path, 0, reinterpret_cast<char*>(h), sizeof h);
  if (n < 0) return false;
  got = static_cast<std::size_t>(n);
  return true;
}

// Looks at the 100-byte header before SQLite does, for clear messages about files that are not SQLite
// databases or were cut short. Touches nothing. An empty file is a new database.
void precheck_file(const std::string& path) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (ec || size == 0) return;  // missing (created later, or refused) or empty
  unsigned char h[100] = {};
  std::size_t got = 0;
  if (!read_header(path, h, got)) return;         // unreadable: the open says why
  static const char magic[] = "SQLite format 3";  // 16 bytes with its NUL
  if (got < 16 || std::memcmp(h, magic, 16) != 0) {
    throw InputError("'" + path + "' is not an SQLite database (it does not start with the SQLite header)");
  }
  if (got < sizeof h) {
    throw InputError("database '" + path + "' is truncated: " + std::to_string(size) +
                     " bytes, shorter than the 100-byte SQLite header");
  }
  std::uint32_t page_size = (std::uint32_t{h[16]} << 8) | h[17];
  if (page_size == 1) page_size = 65536;
  if (page_size < 512 || (page_size & (page_size - 1)) != 0) {
    throw InputError("'" + path + "' has a damaged SQLite header (page size " + std::to_string(page_size) +
                     " is not a power of two from 512 to 65536)");
  }
  // A writer checkpointing or closing changes the header, the length and the WAL one after the other, so a
  // healthy file can look short for a moment: only a verdict that holds over a few looks is reported.
  std::optional<std::string> verdict = truncation(path, h);
  for (int look = 0; verdict && look < 3; ++look) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!read_header(path, h, got) || got < sizeof h) break;
    verdict = truncation(path, h);
  }
  if (verdict) throw InputError(*verdict);
}

// A new database, whole: the schema and WAL mode are written under a temporary name, the connection is
// closed (folding the WAL into the file), and the file is renamed into place. When another process put a
// database there first, its file is kept and used (false).
bool create_database(const std::string& path) {
  NewFile file(path);
  try {
    {
      Connection c(file.temp_path(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
      schema::migrate(c);
      const std::string mode = query_text(c, "PRAGMA journal_mode = WAL");
      if (mode != "wal") {
        throw EnvironmentError("database '" + path + "' cannot use WAL mode (journal mode stays '" + mode +
                               "'); is it on a network file system?");
      }
    }
    return file.publish();
  } catch (const Error& e) {
    throw Error("cannot create database '" + path + "' (nothing was left there): " + e.what(), e.exit_code());
  }
}

// Read-only: `mode=ro`, and where SQLite cannot make the -wal and -shm files it needs even to read (a
// read-only folder or mount, another user's folder) the file is read as immutable: without locks, which
// is sound because no one without those files can be writing it. A WAL with committed pages cannot be
// read that way, so that case is refused in words.
Connection open_read_only(const std::string& path, std::chrono::milliseconds timeout, const LockWaitReporter& on_wait) {
  std::optional<Connection> opened;
  try {
    opened.emplace(path, SQLITE_OPEN_READONLY, "mode=ro");
  } catch (const SqliteError&) {
    std::error_code ec;
    if (!fs::exists(path, ec)) throw InputError("no database at '" + path + "' (it was removed as it was opened)");
    throw;
  }
  Connection c = std::move(*opened);
  c.set_busy_wait(timeout, on_wait);
  int failed = SQLITE_OK;
  try {
    query_int(c, "PRAGMA user_version");  // the first read opens the WAL and its shared memory
    return c;
  } catch (const SqliteError& e) {
    failed = e.primary_code();
    if (failed != SQLITE_READONLY && failed != SQLITE_CANTOPEN) throw;
  }
  std::error_code ec;
  if (const auto wal = fs::file_size(path + "-wal", ec); !ec && wal > 32) {
    const fs::path p(path);
    throw EnvironmentError("database '" + path + "' has changes in '" + path + "-wal' that SQLite can read only " +
                           "with write access to the folder '" +
                           (p.has_parent_path() ? p.parent_path().string() : std::string(".")) +
                           "' (for its -shm file); open it once as a user who can write there (e.g. " +
                           "`gpuperf db migrate`) to fold them into the file");
  }
  Connection immutable(path, SQLITE_OPEN_READONLY, "mode=ro&immutable=1");
  immutable.set_busy_wait(timeout, on_wait);
  return immutable;
}

}  // namespace

bool is_memory(const std::string& path) { return path == ":memory:" || path.empty(); }

std::chrono::milliseconds parse_busy_timeout(const std::string& seconds, const std::string& where) {
  char* end = nullptr;
  const double s = std::strtod(seconds.c_str(), &end);
  if (seconds.empty() || end == seconds.c_str() || *end != '\0' || !std::isfinite(s) || s < 0 || s > 1e7) {
    throw InputError(where + ": '" + seconds + "' is not a busy timeout (seconds, e.g. 600 or 0.5)");
  }
  return std::chrono::milliseconds(static_cast<std::int64_t>(s * 1000));
}

std::chrono::milliseconds default_busy_timeout() {
  const char* env = std::getenv("GPUPERF_DB_BUSY_TIMEOUT");
  if (env == nullptr || *env == '\0') return kDefaultBusyTimeout;
  return parse_busy_timeout(env, "GPUPERF_DB_BUSY_TIMEOUT");
}

// Switching to WAL needs a moment without other connections' transactions; SQLite reports SQLITE_BUSY
// at once instead of calling the busy handler here, so retry within the busy timeout.
void enable_wal(Connection& c, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  if (query_text(c, "PRAGMA journal_mode") == "wal") return;
  for (;;) {
    try {
      std::string mode = query_text(c, "PRAGMA journal_mode = WAL");
      if (mode != "wal" && mode != "memory") {
        throw EnvironmentError("database '" + c.path() + "' cannot use WAL mode (journal mode stays '" + mode +
                               "'); is it on a network file system?");
      }
      return;
    } catch (const SqliteError& e) {
      if (e.primary_code() != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
}

Connection open_connection(const std::string& path, Access access, const OpenOptions& options, bool* created) {
  const std::chrono::milliseconds timeout = options.busy_timeout.value_or(default_busy_timeout());
  std::optional<Connection> c;
  if (is_memory(path)) {
    c.emplace(path, access == Access::read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    c->set_busy_wait(timeout, options.on_wait);
  } else {
    std::error_code ec;
    auto st = fs::status(path, ec);
    if (fs::is_directory(st)) throw InputError("database path '" + path + "' is a directory");
    if (!fs::exists(st)) {
      if (access == Access::read_only) {
        std::string where = location_problem(path, false);
        throw InputError("no database at '" + path + "'" + (where.empty() ? "" : " (" + where + ")") +
                         " (create one with `gpuperf import` or `gpuperf run`, or pass --db / $GPUPERF_DB)");
      }
      if (create_database(path) && created != nullptr) *created = true;
    }
    precheck_file(path);
    if (access == Access::read_only) {
      c.emplace(open_read_only(path, timeout, options.on_wait));
    } else {
      c.emplace(path, SQLITE_OPEN_READWRITE);
      c->set_busy_wait(timeout, options.on_wait);
    }
  }
  if (access == Access::read_write && c->read_only()) {
    // SQLite falls back to read-only when the OS refuses write access to the file.
    throw EnvironmentError("database '" + path + "' is read-only here (no write permission on the file); " +
                           "commands that only read it still work");
  }
  return std::move(*c);
}

}  // namespace gpuperf::db
