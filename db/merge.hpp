// Combining the databases of several runners into one history (`gpuperf merge`).
#pragma once

#include <string>
#include <vector>

#include "db/import_export.hpp"

namespace gpuperf::db {

// Every run of every source database, complete with raw samples, in each source's run order. Sources are
// opened read-only and never created or migrated; a missing or foreign file throws InputError naming it.
ParsedFiles read_databases(const std::vector<std::string>& paths);

// Merges `sources` into `into` in one transaction: a run whose uuid `into` already holds is skipped, so
// merging the same file twice (or a database into itself) changes nothing. Machines stay apart by
// fingerprint (the GPU UUID), so each GPU of each runner keeps its own series.
ImportReport merge_databases(Store& into, const std::vector<std::string>& sources);

}  // namespace gpuperf::db
