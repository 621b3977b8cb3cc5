// What the Store's source files share: the connection and row readers. Not a public header.
#pragma once

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

// "r.command, r.exit_status", or two NULLs where the run table has no such columns.
const char* recorded_columns(bool has_recorded_columns);
// Reads Run::command and Run::exit_status from the two columns of recorded_columns() at `first`.
void read_recorded(const Statement& s, int first, std::string& command, std::optional<int>& exit_status);

// Reads a summary from columns n, median, mean, min, max, q1, q3, stdev starting at `first`.
Summary read_summary(const Statement& s, int first);
// Reads a machine from columns hostname, gpu_name, gpu_uuid, cc, sm_count, driver, cuda starting at `first`.
Machine read_machine(const Statement& s, int first);

}  // namespace gpuperf::db
