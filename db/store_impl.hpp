// What the Store's source files share: the connection and row readers. Not a public header.
#pragma once

#include <string>

#include "db/sqlite.hpp"
#include "db/store.hpp"

namespace gpuperf::db {

struct Store::Impl {
  Connection conn;
  Access access;
  std::string path;
  int opened_version = 0;
};

// Reads a summary from columns n, median, mean, min, max, q1, q3, stdev starting at `first`.
Summary read_summary(const Statement& s, int first);
// Reads a machine from columns hostname, gpu_name, gpu_uuid, cc, sm_count, driver, cuda starting at `first`.
Machine read_machine(const Statement& s, int first);

}  // namespace gpuperf::db
