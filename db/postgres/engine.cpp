// The PostgreSQL engine: opening (and creating, migrating) a gpuperf database on a server, what a role may
// do there, upkeep (info, check, backup) and machines.
#include "db/postgres/engine.hpp"

#include <vector>

#include "db/postgres/schema.hpp"
#include "db/schema_rules.hpp"

namespace gpuperf::db {

namespace pg {
namespace {

// The tables a run is written to, and what a writer needs on each (machine and benchmark rows are
// refreshed by later runs).
struct TableGrant {
  const char* table;
  const char* privileges;
};
constexpr TableGrant kWriterGrants[] = {
    {"machine", "INSERT, UPDATE"}, {"run", "INSERT"},     {"benchmark", "INSERT, UPDATE"},
    {"metric", "INSERT"},          {"outcome", "INSERT"}, {"result", "INSERT"},
    {"sample", "INSERT"},
};

// Refuses a read-write open by a role that cannot store a run, before the command measures anything.
void check_writer(const Connection& c) {
  std::vector<std::string> tables, privileges;
  for (const TableGrant& g : kWriterGrants) {
    const std::string list = g.privileges;
    for (std::size_t at = 0; at < list.size();) {
      std::size_t comma = list.find(", ", at);
      if (comma == std::string::npos) comma = list.size();
      tables.push_back(g.table);
      privileges.push_back(list.substr(at, comma - at));
      at = comma + 2;
    }
  }
  // One round trip: every table and privilege at once, in the list's order.
  Result r = c.exec(
      "SELECT t.tbl, t.priv, has_table_privilege(t.tbl, t.priv) FROM unnest($1::text[], $2::text[]) "
      "WITH ORDINALITY AS t(tbl, priv, n) ORDER BY t.n",
      Params().add(array_literal(tables)).add(array_literal(privileges)), "checking the role's privileges");
  std::string missing;
  for (int i = 0; i < r.rows(); ++i) {
    if (!r.boolean(i, 2)) missing += (missing.empty() ? "" : ", ") + r.text(i, 1) + " on table " + r.text(i, 0);
  }
  // The identities' sequences: inserting a row takes the next id.
  Result seq = c.exec(
      "SELECT bool_and(has_sequence_privilege(pg_get_serial_sequence(t, 'id'), 'USAGE')) "
      "FROM unnest(ARRAY['machine', 'run', 'benchmark', 'metric', 'result']) AS t",
      {}, "checking the role's privileges");
  if (!seq.boolean(0, 0)) missing += std::string(missing.empty() ? "" : ", ") + "USAGE on the tables' id sequences";
  if (missing.empty()) return;
  throw PgError("PostgreSQL role '" + c.user() + "' may not store runs in '" + c.shown() + "': it lacks " + missing +
                    " (docs/postgresql.md, \"Setting up the server\", gives the writer role's grants); nothing "
                    "was measured or stored",
                "42501", kExitEnvironment);
}

// Migrates an older schema (version 0: creates it); returns the version it had.
int migrate_as_owner(const Connection& c, int version) {
  try {
    return schema::migrate(c).from;
  } catch (const PgError& e) {
    if (e.sqlstate() != "42501") throw;
    // Creating or altering the tables needs their owner (or CREATE on the schema for the first ones): a
    // writer or reader role meets an older schema after a gpuperf upgrade, before the admin migrated.
    const std::string what = version == 0 ? "creating gpuperf's tables in" : "migrating the schema of";
    throw PgError("PostgreSQL role '" + c.user() + "' may not write to '" + c.shown() + "': " + what +
                      " it (schema version " + std::to_string(version) + ", this gpuperf writes " +
                      std::to_string(latest_schema_version()) + ") needs the owner of gpuperf's tables: run " +
                      "`gpuperf db migrate` as the admin role (docs/postgresql.md, \"Setting up the server\"); " +
                      "nothing was measured or stored. The server said: " + e.what(),
                  "42501", kExitEnvironment);
  }
}

}  // namespace

std::string recorded_columns(int version) {
  return std::string("r.command, r.exit_status") +
         (version >= 4 ? ", r.rank, r.local_rank, r.world_size" : ", NULL::integer, NULL::integer, NULL::integer");
}

PgEngine::PgEngine(Connection conn, Access access, int opened_version, int readable_version, const OpenOptions& options)
    : conn_(std::move(conn)),
      access_(access),
      opened_version_(opened_version),
      readable_version_(readable_version),
      busy_timeout_(options.busy_timeout.value_or(default_busy_timeout())) {}

int PgEngine::schema_version() const { return schema::read_state(conn_).version; }

void PgEngine::begin_write(Transaction&) const {
  // A writer waits for the one before it as long as an SQLite writer would for a file's lock.
  conn_.exec("SELECT set_config('lock_timeout', $1, true)",
             Params().add(std::to_string(std::max<std::int64_t>(busy_timeout_.count(), 1)) + "ms"),
             "setting the lock timeout");
  conn_.exec("SELECT pg_advisory_xact_lock($1)", Params().add(schema::kWriteLock), "waiting for other writers");
}

bool PgEngine::set_excluded(std::int64_t run_id, bool excluded, const std::string& reason) {
  // Excluding is the admin's job (docs/postgresql.md): a writer is refused naming the privilege, before the
  // write lock is taken, rather than with the server's bare "permission denied for table run".
  if (!conn_.exec("SELECT has_table_privilege('run', 'UPDATE')", {}, "checking the role's privileges").boolean(0, 0)) {
    throw PgError("PostgreSQL role '" + conn_.user() + "' may not " + (excluded ? "exclude" : "include") +
                      " runs in '" + conn_.shown() + "': it lacks UPDATE on table run (excluding and including " +
                      "runs is the admin role's; docs/postgresql.md, \"Setting up the server\"); nothing was changed",
                  "42501", kExitEnvironment);
  }
  Transaction tx(conn_);
  begin_write(tx);
  Result r = conn_.exec("UPDATE run SET excluded = $1, exclude_reason = $2 WHERE id = $3 RETURNING id",
                        Params().add(excluded).add(reason).add(run_id), "excluding a run");
  if (r.rows() == 0) return false;
  tx.commit();
  return true;
}

PruneReport PgEngine::prune_samples(const std::string& cutoff, bool dry_run) {
  PruneReport rep;
  rep.cutoff = cutoff;
  rep.dry_run = dry_run;
  if (!dry_run && !conn_.exec("SELECT has_table_privilege('sample', 'DELETE')", {}, "checking the role's privileges")
                       .boolean(0, 0)) {
    throw PgError("PostgreSQL role '" + conn_.user() + "' may not prune samples in '" + conn_.shown() +
                      "': it lacks DELETE on table sample (pruning is the admin role's; docs/postgresql.md); "
                      "nothing was changed",
                  "42501", kExitEnvironment);
  }
  Transaction tx(conn_);
  if (!dry_run) begin_write(tx);
  Result r = conn_.exec(
      "SELECT count(DISTINCT res.run_id), count(DISTINCT res.id), count(*), (SELECT count(*) FROM sample), "
      "pg_total_relation_size('sample') FROM run r JOIN result res ON res.run_id = r.id "
      "JOIN sample s ON s.result_id = res.id WHERE r.started_at < $1 AND res.n > 1",
      Params().add(cutoff), "counting the samples to prune");
  rep.runs = r.int64(0, 0);
  rep.results = r.int64(0, 1);
  rep.samples = r.int64(0, 2);
  const std::int64_t total = r.int64(0, 3);
  rep.samples_left = total - rep.samples;
  if (total > 0) {
    rep.bytes = static_cast<std::int64_t>(static_cast<double>(r.int64(0, 4)) * static_cast<double>(rep.samples) /
                                          static_cast<double>(total));
  }
  if (dry_run || rep.samples == 0) return rep;
  conn_.exec(
      "DELETE FROM sample s USING run r, result res WHERE r.started_at < $1 AND res.run_id = r.id AND res.n > 1 "
      "AND s.result_id = res.id",
      Params().add(cutoff), "pruning samples");
  tx.commit();
  return rep;
}

void PgEngine::hold_run_key(const std::string& uuid, const std::function<void()>& on_wait) const {
  // A session lock: held until this connection closes, when the run is stored or the job has ended (a job
  // killed mid-measurement releases it with its connection, and the one waiting measures instead).
  const char* lock_args = "$1::int4, ('x' || substr(md5($2), 1, 8))::bit(32)::int4";
  const Params key = Params().add(schema::kRunKeyLock).add(uuid);
  if (conn_.exec(std::string("SELECT pg_try_advisory_lock(") + lock_args + ")", key, "claiming the run key")
          .boolean(0, 0)) {
    return;
  }
  on_wait();
  // As long as the other job's measurement takes: the CI system's job timeout bounds it, not --busy-timeout.
  conn_.exec("SELECT set_config('lock_timeout', '0', false)", {}, "waiting for the run key");
  conn_.exec(std::string("SELECT pg_advisory_lock(") + lock_args + ")", key, "waiting for the run key");
}

std::vector<MachineRow> PgEngine::machines() const {
  Result r = conn_.exec(
      "SELECT id, fingerprint, hostname, gpu_name, gpu_uuid, cc, sm_count, driver, cuda FROM machine ORDER BY id", {},
      "reading machines");
  std::vector<MachineRow> out;
  for (int i = 0; i < r.rows(); ++i) {
    MachineRow m;
    m.id = r.int64(i, 0);
    m.fingerprint = r.text(i, 1);
    m.machine.hostname = r.text(i, 2);
    m.machine.gpu_name = r.text(i, 3);
    m.machine.gpu_uuid = r.text(i, 4);
    m.machine.cc = r.text(i, 5);
    m.machine.sm_count = r.int64(i, 6);
    m.machine.driver = r.text(i, 7);
    m.machine.cuda = r.text(i, 8);
    out.push_back(std::move(m));
  }
  return out;
}

DbInfo PgEngine::info() const {
  DbInfo d;
  d.engine = "postgresql";
  d.schema_version = schema_version();
  d.supported_version = latest_schema_version();
  Result r = conn_.exec(
      "SELECT (SELECT count(*) FROM machine), (SELECT count(*) FROM run), (SELECT count(*) FROM benchmark), "
      "(SELECT count(*) FROM metric), (SELECT count(*) FROM result), (SELECT count(*) FROM sample), "
      "(SELECT sum(pg_total_relation_size(t::regclass)) FROM unnest(ARRAY['machine', 'run', 'benchmark', "
      "'metric', 'outcome', 'result', 'sample', 'schema_version']) AS t)::bigint, current_setting('server_version')",
      {}, "reading the database's size");
  d.machines = r.int64(0, 0);
  d.runs = r.int64(0, 1);
  d.benchmarks = r.int64(0, 2);
  d.metrics = r.int64(0, 3);
  d.results = r.int64(0, 4);
  d.samples = r.int64(0, 5);
  d.file_bytes = r.int64(0, 6);
  d.journal_mode = "server " + r.text(0, 7) + ", " + conn_.where();
  return d;
}

CheckReport PgEngine::check() const {
  // The server keeps its own pages whole (checksums, WAL); what gpuperf can check is that its schema is
  // there and that no row lost what it refers to, which constraints guarantee unless someone dropped them.
  CheckReport rep;
  rep.checked = "the schema version and the rows' references";
  try {
    const schema::State s = schema::read_state(conn_);
    if (s.version != latest_schema_version()) {
      rep.problems.push_back("schema version " + std::to_string(s.version) + ", this gpuperf writes " +
                             std::to_string(latest_schema_version()));
    }
    struct Orphans {
      const char* what;
      const char* sql;
    };
    const Orphans checks[] = {
        {"run rows whose machine is missing",
         "SELECT count(*) FROM run r WHERE NOT EXISTS (SELECT 1 FROM machine m WHERE m.id = r.machine_id)"},
        {"outcome rows whose run is missing",
         "SELECT count(*) FROM outcome o WHERE NOT EXISTS (SELECT 1 FROM run r WHERE r.id = o.run_id)"},
        {"result rows whose outcome is missing",
         "SELECT count(*) FROM result x WHERE NOT EXISTS (SELECT 1 FROM outcome o WHERE o.run_id = x.run_id AND "
         "o.benchmark_id = x.benchmark_id)"},
        {"sample rows whose result is missing",
         "SELECT count(*) FROM sample s WHERE NOT EXISTS (SELECT 1 FROM result x WHERE x.id = s.result_id)"},
        {"result rows whose sample count differs from n",
         "SELECT count(*) FROM result x WHERE EXISTS (SELECT 1 FROM sample s WHERE s.result_id = x.id) AND "
         "x.n <> (SELECT count(*) FROM sample s WHERE s.result_id = x.id)"},
    };
    for (const Orphans& o : checks) {
      const std::int64_t n = conn_.exec(o.sql, {}, "checking the database").int64(0, 0);
      if (n > 0) rep.problems.push_back(std::to_string(n) + " " + o.what);
    }
  } catch (const Error& e) {
    rep.problems.push_back(std::string("the check itself failed: ") + e.what());
  }
  rep.ok = rep.problems.empty();
  return rep;
}

void PgEngine::backup_to(const std::string& dest_path) const {
  throw InputError("'" + conn_.shown() + "' is a PostgreSQL database: back it up with the server's own tools (" +
                   "pg_dump -Fc, as its admin does for any database), or write an interchange copy of its runs " +
                   "with `gpuperf export --out " + dest_path + "`");
}

}  // namespace pg

std::unique_ptr<Engine> open_postgres(const std::string& location, Access access, const OpenOptions& options) {
  pg::Connection c(location, display_location(location));
  if (access == Access::read_only) c.exec_script("SET default_transaction_read_only = on", "setting up the session");
  const pg::schema::State state = pg::schema::read_state(c);
  if (state.version > latest_schema_version()) refuse_newer_schema(c.shown(), state.version);
  int opened = state.version;
  if (access == Access::read_only) {
    if (state.version == 0) {
      throw InputError("PostgreSQL database '" + c.shown() + "' is " +
                       (state.foreign_tables ? std::string("not a gpuperf database (it has tables but no gpuperf "
                                                           "schema_version: it belongs to another program)")
                                             : std::string("empty, not a gpuperf database yet (a command that "
                                                           "writes, such as `gpuperf import`, makes it one)")));
    }
    // A reader reads schema 2 as it is (its reads of a run skip the source-line tables of schema 3 where they
    // are missing, and select NULL for schema 4's rank columns); older schemas need the admin's `db migrate`
    // (their reads would name missing columns).
    constexpr int kOldestReadable = 2;
    if (state.version < kOldestReadable) {
      throw InputError("PostgreSQL database '" + c.shown() + "' has schema version " + std::to_string(state.version) +
                       "; this gpuperf reads " + std::to_string(kOldestReadable) + " to " +
                       std::to_string(latest_schema_version()) + ": run `gpuperf db migrate` first");
    }
  } else {
    if (state.version < latest_schema_version()) opened = pg::migrate_as_owner(c, state.version);
    pg::check_writer(c);
  }
  const int readable = access == Access::read_write ? latest_schema_version() : state.version;
  return std::make_unique<pg::PgEngine>(std::move(c), access, opened, readable, options);
}

}  // namespace gpuperf::db
