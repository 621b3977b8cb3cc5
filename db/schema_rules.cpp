#include "db/schema_rules.hpp"

#include "core/errors.hpp"
#include "db/store.hpp"

namespace gpuperf::db {

int latest_schema_version() { return Store::kSchemaVersion; }

void refuse_newer_schema(const std::string& shown, int version) {
  throw InputError("database '" + shown + "' has schema version " + std::to_string(version) +
                   ", newer than this gpuperf supports (" + std::to_string(Store::kSchemaVersion) +
                   "); use a newer gpuperf. The database was not changed.");
}

void check_readable_schema(const std::string& shown, int version) {
  if (version > Store::kSchemaVersion) refuse_newer_schema(shown, version);
  if (version < Store::kOldestReadableVersion) {
    throw InputError("database '" + shown + "' has schema version " + std::to_string(version) +
                     "; this gpuperf reads " + std::to_string(Store::kOldestReadableVersion) + " to " +
                     std::to_string(Store::kSchemaVersion) + ": run `gpuperf db migrate` first");
  }
}

}  // namespace gpuperf::db
