#include "db/sqlite.hpp"

#include <sqlite3.h>

namespace gpuperf::db {

SqliteError::SqliteError(const std::string& what, int extended_code)
    : Error(what, exit_code_for(extended_code)), extended_code_(extended_code) {}

int exit_code_for(int sqlite_code) {
  switch (sqlite_code & 0xff) {
    case SQLITE_CANTOPEN:   // a missing directory, a path under a regular file, no permission
    case SQLITE_READONLY:   // a read-only file, directory or mount
    case SQLITE_PERM:
    case SQLITE_IOERR:      // the disk failed
    case SQLITE_FULL:       // the disk is full
    case SQLITE_NOMEM:
    case SQLITE_BUSY:       // another process held the lock past the busy timeout
    case SQLITE_LOCKED:
    case SQLITE_NOLFS:
      return kExitEnvironment;
    default:                // NOTADB, CORRUPT, CONSTRAINT, MISMATCH, ...: the data or the request
      return kExitUsage;
  }
}

std::string describe_code(int extended_code) {
  static const char* const names[] = {
      "SQLITE_OK",     "SQLITE_ERROR",    "SQLITE_INTERNAL", "SQLITE_PERM",     "SQLITE_ABORT",
      "SQLITE_BUSY",   "SQLITE_LOCKED",   "SQLITE_NOMEM",    "SQLITE_READONLY", "SQLITE_INTERRUPT",
      "SQLITE_IOERR",  "SQLITE_CORRUPT",  "SQLITE_NOTFOUND", "SQLITE_FULL",     "SQLITE_CANTOPEN",
      "SQLITE_PROTOCOL", "SQLITE_EMPTY",  "SQLITE_SCHEMA",   "SQLITE_TOOBIG",   "SQLITE_CONSTRAINT",
      "SQLITE_MISMATCH", "SQLITE_MISUSE", "SQLITE_NOLFS",    "SQLITE_AUTH",     "SQLITE_FORMAT",
      "SQLITE_RANGE",  "SQLITE_NOTADB"};
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

// ---- Connection ----

void Connection::Closer::operator()(sqlite3* db) const {
  // Statements are finalized by their owners first; close_v2 defers if one is still alive.
  sqlite3_close_v2(db);
}

Connection::Connection(const std::string& path, int flags) : path_(path) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  db_.reset(raw);  // even on failure the handle must be closed
  if (rc != SQLITE_OK) throw_sqlite(raw, rc, "cannot open database '" + path + "'");
  sqlite3_extended_result_codes(raw, 1);
}

void Connection::exec(const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err != nullptr ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    int ext = sqlite3_extended_errcode(db_.get());
    if ((ext & 0xff) != (rc & 0xff)) ext = rc;
    throw SqliteError("'" + sql.substr(0, 60) + (sql.size() > 60 ? "...'" : "'") + " on '" + path_ +
                          "': " + msg + " (" + describe_code(ext) + ")",
                      ext);
  }
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
    throw_sqlite(db, rc, "cannot prepare '" + std::string(sql.substr(0, 80)) + "'");
  }
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement::Statement(Statement&& other) noexcept : stmt_(other.stmt_), db_(other.db_) {
  other.stmt_ = nullptr;
}

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
  throw_sqlite(db_, rc, "cannot run '" + std::string(sqlite3_sql(stmt_)).substr(0, 80) + "'");
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
