#include "db/postgres/connection.hpp"

#include <endian.h>
#include <libpq-fe.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gpuperf::db::pg {
namespace {

// Type OIDs, fixed in every PostgreSQL release (src/include/catalog/pg_type.dat).
constexpr Oid kBool = 16, kInt8 = 20, kInt2 = 21, kInt4 = 23, kFloat4 = 700, kFloat8 = 701, kFloat8Array = 1022;

std::uint64_t read_be64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return be64toh(v);
}

std::uint32_t read_be32(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return be32toh(v);
}

std::string sqlstate_of(const PGresult* r) {
  const char* s = r != nullptr ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  return s != nullptr ? s : "";
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

}  // namespace

PgError::PgError(const std::string& what, std::string sqlstate, int exit_code)
    : Error(what, exit_code), sqlstate_(std::move(sqlstate)) {}

int exit_code_for(const std::string& sqlstate) {
  // Classes 22 (data exception) and 23 (integrity constraint) are the data's fault; 42 is a statement
  // error, except 42501, a missing privilege, which is the environment's like connection, resource and
  // lock failures (SQLSTATE classes in PostgreSQL's documentation, Appendix A).
  if (starts_with(sqlstate, "22") || starts_with(sqlstate, "23")) return kExitUsage;
  if (starts_with(sqlstate, "42") && sqlstate != "42501") return kExitUsage;
  return kExitEnvironment;
}

void Result::clear(pg_result* r) { PQclear(r); }
int Result::rows() const { return PQntuples(r_.get()); }
bool Result::is_null(int row, int col) const { return PQgetisnull(r_.get(), row, col) != 0; }

std::string Result::text(int row, int col) const {
  if (is_null(row, col)) return {};
  return std::string(PQgetvalue(r_.get(), row, col), static_cast<std::size_t>(PQgetlength(r_.get(), row, col)));
}

std::int64_t Result::int64(int row, int col) const {
  if (is_null(row, col)) return 0;
  const char* p = PQgetvalue(r_.get(), row, col);
  switch (PQftype(r_.get(), col)) {
    case kInt8: return static_cast<std::int64_t>(read_be64(p));
    case kInt4: return static_cast<std::int32_t>(read_be32(p));
    case kInt2:
      return static_cast<std::int16_t>((static_cast<unsigned char>(p[0]) << 8) | static_cast<unsigned char>(p[1]));
    case kBool: return p[0] != 0 ? 1 : 0;
    default:
      throw Error("PostgreSQL engine: column " + std::to_string(col) + " is not an integer (type oid " +
                      std::to_string(PQftype(r_.get(), col)) + ")",
                  kExitEnvironment);
  }
}

double Result::real(int row, int col) const {
  if (is_null(row, col)) return 0;
  const char* p = PQgetvalue(r_.get(), row, col);
  switch (PQftype(r_.get(), col)) {
    case kFloat8: {
      const std::uint64_t bits = read_be64(p);
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
    case kFloat4: {
      const std::uint32_t bits = read_be32(p);
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    default: return static_cast<double>(int64(row, col));
  }
}

bool Result::boolean(int row, int col) const { return int64(row, col) != 0; }

void Result::reals(int row, int col, std::vector<double>& out) const {
  if (is_null(row, col)) return;
  if (PQftype(r_.get(), col) != kFloat8Array) {
    throw Error("PostgreSQL engine: column " + std::to_string(col) + " is not a float8[] (type oid " +
                    std::to_string(PQftype(r_.get(), col)) + ")",
                kExitEnvironment);
  }
  // The binary array format (array_send in the server's arrayfuncs.c): ndim, has-nulls flag, element type,
  // then per dimension its length and lower bound, then per element a length (-1: NULL) and its bytes.
  const char* p = PQgetvalue(r_.get(), row, col);
  const auto size = static_cast<std::size_t>(PQgetlength(r_.get(), row, col));
  if (size < 12) return;
  const auto ndim = static_cast<std::int32_t>(read_be32(p));
  if (ndim == 0) return;
  if (ndim != 1 || size < 20)
    throw Error("PostgreSQL engine: a float8[] of " + std::to_string(ndim) + " dimensions", kExitEnvironment);
  const auto count = static_cast<std::int32_t>(read_be32(p + 12));
  const char* at = p + 20;
  const char* end = p + size;
  out.reserve(out.size() + static_cast<std::size_t>(count));
  for (std::int32_t i = 0; i < count && at + 4 <= end; ++i) {
    const auto len = static_cast<std::int32_t>(read_be32(at));
    at += 4;
    if (len < 0) continue;  // NULL
    if (len != 8 || at + 8 > end) throw Error("PostgreSQL engine: a malformed float8[] element", kExitEnvironment);
    const std::uint64_t bits = read_be64(at);
    double d;
    std::memcpy(&d, &bits, 8);
    out.push_back(d);
    at += 8;
  }
}

Params& Params::add(std::int64_t v) {
  values_.emplace_back(std::to_string(v));
  return *this;
}
Params& Params::add(bool v) {
  values_.emplace_back(v ? "true" : "false");
  return *this;
}
Params& Params::add(double v) {
  values_.emplace_back(round_trip(v));
  return *this;
}
Params& Params::add(std::string v) {
  values_.emplace_back(std::move(v));
  return *this;
}
Params& Params::add_null() {
  values_.emplace_back(std::nullopt);
  return *this;
}

std::string round_trip(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string array_literal(const std::vector<std::string>& values) {
  std::string out = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += '"';
    for (char ch : values[i]) {
      if (ch == '"' || ch == '\\') out += '\\';
      out += ch;
    }
    out += '"';
  }
  return out + "}";
}

std::string array_literal(const std::vector<std::int64_t>& values) {
  std::string out = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(values[i]);
  }
  return out + "}";
}

void Connection::finish(pg_conn* c) {
  if (c != nullptr) PQfinish(c);
}

Connection::Connection(const std::string& location, std::string shown) : shown_(std::move(shown)) {
  // Earlier keywords are defaults: the location (expanded from dbname) overrides them.
  std::vector<const char*> keys, values;
  const char* env_timeout = std::getenv("PGCONNECT_TIMEOUT");
  if (env_timeout == nullptr || *env_timeout == '\0') {
    keys.push_back("connect_timeout");
    values.push_back("10");
  }
  keys.push_back("fallback_application_name");
  values.push_back("gpuperf");
  keys.push_back("dbname");
  values.push_back(location.c_str());
  keys.push_back(nullptr);
  values.push_back(nullptr);
  c_.reset(PQconnectdbParams(keys.data(), values.data(), 1));
  if (c_ == nullptr) throw EnvironmentError("cannot connect to PostgreSQL database '" + shown_ + "': out of memory");
  if (PQstatus(c_.get()) != CONNECTION_OK) {
    // libpq's message names the host and port it tried, and for a refused login the user; never the password.
    throw EnvironmentError("cannot connect to PostgreSQL database '" + shown_ +
                           "': " + trimmed(PQerrorMessage(c_.get())));
  }
  PQsetNoticeProcessor(
      c_.get(), [](void*, const char*) {}, nullptr);
  // Text in UTF-8; doubles printed so that they read back exactly; no chatter. No JIT: gpuperf's reads are
  // index ranges of a few milliseconds whose cost estimates still pass jit_above_cost on a large history
  // (one nested loop per result); compiling them took 150-290 ms a query, more than the reads themselves
  // (issue 42, a 40-night history of 4 runners on a 2-core machine).
  exec_script(
      "SET client_encoding = 'UTF8'; SET extra_float_digits = 3; SET client_min_messages = warning; SET jit = off",
      "setting up the session");
}

std::string Connection::user() const { return PQuser(c_.get()); }

std::string Connection::where() const {
  const std::string host = PQhost(c_.get()) != nullptr ? PQhost(c_.get()) : "";
  const std::string port = PQport(c_.get()) != nullptr ? PQport(c_.get()) : "";
  if (!host.empty() && host[0] == '/') return "socket " + host + "/.s.PGSQL." + port;
  return "host " + host + ", port " + port;
}

void Connection::fail(pg_result* r, std::string_view what, std::string_view sql) const {
  const std::string state = sqlstate_of(r);
  std::string message =
      trimmed(r != nullptr && *PQresultErrorMessage(r) != '\0' ? PQresultErrorMessage(r) : PQerrorMessage(c_.get()));
  PQclear(r);
  const std::string doing = what.empty() ? std::string() : " while " + std::string(what);
  // An error without a SQLSTATE is libpq's own, most often a server that went away while a command was
  // being sent; reading what is left of the connection makes libpq mark it lost, so it is said as such.
  if (state.empty()) PQconsumeInput(c_.get());
  if (PQstatus(c_.get()) == CONNECTION_BAD || starts_with(state, "08") || starts_with(state, "57P")) {
    throw PgError("the connection to PostgreSQL database '" + shown_ + "' (" + where() + ") was lost" + doing + ": " +
                      message + ". A transaction is all or nothing: what it was writing is either whole " +
                      "or absent, and running the command again skips what is stored already",
                  state, kExitEnvironment);
  }
  if (state == "42501") {
    throw PgError("PostgreSQL role '" + user() + "' lacks a privilege on database '" + shown_ + "'" + doing + ": " +
                      message + " (README, \"Team history on PostgreSQL\", gives the grants of each role)",
                  state, kExitEnvironment);
  }
  if (state == "55P03") {
    throw PgError("gave up waiting for another writer's transaction on PostgreSQL database '" + shown_ + "'" + doing +
                      " (--busy-timeout or $GPUPERF_DB_BUSY_TIMEOUT sets how long to wait): " + message,
                  state, kExitEnvironment);
  }
  const int code = exit_code_for(state);
  std::string text = "PostgreSQL database '" + shown_ + "'" + doing + ": " + message;
  if (code == kExitUsage && !sql.empty()) text += " (SQLSTATE " + state + ", in: " + std::string(sql) + ")";
  throw PgError(text, state, code);
}

Result Connection::exec(std::string_view sql, const Params& params, std::string_view what) const {
  const auto& v = params.values();
  std::vector<const char*> ptrs(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) ptrs[i] = v[i] ? v[i]->c_str() : nullptr;
  const std::string text(sql);
  PGresult* r = PQexecParams(c_.get(), text.c_str(), static_cast<int>(v.size()), nullptr, ptrs.data(), nullptr, nullptr,
                             /*resultFormat binary*/ 1);
  const ExecStatusType st = r != nullptr ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) fail(r, what, sql);
  return Result(r);
}

void Connection::exec_script(std::string_view sql, std::string_view what) const {
  const std::string text(sql);
  PGresult* r = PQexec(c_.get(), text.c_str());
  const ExecStatusType st = r != nullptr ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) fail(r, what, sql);
  PQclear(r);
}

void Connection::copy_in(std::string_view copy_sql, const std::string& data, std::string_view what) const {
  const std::string text(copy_sql);
  PGresult* r = PQexec(c_.get(), text.c_str());
  if (r == nullptr || PQresultStatus(r) != PGRES_COPY_IN) fail(r, what, copy_sql);
  PQclear(r);
  // In pieces of at most 1 MiB: libpq buffers what it cannot send at once.
  constexpr std::size_t kPiece = 1 << 20;
  bool sent = true;
  for (std::size_t at = 0; at < data.size() && sent; at += kPiece) {
    const std::size_t n = std::min(kPiece, data.size() - at);
    sent = PQputCopyData(c_.get(), data.data() + at, static_cast<int>(n)) == 1;
  }
  if (PQputCopyEnd(c_.get(), sent ? nullptr : "gpuperf: sending rows failed") != 1) sent = false;
  // The COPY's own result, then the end of the command.
  PGresult* done = PQgetResult(c_.get());
  bool ok = done != nullptr && PQresultStatus(done) == PGRES_COMMAND_OK;
  if (!ok) {
    while (PGresult* more = PQgetResult(c_.get())) PQclear(more);
    fail(done, what, copy_sql);
  }
  PQclear(done);
  while (PGresult* more = PQgetResult(c_.get())) {
    ok = PQresultStatus(more) == PGRES_COMMAND_OK;
    if (!ok) fail(more, what, copy_sql);
    PQclear(more);
  }
  if (!sent) fail(nullptr, what, copy_sql);
}

void Connection::copy_out(std::string_view copy_sql, const std::function<void(std::string_view)>& piece,
                          std::string_view what) const {
  const std::string text(copy_sql);
  PGresult* r = PQexec(c_.get(), text.c_str());
  if (r == nullptr || PQresultStatus(r) != PGRES_COPY_OUT) fail(r, what, copy_sql);
  PQclear(r);
  for (;;) {
    char* data = nullptr;
    const int n = PQgetCopyData(c_.get(), &data, 0);  // blocking: waits for the next row
    if (n > 0) {
      // Freed even when `piece` throws (a decoding error, a full disk under the caller).
      std::unique_ptr<char, void (*)(char*)> owned(data, [](char* p) { PQfreemem(p); });
      piece(std::string_view(data, static_cast<std::size_t>(n)));
      continue;
    }
    if (data != nullptr) PQfreemem(data);
    break;  // -1: the COPY is over; -2: it failed (the result below says why)
  }
  // The COPY's own result: COMMAND_OK when every row was sent, else the server's error or the lost
  // connection. An exception from `piece` leaves the connection mid-COPY; the Store is then dropped.
  PGresult* done = PQgetResult(c_.get());
  if (done == nullptr || PQresultStatus(done) != PGRES_COMMAND_OK) {
    while (PGresult* more = PQgetResult(c_.get())) PQclear(more);
    fail(done, what, copy_sql);
  }
  PQclear(done);
  while (PGresult* more = PQgetResult(c_.get())) {
    if (PQresultStatus(more) != PGRES_COMMAND_OK) fail(more, what, copy_sql);
    PQclear(more);
  }
}

Transaction::Transaction(const Connection& c, std::string_view begin) : c_(&c) {
  c.exec_script(begin, "starting a transaction");
}

Transaction::~Transaction() {
  if (done_) return;
  // A failed transaction rolls back; on a lost connection there is nothing left to roll back.
  if (PQstatus(c_->get()) == CONNECTION_OK) PQclear(PQexec(c_->get(), "ROLLBACK"));
}

void Transaction::commit() {
  c_->exec_script("COMMIT", "committing");
  done_ = true;
}

void copy_text_field(std::string& out, const std::string& s) {
  for (char ch : s) {
    switch (ch) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out += ch;
    }
  }
}

}  // namespace gpuperf::db::pg
