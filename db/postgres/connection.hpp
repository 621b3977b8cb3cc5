// RAII over libpq: a connection to the server, results read in binary, parameters sent as text, COPY in,
// and transactions. Only the PostgreSQL engine (db/postgres/) includes this header.
//
// Every failure becomes a PgError carrying the SQLSTATE and the exit code the CLI reports: 3 when the
// server or the environment is at fault (no answer, a refused login, a lost connection, a missing
// privilege, a full disk, a lock held too long), 2 when the data is (a constraint, a malformed value).
// Messages name the database as display_location shows it, never with its password.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/errors.hpp"
#include "db/store.hpp"

struct pg_conn;
struct pg_result;

namespace gpuperf::db::pg {

class PgError : public Error {
 public:
  PgError(const std::string& what, std::string sqlstate, int exit_code);
  const std::string& sqlstate() const { return sqlstate_; }

 private:
  std::string sqlstate_;
};

// The exit code a SQLSTATE deserves (kExitEnvironment or kExitUsage).
int exit_code_for(const std::string& sqlstate);

// A result, its values read in binary (int2/int4/int8, float4/float8, bool, text).
class Result {
 public:
  explicit Result(pg_result* r) : r_(r, &clear) {}
  int rows() const;
  bool is_null(int row, int col) const;
  std::string text(int row, int col) const;
  std::int64_t int64(int row, int col) const;
  double real(int row, int col) const;
  bool boolean(int row, int col) const;
  // A one-dimensional float8[] (array_agg of a double column) appended to `out`, its NULL elements left
  // out; nothing for a NULL array.
  void reals(int row, int col, std::vector<double>& out) const;
  pg_result* get() const { return r_.get(); }

 private:
  static void clear(pg_result* r);
  std::unique_ptr<pg_result, void (*)(pg_result*)> r_;
};

// Parameters $1, $2, ... in text form; an empty optional is NULL. Doubles are written to round-trip.
class Params {
 public:
  Params& add(std::int64_t v);
  Params& add(int v) { return add(static_cast<std::int64_t>(v)); }
  Params& add(std::size_t v) { return add(static_cast<std::int64_t>(v)); }
  Params& add(bool v);
  Params& add(double v);
  Params& add(std::string v);
  Params& add(const char* v) { return add(std::string(v)); }
  Params& add_null();
  template <typename T>
  Params& add(const std::optional<T>& v) {
    return v ? add(*v) : add_null();
  }
  const std::vector<std::optional<std::string>>& values() const { return values_; }

 private:
  std::vector<std::optional<std::string>> values_;
};

// A PostgreSQL array literal of texts or integers ('{"a","b"}', '{1,2}'), for `= ANY($n::text[])`.
std::string array_literal(const std::vector<std::string>& values);
std::string array_literal(const std::vector<std::int64_t>& values);
// A double as COPY's text format and the server read it back exactly.
std::string round_trip(double v);
// Appends `s` to `out` as a COPY text-format field (backslash, newline, carriage return and tab escaped).
void copy_text_field(std::string& out, const std::string& s);

class Connection {
 public:
  // Connects to `location` (a URI or keyword string, handed to libpq as it is) with a connect timeout of
  // 10 s unless the location or $PGCONNECT_TIMEOUT sets one. `shown` is the location for messages.
  // EnvironmentError naming host and port when the server cannot be reached or refuses the login.
  Connection(const std::string& location, std::string shown);
  Connection(Connection&&) noexcept = default;
  Connection& operator=(Connection&&) noexcept = default;

  pg_conn* get() const { return c_.get(); }
  const std::string& shown() const { return shown_; }
  std::string user() const;
  // "host H, port P" or "socket S", for messages.
  std::string where() const;

  // Runs one statement with parameters; `what` says what it was for, in messages ("storing runs").
  Result exec(std::string_view sql, const Params& params = {}, std::string_view what = {}) const;
  // Runs statements without parameters (several may be separated by semicolons).
  void exec_script(std::string_view sql, std::string_view what = {}) const;
  // COPY ... FROM STDIN with `data` in COPY's text format.
  void copy_in(std::string_view copy_sql, const std::string& data, std::string_view what = {}) const;
  // COPY ... TO STDOUT: hands each piece of the data to `piece` as it arrives (libpq gives one row a piece),
  // so the rows are never held all at once. A server error or a lost connection mid-stream is a PgError
  // like exec's (the lost connection: exit 3), after the pieces that did arrive.
  void copy_out(std::string_view copy_sql, const std::function<void(std::string_view)>& piece,
                std::string_view what = {}) const;

 private:
  [[noreturn]] void fail(pg_result* r, std::string_view what, std::string_view sql) const;
  static void finish(pg_conn* c);
  std::unique_ptr<pg_conn, void (*)(pg_conn*)> c_{nullptr, &finish};
  std::string shown_;
};

// BEGIN on construction; ROLLBACK on destruction unless committed.
class Transaction {
 public:
  explicit Transaction(const Connection& c, std::string_view begin = "BEGIN");
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  const Connection* c_;
  bool done_ = false;
};

}  // namespace gpuperf::db::pg
