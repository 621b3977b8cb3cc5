// The PostgreSQL engine's schema: the same tables, the same numbered migrations as the SQLite engine's
// (db/sqlite/schema.cpp), in PostgreSQL's types. The version is the one row of table schema_version.
#pragma once

#include <cstdint>

#include "db/postgres/connection.hpp"

namespace gpuperf::db::pg::schema {

// The key of the transaction-level advisory lock every gpuperf write takes first (migrations and runs
// alike), so that writers follow one another as they do on an SQLite file: run ids grow in commit order.
constexpr std::int64_t kWriteLock = 0x6770757065726600;  // "gpuperf\0"
// The class of the session locks that hold a keyed run while it is measured (the two-key form, so never
// the write lock's one-key form); the second key is 32 bits of the run's uuid's md5.
constexpr std::int64_t kRunKeyLock = 0x6770726b;  // "gprk"

struct State {
  int version = 0;              // 0: no gpuperf schema
  bool foreign_tables = false;  // tables in the schema, but no schema_version: another program's
};

// What the connection's current schema (search_path) holds.
State read_state(const Connection& c);

struct MigrationResult {
  int from = 0, to = 0;
};

// Applies every pending migration in one transaction under the write lock, re-reading the version inside
// it, so that two processes opening an empty database at once create the schema once. Throws InputError
// for a newer version or another program's tables.
MigrationResult migrate(const Connection& c);

}  // namespace gpuperf::db::pg::schema
