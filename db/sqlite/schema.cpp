#include "db/sqlite/schema.hpp"

#include <string>

#include "db/schema_rules.hpp"
#include "db/sqlite/identity.hpp"
#include "db/store.hpp"

namespace gpuperf::db::schema {
namespace {

using Migration = void (*)(Connection&);

// Migration 1: the initial schema.
//
// A series is (machine, benchmark instance, metric). `outcome` holds the disposition of a benchmark
// instance in a run (it may have no metric rows, e.g. `incorrect`); `result` one metric of it with the
// summary of its samples; `sample` the raw values. Text columns are NOT NULL with '' for "unknown" so
// comparisons never meet NULL. Times are ISO 8601 UTC strings, so text order is time order.
void migration_1_initial(Connection& c) {
  c.exec(R"sql(
CREATE TABLE machine(
  id          INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,          -- GPU UUID when known, else hostname/gpu_name
  hostname    TEXT NOT NULL DEFAULT '',
  gpu_name    TEXT NOT NULL DEFAULT '',
  gpu_uuid    TEXT NOT NULL DEFAULT '',
  cc          TEXT NOT NULL DEFAULT '',
  sm_count    INTEGER NOT NULL DEFAULT 0,
  driver      TEXT NOT NULL DEFAULT '',      -- of the latest run written
  cuda        TEXT NOT NULL DEFAULT ''
);

CREATE TABLE run(
  id             INTEGER PRIMARY KEY,
  uuid           TEXT NOT NULL UNIQUE,
  machine_id     INTEGER NOT NULL REFERENCES machine(id),
  started_at     TEXT NOT NULL,
  finished_at    TEXT NOT NULL DEFAULT '',
  commit_sha     TEXT NOT NULL DEFAULT '',
  branch         TEXT NOT NULL DEFAULT '',
  label          TEXT NOT NULL DEFAULT '',
  tool_version   TEXT NOT NULL DEFAULT '',
  status         TEXT NOT NULL CHECK(status IN ('ok','incorrect','failed','unsupported','skipped')),
  excluded       INTEGER NOT NULL DEFAULT 0 CHECK(excluded IN (0,1)),
  exclude_reason TEXT NOT NULL DEFAULT '',
  -- the machine as it was during this run (a driver update keeps the machine's series)
  hostname       TEXT NOT NULL DEFAULT '',
  driver         TEXT NOT NULL DEFAULT '',
  cuda           TEXT NOT NULL DEFAULT ''
);
CREATE INDEX run_by_machine ON run(machine_id, started_at, id);
CREATE INDEX run_by_branch ON run(branch, started_at, id);
CREATE INDEX run_by_commit ON run(commit_sha);

CREATE TABLE benchmark(
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,                 -- family/variant
  params_json TEXT NOT NULL DEFAULT '{}',
  params_key  TEXT NOT NULL DEFAULT '',      -- canonical "n=1024,tile=16"
  baseline    TEXT NOT NULL DEFAULT '',      -- the family baseline it pairs with (as last written)
  UNIQUE(name, params_key)
);

CREATE TABLE metric(
  id               INTEGER PRIMARY KEY,
  name             TEXT NOT NULL UNIQUE,
  unit             TEXT NOT NULL DEFAULT '',
  higher_is_better INTEGER NOT NULL DEFAULT 0 CHECK(higher_is_better IN (0,1)),
  deterministic    INTEGER NOT NULL DEFAULT 0 CHECK(deterministic IN (0,1))
);

CREATE TABLE outcome(
  run_id       INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  benchmark_id INTEGER NOT NULL REFERENCES benchmark(id),
  seq          INTEGER NOT NULL,             -- position of the instance in its run
  status       TEXT NOT NULL CHECK(status IN ('ok','incorrect','failed','unsupported','skipped')),
  message      TEXT NOT NULL DEFAULT '',
  PRIMARY KEY(run_id, benchmark_id)
) WITHOUT ROWID;
CREATE INDEX outcome_by_benchmark ON outcome(benchmark_id);

CREATE TABLE result(
  id           INTEGER PRIMARY KEY,
  run_id       INTEGER NOT NULL,
  benchmark_id INTEGER NOT NULL,
  metric_id    INTEGER NOT NULL REFERENCES metric(id),
  seq          INTEGER NOT NULL,             -- position of the metric in its instance
  status       TEXT NOT NULL CHECK(status IN ('ok','incorrect','failed','unsupported','skipped')),
  message      TEXT NOT NULL DEFAULT '',
  n            INTEGER NOT NULL,
  median REAL, mean REAL, min REAL, max REAL, q1 REAL, q3 REAL, stdev REAL,  -- NULL when n = 0
  UNIQUE(run_id, benchmark_id, metric_id),
  FOREIGN KEY(run_id, benchmark_id) REFERENCES outcome(run_id, benchmark_id) ON DELETE CASCADE
);
-- history(): one series is (benchmark, metric) filtered by the run's machine
CREATE INDEX result_by_series ON result(benchmark_id, metric_id, run_id);
CREATE INDEX result_by_metric ON result(metric_id);

CREATE TABLE sample(
  result_id    INTEGER NOT NULL REFERENCES result(id) ON DELETE CASCADE,
  idx          INTEGER NOT NULL,             -- measurement order
  value        REAL NOT NULL,                -- in the metric's unit
  sm_clock_mhz REAL,                         -- NULL when not recorded
  PRIMARY KEY(result_id, idx)
) WITHOUT ROWID;
)sql");
}

// Migration 2: a run recorded from an unmodified program (`gpuperf record -- APP ARGS`) keeps the program's
// command line and how it ended (>= 0 exit code, < 0 minus the signal). NULL, not migration 1's '', means
// "not a recorded run": 0 is a real exit status, and `command IS NOT NULL` tells recorded runs apart.
// ADD COLUMN with no default only rewrites the schema text, not the rows, so it is quick on a large file.
// Reads of a database opened read-only at version 1 must not name these columns (store_read.cpp).
void migration_2_recorded_runs(Connection& c) {
  c.exec(R"sql(
ALTER TABLE run ADD COLUMN command TEXT;         -- as typed, arguments quoted for a POSIX shell
ALTER TABLE run ADD COLUMN exit_status INTEGER;  -- exit code, or minus the signal that killed it
)sql");
}

// Migration 3: a result's source lines (core/source_lines.hpp), kept to the bound of db/source_lines.hpp.
// `outcome_source` holds the SourceLines head of an outcome whose source-line pass ran (a result without a
// row was never asked for lines: status skipped); `source_line` its kept lines in the collector's order.
// Both hang off the outcome, so deleting a run deletes its lines. Counters are per launch; 0 where the
// chip does not count it. A version-2 file opened read-only has neither table: its reads skip them
// (db/sqlite/source_lines.cpp).
void migration_3_source_lines(Connection& c) {
  c.exec(R"sql(
CREATE TABLE outcome_source(
  run_id       INTEGER NOT NULL,
  benchmark_id INTEGER NOT NULL,
  status       TEXT NOT NULL CHECK(status IN ('ok','incorrect','failed','unsupported','skipped')),
  message      TEXT NOT NULL DEFAULT '',
  launches     INTEGER NOT NULL DEFAULT 0,   -- instrumented launches the counters were divided by
  lines_total  INTEGER NOT NULL DEFAULT 0,   -- lines the kernel had before the bound kept the heaviest
  PRIMARY KEY(run_id, benchmark_id),
  FOREIGN KEY(run_id, benchmark_id) REFERENCES outcome(run_id, benchmark_id) ON DELETE CASCADE
) WITHOUT ROWID;

CREATE TABLE source_line(
  run_id       INTEGER NOT NULL,
  benchmark_id INTEGER NOT NULL,
  idx          INTEGER NOT NULL,             -- the collector's order
  file         TEXT NOT NULL DEFAULT '',     -- '' and line 0 without line info (then sass_offset is the key)
  line         INTEGER NOT NULL DEFAULT 0,
  function     TEXT NOT NULL DEFAULT '',
  sass_offset  INTEGER NOT NULL DEFAULT -1,  -- bytes
  text         TEXT NOT NULL DEFAULT '',     -- the line's source, '' when it was not readable
  inst_executed REAL NOT NULL, thread_inst_executed REAL NOT NULL,
  global_ld_requests REAL NOT NULL, global_st_requests REAL NOT NULL,
  global_ld_sectors REAL NOT NULL, global_ld_sectors_ideal REAL NOT NULL,
  global_st_sectors REAL NOT NULL, global_st_sectors_ideal REAL NOT NULL,
  shared_wavefronts REAL NOT NULL, shared_wavefronts_ideal REAL NOT NULL,
  local_sectors REAL NOT NULL,
  PRIMARY KEY(run_id, benchmark_id, idx),
  FOREIGN KEY(run_id, benchmark_id) REFERENCES outcome_source(run_id, benchmark_id) ON DELETE CASCADE
) WITHOUT ROWID;
)sql");
}

// Migration 4: a recorded process's place in a distributed job (Run::rank, local_rank, world_size, from the
// RANK, LOCAL_RANK and WORLD_SIZE its launcher set). NULL: a benchmark run, or a process that was not part of
// one. Each column checks its own range; rank < world_size is checked before a write (db/run_rules.cpp), as an
// ADD COLUMN cannot add a constraint between two columns. Like migration 2 it rewrites only the schema text.
// A version-3 file opened read-only has none of them: its reads select NULL in their place.
void migration_4_ranks(Connection& c) {
  c.exec(R"sql(
ALTER TABLE run ADD COLUMN rank INTEGER CHECK(rank >= 0);              -- RANK: 0 .. world_size - 1
ALTER TABLE run ADD COLUMN local_rank INTEGER CHECK(local_rank >= 0);  -- LOCAL_RANK: the rank on its host
ALTER TABLE run ADD COLUMN world_size INTEGER CHECK(world_size >= 1);  -- WORLD_SIZE: processes in the job
)sql");
}

// Migration 5: a run's environment and each result's code identity (db/sqlite/identity.cpp says why so).
// A version-4 file opened read-only has neither table: its reads give no identity.
void migration_5_identity(Connection& c) { c.exec(kSqliteIdentityMigration); }

// Migration 6: where a source line's code was inlined. A line inside an inlined __device__ helper names the
// helper's file and line, and these the kernel's own line that calls it (core/source_lines.hpp); '' and 0 for the
// kernel's own code and for every line stored before. A file of an older version opened read-only has neither
// column: its reads select '' and 0 in their place (db/sqlite/source_lines.cpp).
void migration_6_inlined_call_sites(Connection& c) {
  c.exec(R"sql(
ALTER TABLE source_line ADD COLUMN inlined_at_file TEXT NOT NULL DEFAULT '';
ALTER TABLE source_line ADD COLUMN inlined_at_line INTEGER NOT NULL DEFAULT 0 CHECK(inlined_at_line >= 0);
)sql");
}

// Migration 7 ("answers"): a team's answers beside the history (db/answers.hpp). An acknowledgement names a
// series and the run where its step starts; undoing one adds a row to acknowledgement_undo rather than
// changing it, so a writer role needs INSERT only and the history keeps who said what. An annotation is on
// exactly one of a run, a commit or a machine's night. Both are idempotent on uuid (import, merge). New tables
// only: a file of an older version opened read-only has none, and its reads of answers are empty.
void migration_7_answers(Connection& c) {
  c.exec(R"sql(
CREATE TABLE acknowledgement(
  id           INTEGER PRIMARY KEY,
  uuid         TEXT NOT NULL UNIQUE,
  machine_id   INTEGER NOT NULL REFERENCES machine(id),
  benchmark_id INTEGER NOT NULL REFERENCES benchmark(id),
  metric_id    INTEGER NOT NULL REFERENCES metric(id),
  run_id       INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,  -- the first run at the new level
  reason       TEXT NOT NULL CHECK(reason <> ''),
  link         TEXT NOT NULL DEFAULT '',
  acked_by     TEXT NOT NULL DEFAULT '',
  acked_at     TEXT NOT NULL,
  accepted     INTEGER NOT NULL DEFAULT 0 CHECK(accepted IN (0,1))  -- the step is the new baseline
);
CREATE INDEX acknowledgement_by_series ON acknowledgement(machine_id, benchmark_id, metric_id);

CREATE TABLE acknowledgement_undo(
  ack_id    INTEGER PRIMARY KEY REFERENCES acknowledgement(id) ON DELETE CASCADE,
  undone_by TEXT NOT NULL DEFAULT '',
  undone_at TEXT NOT NULL
);

CREATE TABLE annotation(
  id         INTEGER PRIMARY KEY,
  uuid       TEXT NOT NULL UNIQUE,
  run_id     INTEGER REFERENCES run(id) ON DELETE CASCADE,
  commit_sha TEXT NOT NULL DEFAULT '',
  machine_id INTEGER REFERENCES machine(id),
  night      TEXT NOT NULL DEFAULT '',     -- YYYY-MM-DD, UTC, with machine_id
  text       TEXT NOT NULL CHECK(text <> ''),
  noted_by   TEXT NOT NULL DEFAULT '',
  noted_at   TEXT NOT NULL,
  CHECK((run_id IS NOT NULL) + (commit_sha <> '') + (night <> '') = 1),
  CHECK((night <> '') = (machine_id IS NOT NULL))
);
)sql");
}

// Append the next migration here (and raise Store::kSchemaVersion).
constexpr Migration kMigrations[] = {
    migration_1_initial,  migration_2_recorded_runs,      migration_3_source_lines, migration_4_ranks,
    migration_5_identity, migration_6_inlined_call_sites, migration_7_answers,
};
constexpr int kLatest = static_cast<int>(sizeof kMigrations / sizeof kMigrations[0]);
static_assert(kLatest == Store::kSchemaVersion, "Store::kSchemaVersion must equal the number of migrations");

}  // namespace

int latest_version() { return kLatest; }

int current_version(const Connection& c) { return static_cast<int>(query_int(c, "PRAGMA user_version")); }

bool has_foreign_tables(const Connection& c) {
  return query_int(c, "SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'") > 0;
}

MigrationResult migrate(Connection& c) {
  Transaction tx(c, Transaction::Mode::immediate);
  MigrationResult r;
  r.from = r.to = current_version(c);
  if (r.from > kLatest) refuse_newer_schema(c.path(), r.from);
  if (r.from == kLatest) return r;  // nothing to do: the transaction rolls back, writing nothing
  if (r.from == 0 && has_foreign_tables(c)) {
    throw InputError("'" + c.path() +
                     "' is an SQLite database of another program (it has tables but no "
                     "gpuperf schema version); refusing to add gpuperf's tables to it");
  }
  for (int v = r.from; v < kLatest; ++v) kMigrations[v](c);
  c.exec("PRAGMA user_version = " + std::to_string(kLatest));
  tx.commit();
  r.to = kLatest;
  return r;
}

}  // namespace gpuperf::db::schema
