// RAII over the sqlite3 C API: a connection, prepared statements and transactions.
//
// Every return code is checked; a failure becomes a SqliteError carrying SQLite's extended result code and
// message, with the exit code the CLI reports (3 when the environment is at fault: a read-only or missing
// location, a full disk, a lock held too long; 2 otherwise: not a database, corruption, a constraint).
// Messages name the database file and the cause in words (db/sqlite_errors.cpp); SQL text appears only,
// whole, where the statement itself is at fault.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/errors.hpp"
#include "db/lock_wait.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace gpuperf::db {

class SqliteError : public Error {
 public:
  SqliteError(const std::string& what, int extended_code);
  int extended_code() const { return extended_code_; }
  int primary_code() const { return extended_code_ & 0xff; }

 private:
  int extended_code_;
};

// The exit code a SQLite result code deserves (kExitEnvironment or kExitUsage).
int exit_code_for(int sqlite_code);
// "SQLITE_CORRUPT (11)": the primary name and the extended code, for messages.
std::string describe_code(int extended_code);
// Throws SqliteError for `rc` with `what` and the connection's message (db may be null).
[[noreturn]] void throw_sqlite(sqlite3* db, int rc, std::string_view what);
// Throws SqliteError for a statement that failed with `rc`: the database file and the cause in words, or,
// when the statement itself is at fault (a constraint, a bug), the whole SQL.
[[noreturn]] void throw_statement_failure(sqlite3* db, int rc, std::string_view sql);

// ---- words for causes (db/sqlite_errors.cpp) ----
// The cause of a failure on database `path` in words ("the disk is full", "a page is corrupt ..."), using
// the OS error where it helps. Empty for failures of the statement itself (a constraint, a bug) and for
// a lock held too long, which the connection words itself.
std::string cause_in_words(int extended_code, const std::string& path, int system_errno);
// The processes holding the write lock of database `path`, from /proc/locks: "pid 4242 (gpuperf import
// a.json)", several joined by ", ". Empty when none can be seen (another machine, no /proc).
std::string lock_holders(const std::string& path);

// ---- the file's own bytes ----
// Reads up to `n` bytes at `offset` of the file at `path` through SQLite's own file layer, without a lock and
// without looking at what the bytes are (a file that is not a database reads the same). Returns how many bytes
// were read (fewer at the end of the file), or -1 when the file cannot be opened.
// Why not open() and close(): POSIX record locks belong to the process, and closing any descriptor of a file
// drops every lock the process holds on it, among them the SHARED lock each connection in WAL mode keeps on
// its database for as long as it is open. Without that lock another process's closing connection believes
// itself the last one, checkpoints and deletes the -wal file, and a commit made here afterwards goes into the
// deleted file: lost, though it reported success. SQLite keeps its own descriptor of a file open until no
// connection of the process holds a lock on it, so a read through it is safe with connections open.
long long read_file_bytes(const std::string& path, std::uint64_t offset, char* buf, std::size_t n);

class Connection {
 public:
  // Flags are SQLITE_OPEN_* ; the path is used as given (":memory:" works). Non-empty `uri_params`
  // ("mode=ro&immutable=1") open the path as an SQLite URI with those parameters.
  Connection(const std::string& path, int flags, const std::string& uri_params = {});
  Connection(Connection&&) noexcept = default;
  Connection& operator=(Connection&& other) noexcept;  // closes this handle before its busy state goes

  sqlite3* get() const { return db_.get(); }
  const std::string& path() const { return path_; }
  // Waits up to `timeout` for another connection's lock, polling; `report` (may be empty) is called about
  // once a second after the first second of waiting.
  void set_busy_wait(std::chrono::milliseconds timeout, LockWaitReporter report);
  // Runs one or more statements that return no rows of interest.
  void exec(const std::string& sql);
  std::int64_t last_insert_rowid() const;
  int changes() const;
  bool read_only() const;

  struct BusyWait;  // the busy handler's state (sqlite.cpp)

 private:
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  struct BusyWaitDeleter {
    void operator()(BusyWait* w) const;
  };
  // Declared before db_ so that it outlives the handle whose busy handler points at it.
  std::unique_ptr<BusyWait, BusyWaitDeleter> busy_;
  std::unique_ptr<sqlite3, Closer> db_;
  std::string path_;
};

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql);
  Statement(const Connection& c, std::string_view sql) : Statement(c.get(), sql) {}
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based, as in SQLite.
  Statement& bind(int idx, std::int64_t v);
  Statement& bind(int idx, int v) { return bind(idx, static_cast<std::int64_t>(v)); }
  Statement& bind(int idx, bool v) { return bind(idx, static_cast<std::int64_t>(v ? 1 : 0)); }
  Statement& bind(int idx, std::size_t v) { return bind(idx, static_cast<std::int64_t>(v)); }
  Statement& bind(int idx, double v);
  Statement& bind(int idx, std::string_view v);  // copied (SQLITE_TRANSIENT)
  Statement& bind(int idx, const char* v) { return bind(idx, std::string_view(v)); }
  Statement& bind(int idx, const std::string& v) { return bind(idx, std::string_view(v)); }
  Statement& bind_null(int idx);
  template <typename... Args>
  Statement& bind_all(const Args&... args) {
    int i = 0;
    (bind(++i, args), ...);
    return *this;
  }

  // Advances; true when a row is ready, false when done.
  bool step();
  // Steps a statement that must not return rows (INSERT, UPDATE, ...).
  void run();
  // Makes the statement ready to run again with fresh bindings.
  void reset();

  bool is_null(int col) const;
  std::int64_t int64(int col) const;
  double real(int col) const;
  std::string text(int col) const;
  int column_count() const;

 private:
  sqlite3_stmt* stmt_ = nullptr;
  sqlite3* db_ = nullptr;
};

class Transaction {
 public:
  enum class Mode { deferred, immediate };
  // immediate takes the write lock at once (BEGIN IMMEDIATE), waiting up to the busy timeout.
  explicit Transaction(Connection& c, Mode mode = Mode::immediate);
  ~Transaction();  // rolls back unless committed
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Connection* c_;
  bool done_ = false;
};

// One-value queries.
std::int64_t query_int(const Connection& c, std::string_view sql);
std::string query_text(const Connection& c, std::string_view sql);

}  // namespace gpuperf::db
