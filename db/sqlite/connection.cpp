#include "db/sqlite/connection.hpp"
#include "core/path_problem.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <thread>

namespace gpuperf::db {

namespace {

// The lock a writer gave up on, for the message of the SQLITE_BUSY that follows on this thread.
struct GaveUp {
  sqlite3* db = nullptr;
  std::chrono::milliseconds waited{0}, timeout{0};
};
thread_local GaveUp t_gave_up;

std::string seconds(std::chrono::milliseconds ms) {
  const double s = static_cast<double>(ms.count()) / 1000.0;
  char buf[32];
  std::snprintf(buf, sizeof buf, s < 10 ? "%.1f s" : "%.0f s", s);
  return buf;
}

std::string filename_of(sqlite3* db) {
  const char* f = db != nullptr ? sqlite3_db_filename(db, "main") : nullptr;
  return f != nullptr && *f != '\0' ? f : ":memory:";
}

// "database 'c.db' is locked by pid 4242 (gpuperf import a.json); gave up after 600 s ...".
std::string lock_words(sqlite3* db, const std::string& path) {
  const std::string holders = lock_holders(path);
  std::string words =
      "database '" + path + "' is locked by " + (holders.empty() ? std::string("another process") : holders);
  if (t_gave_up.db == db) {
    words += "; gave up after waiting " + seconds(t_gave_up.waited) + " (the busy timeout is " +
             seconds(t_gave_up.timeout) + ": set GPUPERF_DB_BUSY_TIMEOUT or --busy-timeout to wait longer)";
    t_gave_up = GaveUp{};
  }
  return words;
}

// A URI filename: '%', '?' and '#' are escaped; an absolute path gets an empty authority.
std::string uri_of(const std::string& path, const std::string& params) {
  std::string out = path.empty() || path[0] != '/' ? "file:" : "file://";
  for (char ch : path) {
    if (ch == '%' || ch == '?' || ch == '#') {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(ch));
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "?" + params;
}

}  // namespace

void throw_statement_failure(sqlite3* db, int rc, std::string_view sql) {
  int ext = db != nullptr ? sqlite3_extended_errcode(db) : rc;
  if ((ext & 0xff) != (rc & 0xff)) ext = rc;
  const std::string msg = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  const std::string path = filename_of(db);
  const std::string detail = " (" + msg + "; " + describe_code(ext) + ")";
  if ((ext & 0xff) == SQLITE_BUSY || (ext & 0xff) == SQLITE_LOCKED)
    throw SqliteError(lock_words(db, path) + detail, ext);
  const std::string cause = cause_in_words(ext, path, db != nullptr ? sqlite3_system_errno(db) : 0);
  if (!cause.empty()) throw SqliteError("database '" + path + "': " + cause + detail, ext);
  throw SqliteError("'" + std::string(sql) + "' on '" + path + "': " + msg + " (" + describe_code(ext) + ")", ext);
}

// ---- waiting for another connection's lock ----

struct Connection::BusyWait {
  sqlite3* db = nullptr;
  std::string path;
  std::chrono::milliseconds timeout{0};
  LockWaitReporter report;
  std::chrono::steady_clock::time_point start, last_report;
};

void Connection::BusyWaitDeleter::operator()(BusyWait* w) const { delete w; }

namespace {

// SQLite calls this while a lock is held elsewhere; `count` is 0 on the first call of each wait. Short
// sleeps first (a commit takes milliseconds), then 50 ms polls: SQLite keeps no queue, so polling is how
// writers take turns.
int on_busy(void* arg, int count) {
  auto* w = static_cast<Connection::BusyWait*>(arg);
  const auto now = std::chrono::steady_clock::now();
  if (count == 0) w->start = w->last_report = now;
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(now - w->start);
  if (waited >= w->timeout) {
    t_gave_up = GaveUp{w->db, waited, w->timeout};
    return 0;
  }
  if (w->report && waited >= std::chrono::seconds(1) && now - w->last_report >= std::chrono::seconds(1)) {
    w->last_report = now;
    w->report(LockWait{w->path, waited, w->timeout, lock_holders(w->path)});
  }
  static constexpr int kDelaysMs[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50};
  const int n = static_cast<int>(sizeof kDelaysMs / sizeof kDelaysMs[0]);
  std::this_thread::sleep_for(std::chrono::milliseconds(kDelaysMs[count < n ? count : n - 1]));
  return 1;
}

}  // namespace

void Connection::set_busy_wait(std::chrono::milliseconds timeout, LockWaitReporter report) {
  if (!busy_) busy_.reset(new BusyWait);
  busy_->db = db_.get();
  busy_->path = path_;
  busy_->timeout = timeout;
  busy_->report = std::move(report);
  const int rc = sqlite3_busy_handler(db_.get(), on_busy, busy_.get());
  if (rc != SQLITE_OK) throw_sqlite(db_.get(), rc, "cannot set a busy handler on '" + path_ + "'");
}

// ---- Connection ----

long long read_file_bytes(const std::string& path, std::uint64_t offset, char* buf, std::size_t n) {
  sqlite3* raw = nullptr;
  // The pager opens the file here; nothing is read or locked before a statement runs.
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, sqlite3_close_v2);
  sqlite3_file* file = nullptr;
  if (rc != SQLITE_OK || sqlite3_file_control(raw, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK ||
      file == nullptr || file->pMethods == nullptr) {
    return -1;
  }
  sqlite3_int64 size = 0;
  if (file->pMethods->xFileSize(file, &size) != SQLITE_OK) return -1;
  if (size < 0 || offset >= static_cast<std::uint64_t>(size) || n == 0) return 0;
  const std::size_t take =
      static_cast<std::size_t>(std::min<std::uint64_t>(n, static_cast<std::uint64_t>(size) - offset));
  // SQLITE_IOERR_SHORT_READ (the file shrank meanwhile) fills the rest with zeros: still `take` bytes.
  const int read = file->pMethods->xRead(file, buf, static_cast<int>(take), static_cast<sqlite3_int64>(offset));
  if (read != SQLITE_OK && read != SQLITE_IOERR_SHORT_READ) return -1;
  return static_cast<long long>(take);
}

void Connection::Closer::operator()(sqlite3* db) const {
  // Statements are finalized by their owners first; close_v2 defers if one is still alive.
  sqlite3_close_v2(db);
}

Connection::Connection(const std::string& path, int flags, const std::string& uri_params) : path_(path) {
  sqlite3* raw = nullptr;
  const std::string name = uri_params.empty() ? path : uri_of(path, uri_params);
  if (!uri_params.empty()) flags |= SQLITE_OPEN_URI;
  int rc = sqlite3_open_v2(name.c_str(), &raw, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  db_.reset(raw);  // even on failure the handle must be closed
  if (rc != SQLITE_OK) {
    int ext = raw != nullptr ? sqlite3_extended_errcode(raw) : rc;
    if ((ext & 0xff) != (rc & 0xff)) ext = rc;
    const std::string msg = raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    std::string cause = location_problem(path, (flags & SQLITE_OPEN_CREATE) != 0);
    if (cause.empty()) cause = cause_in_words(ext, path, raw != nullptr ? sqlite3_system_errno(raw) : 0);
    throw SqliteError("cannot open database '" + path + "'" + (cause.empty() ? "" : ": " + cause) + " (" + msg + "; " +
                          describe_code(ext) + ")",
                      ext);
  }
  sqlite3_extended_result_codes(raw, 1);
}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    db_ = std::move(other.db_);
    busy_ = std::move(other.busy_);
    path_ = std::move(other.path_);
  }
  return *this;
}

void Connection::exec(const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &err);
  sqlite3_free(err);  // the connection keeps the same message
  if (rc != SQLITE_OK) throw_statement_failure(db_.get(), rc, sql);
}

std::int64_t Connection::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_.get()); }
int Connection::changes() const { return sqlite3_changes(db_.get()); }
bool Connection::read_only() const { return sqlite3_db_readonly(db_.get(), "main") == 1; }

// ---- Statement ----

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db) {
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
    throw_statement_failure(db, rc, sql);
  }
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement::Statement(Statement&& other) noexcept : stmt_(other.stmt_), db_(other.db_) { other.stmt_ = nullptr; }

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = other.stmt_;
    db_ = other.db_;
    other.stmt_ = nullptr;
  }
  return *this;
}

namespace {
void check_bind(sqlite3* db, int rc) {
  if (rc != SQLITE_OK) throw_sqlite(db, rc, "cannot bind a statement parameter");
}
}  // namespace

Statement& Statement::bind(int idx, std::int64_t v) {
  check_bind(db_, sqlite3_bind_int64(stmt_, idx, v));
  return *this;
}
Statement& Statement::bind(int idx, double v) {
  check_bind(db_, sqlite3_bind_double(stmt_, idx, v));
  return *this;
}
Statement& Statement::bind(int idx, std::string_view v) {
  check_bind(db_, sqlite3_bind_text(stmt_, idx, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  return *this;
}
Statement& Statement::bind_null(int idx) {
  check_bind(db_, sqlite3_bind_null(stmt_, idx));
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw_statement_failure(db_, rc, sqlite3_sql(stmt_));
}

void Statement::run() {
  if (step()) {
    throw SqliteError(std::string("statement returned rows where none were expected: ") + sqlite3_sql(stmt_),
                      SQLITE_MISUSE);
  }
  reset();
}

void Statement::reset() {
  // sqlite3_reset repeats the last step's error, which step() already reported.
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
std::int64_t Statement::int64(int col) const { return sqlite3_column_int64(stmt_, col); }
double Statement::real(int col) const { return sqlite3_column_double(stmt_, col); }
std::string Statement::text(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  if (p == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)));
}
int Statement::column_count() const { return sqlite3_column_count(stmt_); }

// ---- Transaction ----

Transaction::Transaction(Connection& c, Mode mode) : c_(&c) {
  try {
    c.exec(mode == Mode::immediate ? "BEGIN IMMEDIATE" : "BEGIN");
  } catch (const SqliteError& e) {
    const int code = e.primary_code();
    if (code != SQLITE_CANTOPEN && code != SQLITE_READONLY && code != SQLITE_PERM) throw;
    // The usual cause: the file or its directory is not writable, so the WAL cannot be created.
    throw SqliteError("database '" + c.path() + "' cannot be written here: SQLite needs write access to the file " +
                          "and to its directory (for the -wal and -shm files next to it). " + e.what(),
                      e.extended_code());
  }
}

Transaction::~Transaction() {
  if (!done_ && sqlite3_get_autocommit(c_->get()) == 0) {
    // Best effort: a destructor must not throw, and SQLite may already have rolled back (e.g. on IOERR).
    sqlite3_exec(c_->get(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

void Transaction::commit() {
  c_->exec("COMMIT");
  done_ = true;
}

// ---- one-value queries ----

std::int64_t query_int(const Connection& c, std::string_view sql) {
  Statement s(c, sql);
  if (!s.step()) throw SqliteError("query returned no row: " + std::string(sql), 1);
  return s.int64(0);
}

std::string query_text(const Connection& c, std::string_view sql) {
  Statement s(c, sql);
  if (!s.step()) throw SqliteError("query returned no row: " + std::string(sql), 1);
  return s.text(0);
}

}  // namespace gpuperf::db
