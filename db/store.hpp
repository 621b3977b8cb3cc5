// The results store: the one place runs are written to and read from, on one of two engines.
//
// A path is an SQLite file, the default (db/sqlite/): WAL mode, a busy timeout, writes under BEGIN
// IMMEDIATE, the schema version in PRAGMA user_version, a new file made whole under a temporary name and
// renamed into place. A PostgreSQL connection URI or libpq keyword string (is_server_location) is a
// database on a server (db/postgres/): the schema version in a table of its own, writers serialized by a
// transaction-level advisory lock, samples sent with COPY. On both, a run is written in one transaction and
// becomes visible only when complete, a run whose uuid is stored already is skipped, the schema is advanced
// by the same numbered migrations, and a database from a newer gpuperf is refused untouched. Nothing outside
// db/ knows which engine it has.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/result.hpp"
#include "db/answers.hpp"
#include "db/lock_wait.hpp"
#include "db/store_types.hpp"

namespace gpuperf::db {

class Engine;
struct OpenOptions;

// True when `location` names a PostgreSQL database (a postgresql:// or postgres:// URI, or a libpq keyword
// string such as "host=perf-db dbname=gpuperf"), false for an SQLite path.
bool is_server_location(const std::string& location);
// `location` as it may be shown: a URI or keyword string without its password, a path as it is.
std::string display_location(const std::string& location);
// Whether there may be a database to read at `location`: a file that exists, or any server location (its
// server answers that).
bool location_exists(const std::string& location);
// For a command that measures first and stores after: on a server, connects and checks now that the role
// may store runs (EnvironmentError naming the privilege), so that minutes of measuring are not lost. A file
// is only read (a damaged one is refused now, exit 2) and left alone until the runs are stored: a failed
// measurement leaves no new file.
void check_can_store(const std::string& location, const OpenOptions& options);
// For `ack` and `annotate`: on a server, connects and checks that the role may record a team's answers
// (INSERT on acknowledgement, acknowledgement_undo and annotation: the writer and the admin may, the reader
// may not); InputError (exit 2) naming the privilege, before anything is written. A file is left alone.
void check_can_answer(const std::string& location, const OpenOptions& options);
// `location` for another working directory: a relative path made absolute, a server location as it is.
std::string absolute_location(const std::string& location);

// The shortest prefix of `uuid`, at least `at_least` characters, that no other of `sorted_uuids` (every
// run's uuid, sorted) starts with: Store::run_prefix over a list already read.
std::string unique_prefix(const std::vector<std::string>& sorted_uuids, const std::string& uuid,
                          std::size_t at_least = 8);

class Store {
 public:
  static constexpr int kSchemaVersion = 7;
  // The oldest schema a read-only open reads as it is, without migrating (a copied CI artifact, a file
  // without write permission, a `merge` source): every read names only the columns that version has.
  // Older files are refused with "run `gpuperf db migrate` first".
  static constexpr int kOldestReadableVersion = 1;

  // Opens (and with read_write creates and migrates) the database at `location`: an SQLite path (":memory:"
  // works) or a PostgreSQL URI. Throws InputError for a database that is not gpuperf's, is corrupted, or
  // has a newer schema; EnvironmentError for a location that cannot be opened or written (a server that
  // does not answer, a refused login, a role without the privilege a write needs). A read-only open of an
  // SQLite file in a place where SQLite cannot make its -wal and -shm files (a read-only folder or mount,
  // another user's folder) reads the file as immutable.
  explicit Store(const std::string& location, Access access = Access::read_write, const OpenOptions& options = {});
  ~Store();
  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // The location as it may be shown (display_location): messages and stored fields use this one.
  const std::string& path() const { return shown_; }
  bool on_server() const { return on_server_; }
  int schema_version() const;
  // The schema version the file had when this Store opened it (0 for a new file): `db migrate` reports it.
  int opened_version() const;

  // ---- writes: each is one BEGIN IMMEDIATE transaction, all or nothing ----
  InsertOutcome insert_run(const Run& run);
  std::vector<InsertOutcome> insert_runs(const std::vector<Run>& runs);
  // Throws InputError when no run has this id.
  void set_excluded(std::int64_t run_id, bool excluded, const std::string& reason);
  // Removes the raw samples of runs started before `cutoff` (a stored-form timestamp), keeping every
  // result's summary (PruneReport says what goes); with `dry_run`, only counts. One write transaction.
  PruneReport prune_samples(const std::string& cutoff, bool dry_run);
  // Holds a keyed run's uuid (`gpuperf run --run-key`) while this store stays open, so that two jobs given one
  // key at once (a double-triggered nightly) measure it once. On a server: a session advisory lock; the
  // second job calls `on_wait`, waits until the first has stored the run or ended, then finds the run
  // stored. SQLite: nothing is held; both may measure, and the second insert skips the stored uuid.
  void hold_run_key(const std::string& uuid, const std::function<void()>& on_wait) const;

  // ---- a team's answers (db/answers.hpp); each one write transaction, idempotent on uuid ----
  // Stores `ack` (its ids, reason, link, by, at, accepted; a uuid is made when empty). False when its uuid
  // is stored already. InputError for an empty reason or ids that name nothing.
  bool add_acknowledgement(Acknowledgement ack);
  // Marks acknowledgement `id` undone by `by` at `at` (stored form). False when it was undone already;
  // InputError when no acknowledgement has this id.
  bool undo_acknowledgement(std::int64_t id, const std::string& by, const std::string& at);
  // The acknowledgements `filter` asks for (default: every one, undone ones too), in id order, filtered by the
  // database (empty on a file older than the answers' schema).
  std::vector<Acknowledgement> acknowledgements(const AckFilter& filter = {}) const;
  // Stores `note` (exactly one of run, commit, machine night; non-empty text). False when its uuid is stored.
  bool add_annotation(Annotation note);
  // Every annotation in id order (empty on a file older than the answers' schema).
  std::vector<Annotation> annotations() const;
  // The stored benchmark instances (id, instance) that `ref` names, in any form gpuperf prints one: the display
  // name (name[params]), else the bare name, else a recorded kernel's short form as the tables print it
  // (core/short_name.hpp: folded, with or without [params]). Several: `ref` is ambiguous (the caller lists them).
  std::vector<std::pair<std::int64_t, BenchmarkInstance>> find_benchmarks(const std::string& ref) const;
  // The names of the stored benchmarks, each once: the set a table's short forms tell apart, so that every
  // short form a command prints names one instance when it is given back (find_benchmarks).
  std::vector<std::string> benchmark_names() const;

  // ---- reads ----
  std::vector<MachineRow> machines() const;
  // A machine reference (match_machine) among this store's machines.
  std::optional<MachineRow> find_machine(const std::string& ref) const;
  std::vector<RunInfo> runs(const RunFilter& filter = {}) const;
  // A run reference: a numeric id (or "#12", as compare prints it), a uuid or a unique uuid prefix (>= 8
  // characters), or a commit sha (or prefix of >= 7) meaning that commit's latest run. nullopt when nothing
  // matches; InputError when the reference is ambiguous.
  std::optional<RunInfo> find_run(const std::string& ref) const;
  // The shortest prefix of a stored run's uuid, at least 8 characters, that names that run alone (as git
  // lengthens a short sha): what every table prints, so that it is accepted back.
  std::string run_prefix(const std::string& uuid) const;
  // The newest run of `branch`, optionally on one machine; excluded runs are skipped.
  std::optional<RunInfo> latest_run(const std::string& branch,
                                    std::optional<std::int64_t> machine_id = std::nullopt) const;
  // The whole run in the result model. Throws InputError when no run has this id.
  Run load_run(std::int64_t run_id, bool with_samples = true) const;
  // The whole runs with these ids, each handed to `each` in this order as it is read (Engine::load_runs):
  // the same runs as load_run gives, without holding them all. For export.
  void load_runs(const std::vector<std::int64_t>& run_ids, const std::function<void(Run&&)>& each) const;
  // Series over runs, ordered by (machine, benchmark name, params key, metric), points in run order.
  std::vector<Series> history(const HistoryFilter& filter) const;
  // Every stored metric's traits, in name order.
  std::vector<MetricInfo> metrics() const;
  // The environment and code identities of the run with this id (empty for a run stored before schema 5, and
  // for an id that names no run).
  RunIdentity identity(std::int64_t run_id) const;
  // The source lines of the run with this id that were stored with their text, every result's, in the
  // collector's order: where a run collected away from its sources (its lines without text) finds the text of
  // the same lines (reports/analysis/line_history.hpp). Empty for a file from before source lines.
  std::vector<SourceLine> lines_with_text(std::int64_t run_id) const;

  DbInfo info() const;
  CheckReport check() const;
  // SQLite: copies the database to `dest_path` with VACUUM INTO (a consistent snapshot, safe while others
  // write), through a temporary file beside it (db/new_file.hpp): `dest_path` appears whole or not at all.
  // InputError when it already exists. PostgreSQL: InputError pointing at pg_dump and `gpuperf export`.
  void backup_to(const std::string& dest_path) const;

  Engine& engine() const { return *engine_; }  // for db/'s own code

 private:
  std::unique_ptr<Engine> engine_;
  std::string shown_;
  bool on_server_ = false;
};

// A machine reference, in any form gpuperf prints one: its numeric id, its fingerprint or a prefix of it of
// 8+ characters (`GPU-8f4295e5`, as machine_name shows a GPU uuid), its name as every command prints it
// ("gpu-a (NVIDIA H100, GPU-8f4295e5)"), or a hostname. nullopt when nothing matches; InputError, listing the
// machines, when a hostname or a prefix names several.
std::optional<MachineRow> match_machine(const std::vector<MachineRow>& machines, const std::string& ref);

}  // namespace gpuperf::db
