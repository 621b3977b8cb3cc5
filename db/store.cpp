// Store: opening (and creating, migrating) a database, its upkeep (info, check, backup) and machines.
#include "db/store.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <system_error>
#include <thread>

#include "db/schema.hpp"
#include "db/store_impl.hpp"

namespace gpuperf::db {
namespace fs = std::filesystem;

namespace {

constexpr int kBusyTimeoutMs = 10000;  // how long a writer waits for another process's transaction

bool is_memory(const std::string& path) { return path == ":memory:" || path.empty(); }

// Switching to WAL needs a moment without other connections' transactions; SQLite reports SQLITE_BUSY
// at once instead of calling the busy handler here, so retry within the busy timeout.
void enable_wal(Connection& c) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
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

std::uint32_t big_endian32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

// Looks at the 100-byte header before SQLite does, for clear messages about files that are not SQLite
// databases or were cut short. Touches nothing. An empty file is a new database.
void precheck_file(const std::string& path) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (ec || size == 0) return;  // missing (created later, or refused) or empty
  std::ifstream in(path, std::ios::binary);
  if (!in) return;  // unreadable: SQLite reports it with its own code
  unsigned char h[100] = {};
  in.read(reinterpret_cast<char*>(h), sizeof h);
  const auto got = static_cast<std::size_t>(in.gcount());
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
  const std::uint32_t pages = big_endian32(h + 28);
  // The in-header size is valid when its change counter matches (SQLite file format, section 1.3.7).
  const bool size_valid = pages > 0 && big_endian32(h + 24) == big_endian32(h + 92);
  auto wal = fs::file_size(path + "-wal", ec);
  const bool wal_has_frames = !ec && wal > 32;  // pages may live in the WAL only
  if (size_valid && !wal_has_frames && std::uint64_t{pages} * page_size > size) {
    throw InputError("database '" + path + "' is truncated: " + std::to_string(size) + " bytes, but its header " +
                     "says " + std::to_string(pages) + " pages of " + std::to_string(page_size) + " bytes (" +
                     std::to_string(std::uint64_t{pages} * page_size) + "); restore it from a backup");
  }
}

Connection open_connection(const std::string& path, Access access) {
  if (!is_memory(path)) {
    std::error_code ec;
    auto st = fs::status(path, ec);
    if (fs::is_directory(st)) throw InputError("database path '" + path + "' is a directory");
    if (access == Access::read_only && !fs::exists(st)) {
      throw InputError("no database at '" + path +
                       "' (create one with `gpuperf import` or `gpuperf run`, or pass --db / $GPUPERF_DB)");
    }
    precheck_file(path);
  }
  int flags = access == Access::read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  Connection c(path, flags);
  int rc = sqlite3_busy_timeout(c.get(), kBusyTimeoutMs);
  if (rc != SQLITE_OK) throw_sqlite(c.get(), rc, "cannot set busy_timeout");
  if (access == Access::read_write && c.read_only()) {
    // SQLite falls back to read-only when the OS refuses write access to the file.
    throw EnvironmentError("database '" + path + "' is read-only here (no write permission on the file); " +
                           "commands that only read it still work");
  }
  return c;
}

}  // namespace

Summary read_summary(const Statement& s, int first) {
  Summary m;
  m.n = static_cast<std::size_t>(s.int64(first));
  if (m.n == 0) return m;
  m.median = s.real(first + 1);
  m.mean = s.real(first + 2);
  m.min = s.real(first + 3);
  m.max = s.real(first + 4);
  m.q1 = s.real(first + 5);
  m.q3 = s.real(first + 6);
  m.stdev = s.real(first + 7);
  return m;
}

Machine read_machine(const Statement& s, int first) {
  Machine m;
  m.hostname = s.text(first);
  m.gpu_name = s.text(first + 1);
  m.gpu_uuid = s.text(first + 2);
  m.cc = s.text(first + 3);
  m.sm_count = s.int64(first + 4);
  m.driver = s.text(first + 5);
  m.cuda = s.text(first + 6);
  return m;
}

const char* recorded_columns(bool has_recorded_columns) {
  return has_recorded_columns ? "r.command, r.exit_status" : "NULL, NULL";
}

void read_recorded(const Statement& s, int first, std::string& command, std::optional<int>& exit_status) {
  command = s.is_null(first) ? std::string() : s.text(first);
  exit_status.reset();
  if (!s.is_null(first + 1)) exit_status = static_cast<int>(s.int64(first + 1));
}

Store::Store(const std::string& path, Access access) : path_(path) {
  Connection c = open_connection(path, access);
  int version = 0;
  try {
    version = schema::current_version(c);  // the first read: a non-database fails here
  } catch (const SqliteError& e) {
    throw SqliteError("'" + path + "' is not a usable gpuperf database: " + e.what(), e.extended_code());
  }
  const int latest = schema::latest_version();
  if (version > latest) {
    throw InputError("database '" + path + "' has schema version " + std::to_string(version) +
                     ", newer than this gpuperf supports (" + std::to_string(latest) +
                     "); use a newer gpuperf. The file was not changed.");
  }
  c.exec("PRAGMA foreign_keys = ON");
  if (access == Access::read_only) {
    if (version == 0) {
      throw InputError("'" + path + "' is not a gpuperf database (no gpuperf schema version; it is empty or " +
                       "belongs to another program)");
    }
    // A reader must not need write access: an older schema is read as it is (kOldestReadableVersion).
    if (version < kOldestReadableVersion) {
      throw InputError("database '" + path + "' has schema version " + std::to_string(version) +
                       "; this gpuperf reads " + std::to_string(kOldestReadableVersion) + " to " +
                       std::to_string(latest) + ": run `gpuperf db migrate` first");
    }
  } else {
    // Migrate first (it refuses another program's database inside its transaction, so a file that a
    // second process is creating right now is not mistaken for one), then switch to WAL.
    if (version < latest) schema::migrate(c);
    enable_wal(c);
  }
  // What the reads may select: a read-write open has just migrated to the latest schema.
  const int readable = access == Access::read_write ? latest : version;
  impl_ = std::make_unique<Impl>(Impl{std::move(c), access, path, version, readable >= 2});
}

Store::~Store() = default;
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;

sqlite3* Store::handle() const { return impl_->conn.get(); }

int Store::schema_version() const { return schema::current_version(impl_->conn); }
int Store::opened_version() const { return impl_->opened_version; }

void Store::set_excluded(std::int64_t run_id, bool excluded, const std::string& reason) {
  Transaction tx(impl_->conn);
  Statement s(impl_->conn, "UPDATE run SET excluded = ?1, exclude_reason = ?2 WHERE id = ?3");
  s.bind_all(excluded, excluded ? reason : std::string(), run_id).run();
  if (impl_->conn.changes() == 0) throw InputError("no run with id " + std::to_string(run_id));
  tx.commit();
}

std::vector<MachineRow> Store::machines() const {
  Statement s(impl_->conn,
              "SELECT id, fingerprint, hostname, gpu_name, gpu_uuid, cc, sm_count, driver, cuda "
              "FROM machine ORDER BY id");
  std::vector<MachineRow> out;
  while (s.step()) {
    MachineRow m;
    m.id = s.int64(0);
    m.fingerprint = s.text(1);
    m.machine = read_machine(s, 2);
    out.push_back(std::move(m));
  }
  return out;
}

std::optional<MachineRow> Store::find_machine(const std::string& ref) const {
  auto all = machines();
  bool numeric = !ref.empty() && ref.size() < 19 &&
                 std::all_of(ref.begin(), ref.end(), [](unsigned char ch) { return std::isdigit(ch) != 0; });
  for (const auto& m : all) {
    if (m.fingerprint == ref || (numeric && m.id == std::stoll(ref))) return m;
  }
  std::vector<MachineRow> by_host;
  for (const auto& m : all) {
    if (m.machine.hostname == ref) by_host.push_back(m);
  }
  if (by_host.size() > 1) {
    std::string names;
    for (const auto& m : by_host) names += "\n  " + std::to_string(m.id) + "  " + m.fingerprint;
    throw InputError("machine '" + ref + "' is ambiguous: that host has several GPUs; name one by id or " +
                     "fingerprint:" + names);
  }
  if (by_host.size() == 1) return by_host.front();
  return std::nullopt;
}

DbInfo Store::info() const {
  const Connection& c = impl_->conn;
  DbInfo d;
  d.path = path_;
  d.schema_version = schema_version();
  d.supported_version = schema::latest_version();
  d.machines = query_int(c, "SELECT count(*) FROM machine");
  d.runs = query_int(c, "SELECT count(*) FROM run");
  d.benchmarks = query_int(c, "SELECT count(*) FROM benchmark");
  d.metrics = query_int(c, "SELECT count(*) FROM metric");
  d.results = query_int(c, "SELECT count(*) FROM result");
  d.samples = query_int(c, "SELECT count(*) FROM sample");
  d.journal_mode = query_text(c, "PRAGMA journal_mode");
  if (is_memory(path_)) {
    d.file_bytes = query_int(c, "PRAGMA page_count") * query_int(c, "PRAGMA page_size");
  } else {
    std::error_code ec;
    auto main_bytes = fs::file_size(path_, ec);
    d.file_bytes = ec ? 0 : static_cast<std::int64_t>(main_bytes);
    auto wal_bytes = fs::file_size(path_ + "-wal", ec);  // committed data not yet checkpointed
    if (!ec) d.file_bytes += static_cast<std::int64_t>(wal_bytes);
  }
  return d;
}

CheckReport Store::check() const {
  CheckReport r;
  try {
    Statement ic(impl_->conn, "PRAGMA integrity_check");
    while (ic.step()) {
      std::string line = ic.text(0);
      if (line != "ok") r.problems.push_back("integrity: " + line);
    }
    Statement fk(impl_->conn, "PRAGMA foreign_key_check");
    while (fk.step()) {
      r.problems.push_back("foreign key: " + fk.text(0) + " row " + fk.text(1) + " refers to a missing " +
                           fk.text(2) + " row");
    }
  } catch (const SqliteError& e) {
    r.problems.push_back(std::string("the check itself failed: ") + e.what());
  }
  r.ok = r.problems.empty();
  return r;
}

void Store::backup_to(const std::string& dest_path) const {
  std::error_code ec;
  if (fs::exists(dest_path, ec)) throw InputError("backup destination '" + dest_path + "' already exists");
  Statement s(impl_->conn, "VACUUM INTO ?1");
  s.bind(1, dest_path).run();
}

}  // namespace gpuperf::db
