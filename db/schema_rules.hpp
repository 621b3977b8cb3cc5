// The schema version rules both engines apply, in the same words.
#pragma once

#include <string>

namespace gpuperf::db {

// The schema version this build writes (Store::kSchemaVersion, the number of migrations).
int latest_schema_version();

// InputError for a database whose schema is newer than this build writes: "use a newer gpuperf", and the
// database was not changed. `shown` is the database as display_location shows it.
[[noreturn]] void refuse_newer_schema(const std::string& shown, int version);
// For a read-only open: InputError for a version this build cannot read without migrating.
void check_readable_schema(const std::string& shown, int version);

}  // namespace gpuperf::db
