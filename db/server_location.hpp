// The forms of a PostgreSQL location, read without libpq: which strings name a server, and how each is
// shown without its password. The engine (db/postgres/) hands the location itself to libpq unchanged.
#pragma once

#include <string>

namespace gpuperf::db::server_location {

// A postgresql:// or postgres:// URI, or a libpq keyword/value string whose first keyword is one libpq
// knows ("host=perf-db dbname=gpuperf", "service=gpuperf"). A path such as "runs=1.db" is not one.
bool is_server(const std::string& location);

// The location without its password: "postgresql://runner:s3cret@perf-db/gpuperf?password=x" becomes
// "postgresql://runner@perf-db/gpuperf", "host=db password='a b' dbname=g" becomes "host=db dbname=g".
std::string redact(const std::string& location);

}  // namespace gpuperf::db::server_location
