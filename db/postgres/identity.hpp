// The PostgreSQL engine's code identities and run environments (schema migration 5, as db/sqlite/identity.cpp
// describes it): a write batch gathers the rows for COPY beside its outcomes; a run's are read in two queries.
#pragma once

#include <cstdint>
#include <string>

#include "core/result.hpp"
#include "db/postgres/connection.hpp"
#include "db/store.hpp"

namespace gpuperf::db::pg {

// Migration 5's statements.
extern const char* const kIdentityMigration;

class IdentityRows {
 public:
  void add_environment(std::int64_t run_id, const Run& run);
  // Nothing for a result without an identity.
  void add_code(std::int64_t run_id, std::int64_t benchmark_id, const CodeIdentity& code);
  // Sends what was gathered; call after the runs and outcomes are sent (the rows' foreign keys).
  void flush(const Connection& c);
  std::size_t bytes() const { return environment_.size() + code_.size(); }

 private:
  std::string environment_, code_;  // COPY text format
};

// The environment and code identities of a run; empty below schema 5 (a database opened read-only).
RunIdentity read_identity(const Connection& c, std::int64_t run_id);

}  // namespace gpuperf::db::pg
