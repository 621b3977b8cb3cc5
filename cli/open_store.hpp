// How every command opens the store: the --db path, the busy timeout (--busy-timeout, else
// $GPUPERF_DB_BUSY_TIMEOUT, else 10 minutes) and, on a terminal, a line while a write waits for a lock.
#pragma once

#include <string>

#include "cli/context.hpp"
#include "db/store.hpp"

namespace gpuperf::cli {

db::OpenOptions open_options(const Context& ctx);

// The database at `path` (default: ctx.db_path), opened with open_options(ctx).
db::Store open_store(const Context& ctx, db::Access access);
db::Store open_store(const Context& ctx, db::Access access, const std::string& path);

}  // namespace gpuperf::cli
