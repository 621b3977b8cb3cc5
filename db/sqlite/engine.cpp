// The SQLite engine: opening (and creating, migrating) a database file, its upkeep (info, check, backup)
// and machines.
#include "db/sqlite/engine.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "core/errors.hpp"
#include "db/new_file.hpp"
#include "db/schema_rules.hpp"
#include "db/sqlite/engine.hpp"
#include "db/sqlite/schema.hpp"

namespace gpuperf::db {
namespace fs = std::filesystem;

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

std::string recorded_columns(int version) {
  return std::string(version >= 2 ? "r.command, r.exit_status" : "NULL, NULL") +
         (version >= 4 ? ", r.rank, r.local_rank, r.world_size" : ", NULL, NULL, NULL");
}

RecordedFields read_recorded(const Statement& s, int first) {
  RecordedFields f;
  if (!s.is_null(first)) f.command = s.text(first);
  const auto optional_int = [&](int column) {
    return s.is_null(column) ? std::optional<int>() : std::optional<int>(static_cast<int>(s.int64(column)));
  };
  f.exit_status = optional_int(first + 1);
  f.rank = optional_int(first + 2);
  f.local_rank = optional_int(first + 3);
  f.world_size = optional_int(first + 4);
  return f;
}

namespace {

[[noreturn]] void throw_damaged(const Connection& c, const std::string& problem) {
  throw InputError("database '" + c.path() + "' is damaged (" + problem +
                   "); nothing was changed. `gpuperf db check` lists the problems; restore a backup");
}

// Runs `check` and words SQLite's corruption errors as damage.
template <class F>
void refusing_corruption(const Connection& c, F check) {
  try {
    check();
  } catch (const SqliteError& e) {
    const int code = e.primary_code();
    if (code != SQLITE_CORRUPT && code != SQLITE_NOTADB) throw;
    throw_damaged(c, e.what());
  }
}

}  // namespace

void refuse_damaged(const Connection& c) {
  refusing_corruption(c, [&] {
    // quick_check reads every page of every table and index and checks each b-tree's structure (not that
    // an index agrees with its table): docs/database.md "Damaged files" has what it costs and detects.
    Statement qc(c, "PRAGMA quick_check(1)");
    if (qc.step() && qc.text(0) != "ok") {
      std::string problem = qc.text(0);  // "*** in database main ***\nPage 364: ...": one line
      std::replace(problem.begin(), problem.end(), '\n', ' ');
      throw_damaged(c, problem);
    }
  });
}

std::int64_t check_before_write(const Connection& c, const std::string& path) {
  const std::int64_t now = unix_now();
  std::int64_t last_full = now;
  if (full_check_reason(path, now, &last_full)) {
    refuse_damaged(c);
    return now;
  }
  // As gpuperf left it: the header (SQLite's own checks when it opened the file) and the schema's pages.
  refusing_corruption(c, [&] { Statement(c, "SELECT count(*) FROM sqlite_schema").step(); });
  return last_full;
}

void refuse_damaged_file(const std::string& path, const OpenOptions& options) {
  std::error_code ec;
  if (is_memory(path) || std::filesystem::file_size(path, ec) == 0 || ec) return;
  const std::int64_t now = unix_now();
  if (!full_check_reason(path, now)) return;  // the read-write open checks what it must
  const std::optional<FileStamp> before = stamp_of(path);
  {
    Connection c = open_connection(path, Access::read_only, options);
    if (schema::current_version(c) == 0) return;
    refuse_damaged(c);
  }
  // Checked in full and unchanged meanwhile: the write after the measurement need not check again.
  if (before && stamp_of(path) == before) stamp_now(path, now);
}

std::unique_ptr<Engine> open_sqlite(const std::string& path, Access access, const OpenOptions& options) {
  const std::chrono::milliseconds timeout = options.busy_timeout.value_or(default_busy_timeout());
  std::optional<Connection> opened;
  int version = 0;
  bool created = false;
  try {
    opened.emplace(open_connection(path, access, options, &created));
    version = schema::current_version(*opened);  // the first read: a non-database fails here
  } catch (const SqliteError& e) {
    const int code = e.primary_code();
    if (code != SQLITE_NOTADB && code != SQLITE_CORRUPT) throw;
    throw SqliteError("'" + path + "' is not a usable gpuperf database: " + e.what(), e.extended_code());
  }
  Connection c = std::move(*opened);
  const int latest = schema::latest_version();
  if (version > latest) refuse_newer_schema(path, version);
  // Every command that writes refuses a damaged file before it changes anything (before a migration too),
  // and stamps it when it closes: a file it made, or one with no gpuperf schema yet, is sound as made.
  std::optional<std::int64_t> full_check_at;
  if (access == Access::read_write && !is_memory(path)) {
    full_check_at = created || version == 0 ? unix_now() : check_before_write(c, path);
  }
  c.exec("PRAGMA foreign_keys = ON");
  if (access == Access::read_only) {
    if (version == 0) {
      std::error_code ec;
      if (!is_memory(path) && std::filesystem::file_size(path, ec) == 0 && !ec) {
        throw InputError("'" + path + "' is an empty file, not a gpuperf database yet (a command that writes, " +
                         "such as `gpuperf import`, makes it one)");
      }
      throw InputError("'" + path + "' is not a gpuperf database (it has no gpuperf schema version: it belongs " +
                       "to another program)");
    }
    // A reader must not need write access: an older schema is read as it is (kOldestReadableVersion).
    check_readable_schema(path, version);
  } else {
    // Migrate first (it refuses another program's database inside its transaction, so a file that a
    // second process is creating right now is not mistaken for one), then switch to WAL.
    if (version < latest) schema::migrate(c);
    enable_wal(c, timeout);
  }
  // What the reads may select: a read-write open has just migrated to the latest schema.
  const int readable = access == Access::read_write ? latest : version;
  // A file this open created was made at the latest version from nothing: `db migrate` reports 0 -> latest.
  return std::make_unique<SqliteEngine>(std::move(c), access, path, created ? 0 : version, readable, full_check_at);
}

sqlite3* sqlite_handle(const Store& store) {
  const auto* e = dynamic_cast<const SqliteEngine*>(&store.engine());
  if (e == nullptr) throw std::logic_error("sqlite_handle: '" + store.path() + "' is not an SQLite database");
  return e->connection().get();
}

int SqliteEngine::schema_version() const { return schema::current_version(conn_); }

bool SqliteEngine::set_excluded(std::int64_t run_id, bool excluded, const std::string& reason) {
  // A damaged file was refused by the read-write open (refuse_damaged).
  Transaction tx(conn_);
  Statement s(conn_, "UPDATE run SET excluded = ?1, exclude_reason = ?2 WHERE id = ?3");
  s.bind_all(excluded, reason, run_id).run();
  if (conn_.changes() == 0) return false;
  tx.commit();
  return true;
}

PruneReport SqliteEngine::prune_samples(const std::string& cutoff, bool dry_run) {
  PruneReport rep;
  rep.cutoff = cutoff;
  rep.dry_run = dry_run;
  // A dry run reads one snapshot; a prune holds the write lock from its count to its delete.
  Transaction tx(conn_, dry_run ? Transaction::Mode::deferred : Transaction::Mode::immediate);
  {
    Statement s(conn_,
                "SELECT count(DISTINCT res.run_id), count(DISTINCT res.id), count(*) FROM run r "
                "JOIN result res ON res.run_id = r.id JOIN sample s ON s.result_id = res.id "
                "WHERE r.started_at < ?1 AND res.n > 1");
    s.bind(1, cutoff);
    s.step();
    rep.runs = s.int64(0);
    rep.results = s.int64(1);
    rep.samples = s.int64(2);
  }
  const std::int64_t total = query_int(conn_, "SELECT count(*) FROM sample");
  rep.samples_left = total - rep.samples;
  try {
    // dbstat is an optional SQLite module: without it the size stays unknown.
    const std::int64_t sample_bytes = query_int(conn_,
                                                "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN "
                                                "(SELECT name FROM sqlite_schema WHERE tbl_name = 'sample')");
    if (total > 0)
      rep.bytes = static_cast<std::int64_t>(static_cast<double>(sample_bytes) * static_cast<double>(rep.samples) /
                                            static_cast<double>(total));
  } catch (const Error&) {
  }
  if (dry_run || rep.samples == 0) return rep;
  Statement del(conn_,
                "DELETE FROM sample WHERE result_id IN (SELECT res.id FROM run r JOIN result res ON res.run_id = r.id "
                "WHERE r.started_at < ?1 AND res.n > 1)");
  del.bind(1, cutoff).run();
  tx.commit();
  return rep;
}

std::vector<MachineRow> SqliteEngine::machines() const {
  Statement s(conn_,
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

DbInfo SqliteEngine::info() const {
  const Connection& c = conn_;
  DbInfo d;
  d.path = path_;
  d.engine = "sqlite";
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

CheckReport SqliteEngine::check() const {
  CheckReport r;
  r.checked = "integrity_check and foreign_key_check";
  const std::optional<FileStamp> before = is_memory(path_) ? std::nullopt : stamp_of(path_);
  try {
    Statement ic(conn_, "PRAGMA integrity_check");
    while (ic.step()) {
      std::string line = ic.text(0);
      if (line != "ok") r.problems.push_back("integrity: " + line);
    }
    Statement fk(conn_, "PRAGMA foreign_key_check");
    while (fk.step()) {
      r.problems.push_back("foreign key: " + fk.text(0) + " row " + fk.text(1) + " refers to a missing " + fk.text(2) +
                           " row");
    }
  } catch (const SqliteError& e) {
    r.problems.push_back(std::string("the check itself failed: ") + e.what());
  }
  r.ok = r.problems.empty();
  // The forced full check: a sound file unchanged meanwhile is stamped as checked now (verified_stamp.hpp).
  if (r.ok && before && stamp_of(path_) == before) stamp_now(path_, unix_now());
  return r;
}

void SqliteEngine::backup_to(const std::string& dest_path) const {
  std::error_code ec;
  const auto already = [&] { return InputError("backup destination '" + dest_path + "' already exists"); };
  if (fs::exists(fs::symlink_status(dest_path, ec))) throw already();
  NewFile file(dest_path);
  try {
    Statement s(conn_, "VACUUM INTO ?1");
    s.bind(1, file.temp_path()).run();
  } catch (const Error& e) {
    throw Error("backup to '" + dest_path + "' failed, nothing was left there: " + e.what(), e.exit_code());
  }
  if (!file.publish()) throw already();  // another process wrote it meanwhile; its file is kept
}

}  // namespace gpuperf::db
