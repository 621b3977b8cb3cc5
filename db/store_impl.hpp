// What the Store's source files share: the connection and row readers. Not a public header.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "db/sqlite.hpp"
#include "db/store.hpp"

namespace gpuperf::db {

struct Store::Impl {
  Connection conn;
  Access access;
  std::string path;
  int opened_version = 0;
  // run.command and run.exit_status exist (schema 2): false for a version-1 file opened read-only, whose
  // reads select NULL in their place.
  bool has_recorded_columns = true;
};

// ":memory:" (or an empty path): a database that lives and dies with its connection.
bool is_memory(const std::string& path);
// Opens `path` as `access` asks (db/store_open.cpp): refuses what is not a sound database file, creates a
// missing one whole (read_write), falls back to an immutable read where a reader cannot make the WAL's
// files, and sets the busy wait. `created` (may be null) tells whether this call made the file.
Connection open_connection(const std::string& path, Access access, const OpenOptions& options, bool* created = nullptr);
// Puts the database in WAL mode, retrying within `timeout` while other connections are in transactions.
void enable_wal(Connection& c, std::chrono::milliseconds timeout);

// "r.command, r.exit_status", or two NULLs where the run table has no such columns.
const char* recorded_columns(bool has_recorded_columns);
// Reads Run::command and Run::exit_status from the two columns of recorded_columns() at `first`.
void read_recorded(const Statement& s, int first, std::string& command, std::optional<int>& exit_status);

// Reads a summary from columns n, median, mean, min, max, q1, q3, stdev starting at `first`.
Summary read_summary(const Statement& s, int first);
// Reads a machine from columns hostname, gpu_name, gpu_uuid, cc, sm_count, driver, cuda starting at `first`.
Machine read_machine(const Statement& s, int first);

}  // namespace gpuperf::db
