// How every command opens the store: the --db path, the busy timeout (--busy-timeout, else
// $GPUPERF_DB_BUSY_TIMEOUT, else 10 minutes) and, on a terminal, a line while a write waits for a lock.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli/context.hpp"
#include "core/result.hpp"
#include "db/store.hpp"

namespace gpuperf::cli {

db::OpenOptions open_options(const Context& ctx);

// The --db location as messages show it: a server URI without its password.
std::string shown_db(const Context& ctx);

// The database at `path` (default: ctx.db_path), opened with open_options(ctx).
db::Store open_store(const Context& ctx, db::Access access);
db::Store open_store(const Context& ctx, db::Access access, const std::string& path);

// The database for a command that changes what is there and has nothing to create (runs exclude/include,
// db migrate): InputError, and no file made, when an SQLite path names nothing (a mistyped --db).
db::Store open_existing_store(const Context& ctx);

// InputError when no stored run has this branch (a misspelt --branch reads as "no runs", not as "nothing
// happened"), as detect, report and export refuse it.
void require_branch(const db::Store& store, const std::string& branch);

// The stored run `ref` names (db::Store::find_run); InputError saying what a reference may be when none.
db::RunInfo resolve_run(const db::Store& store, const std::string& ref);

// For a command that measures first and stores after: on a server, connects and checks now that the role
// may store runs (db::check_can_store), so that a refused login or a reader role fails before minutes of
// measuring (exit 3).
void check_store_writable(const Context& ctx);

// The one way a command's runs reach the database, measured (run, check) or recorded (record, check
// --record): all of `runs` in one transaction, then, unless --quiet, a line per run on stderr: "stored run
// UUID (id N<detail>) in DB", `detail(run)` saying what follows the id (", 33 instances"). Their ids, in order.
std::vector<std::int64_t> store_runs(const Context& ctx, db::Store& store, const std::vector<Run>& runs,
                                     const std::function<std::string(const Run&)>& detail = {});

}  // namespace gpuperf::cli
