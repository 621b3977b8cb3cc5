// A cluster's data folder: initdb once per machine, user and server build into a cached template, then a copy
// per cluster (initdb costs 1.2 CPU seconds, 5 s of wall time on a loaded 2-core machine; the copy a fraction).
// Internal to pg_cluster.cpp.
#pragma once

#include <filesystem>
#include <string>

#include "tests/support/pg_spawn.hpp"

namespace gpuperf::testing::pg_detail {

// initdb into folder/data as the server user: superuser `postgres` with the given password, trust on the
// socket, scram-sha-256 on TCP, UTF8 and the C locale, no fsync. Throws std::runtime_error with initdb's
// output when it fails.
void run_initdb(const ServerUser& user, const std::filesystem::path& bindir, const std::filesystem::path& folder,
                const std::string& superuser_password);

// Fills folder/data (folder owned by the server user): a copy of the cached template, made under a lock by
// the first process that needs it (/tmp/gpuperf-pg-template-<uid>-<key>, key from the server build), or a
// fresh initdb when the environment says GPUPERF_PG_TEMPLATE=0. Throws std::runtime_error.
void make_data_dir(const ServerUser& user, const std::filesystem::path& bindir, const std::filesystem::path& folder,
                   const std::string& superuser_password);

}  // namespace gpuperf::testing::pg_detail
