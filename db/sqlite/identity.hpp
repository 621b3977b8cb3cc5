// The SQLite engine's code identities and run environments (schema migration 5): writing a run's, reading them.
#pragma once

#include <cstdint>
#include <map>

#include "core/result.hpp"
#include "db/sqlite/connection.hpp"
#include "db/store.hpp"

namespace gpuperf::db {

// Migration 5's statements (db/sqlite/schema.cpp runs them).
extern const char* const kSqliteIdentityMigration;

// The statements of one write batch, prepared once.
class IdentityWriter {
 public:
  explicit IdentityWriter(Connection& c);
  void write_environment(std::int64_t run_id, const Run& run);
  // Nothing for a result without an identity.
  void write_code(std::int64_t run_id, std::int64_t benchmark_id, const CodeIdentity& code);

 private:
  Statement env_;
  Statement code_;
};

// The environment and code identities of a run. A database below schema 5 (opened read-only) has neither
// table: it gives an empty RunIdentity.
RunIdentity read_identity(const Connection& c, std::int64_t run_id);

}  // namespace gpuperf::db
