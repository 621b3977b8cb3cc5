// The store's schema and its numbered migrations.
//
// PRAGMA user_version holds the number of the last migration applied; 0 is an empty file. Migration N
// takes a database at version N-1 to version N. To change the schema, append one function to the list in
// schema.cpp and raise Store::kSchemaVersion: older databases are migrated on their next read-write open.
#pragma once

#include "db/sqlite/connection.hpp"

namespace gpuperf::db::schema {

// The version this build writes (the number of migrations).
int latest_version();

// The database's PRAGMA user_version.
int current_version(const Connection& c);

// True when the database holds tables but no gpuperf schema version (another program's file).
bool has_foreign_tables(const Connection& c);

struct MigrationResult {
  int from = 0, to = 0;
};

// Applies every pending migration in one BEGIN IMMEDIATE transaction (all or nothing). The version is
// re-read inside the transaction, so two processes opening a fresh file at once migrate it once.
// Throws InputError for a version newer than latest_version().
MigrationResult migrate(Connection& c);

}  // namespace gpuperf::db::schema
