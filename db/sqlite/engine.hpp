// The SQLite engine: a results database in one file. What its source files share: the connection and row
// readers. Not a public header: outside db/, only the SQLite engine's own tests include it.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "db/engine.hpp"
#include "db/sqlite/connection.hpp"
#include "db/sqlite/verified_stamp.hpp"
#include "db/store.hpp"

namespace gpuperf::db {

class SqliteEngine final : public Engine {
 public:
  // `stamp_full_check_at`: a writer that verified the file (db/sqlite/verified_stamp.hpp) stamps it when it
  // closes, with the time of the last full check of its pages.
  SqliteEngine(Connection conn, Access access, std::string path, int opened_version, int readable_version,
               std::optional<std::int64_t> stamp_full_check_at = std::nullopt)
      : stamp_(path, stamp_full_check_at),
        conn_(std::move(conn)),
        access_(access),
        path_(std::move(path)),
        opened_version_(opened_version),
        readable_version_(readable_version) {}

  int schema_version() const override;
  int opened_version() const override { return opened_version_; }
  std::vector<InsertOutcome> insert_runs(const std::vector<const Run*>& runs) override;
  bool set_excluded(std::int64_t run_id, bool excluded, const std::string& reason) override;
  PruneReport prune_samples(const std::string& cutoff, bool dry_run) override;
  // Nothing to hold: an SQLite file's jobs share one machine, and the insert skips a uuid stored already.
  void hold_run_key(const std::string&, const std::function<void()>&) const override {}
  bool add_acknowledgement(const Acknowledgement& ack) override;
  int undo_acknowledgement(std::int64_t id, const std::string& by, const std::string& at) override;
  std::vector<Acknowledgement> acknowledgements(const AckFilter& filter) const override;
  bool add_annotation(const Annotation& note) override;
  std::vector<Annotation> annotations() const override;
  std::vector<MachineRow> machines() const override;
  std::vector<RunInfo> runs(const RunFilter& filter) const override;
  std::vector<RunInfo> runs_matching(RunKey key, const std::string& value) const override;
  std::optional<RunInfo> latest_run(const std::string& branch, std::optional<std::int64_t> machine_id) const override;
  Run load_run(std::int64_t run_id, bool with_samples) const override;
  RunIdentity identity(std::int64_t run_id) const override;
  std::vector<SourceLine> lines_with_text(std::int64_t run_id) const override;
  std::vector<BenchmarkRow> benchmarks() const override;
  std::vector<MetricInfo> metrics() const override;
  void history_rows(const HistoryFilter& filter, const std::optional<std::vector<std::int64_t>>& benchmark_ids,
                    const std::function<void(HistoryRow&&)>& row) const override;
  void load_samples(std::vector<Series>& series, std::size_t points) const override;
  DbInfo info() const override;
  CheckReport check() const override;
  void backup_to(const std::string& dest_path) const override;

  const Connection& connection() const { return conn_; }

 private:
  StampOnClose stamp_;  // before conn_: it stamps the file after the connection has closed
  Connection conn_;
  Access access_;
  std::string path_;
  int opened_version_ = 0;
  // The schema the reads may name: the latest after a read-write open, the file's own for a read-only one.
  // A run's recorded columns (recorded_columns()) that an older file lacks are read as NULL.
  int readable_version_ = Store::kSchemaVersion;
};

// The SQLite handle of a store on this engine, for the SQLite engine's own tests; throws std::logic_error
// for a store on another engine.
sqlite3* sqlite_handle(const Store& store);

// ":memory:" (or an empty path): a database that lives and dies with its connection.
bool is_memory(const std::string& path);
// Opens `path` as `access` asks (db/store_open.cpp): refuses what is not a sound database file, creates a
// missing one whole (read_write), falls back to an immutable read where a reader cannot make the WAL's
// files, and sets the busy wait. `created` (may be null) tells whether this call made the file.
Connection open_connection(const std::string& path, Access access, const OpenOptions& options, bool* created = nullptr);
// InputError (exit 2) when the file's b-trees are damaged (PRAGMA quick_check, every page): every read-write
// open of an existing file calls it before it changes anything, unless the file is as gpuperf last verified
// it (verified_stamp.hpp).
void refuse_damaged(const Connection& c);
// Before a write to the existing file `path` on `c`: the full check (refuse_damaged) unless the file's stamp
// allows the cheap one (its header and schema read). Returns the time of the last full check, for the
// stamp the writer leaves when it closes.
std::int64_t check_before_write(const Connection& c, const std::string& path);
// Puts the database in WAL mode, retrying within `timeout` while other connections are in transactions.
void enable_wal(Connection& c, std::chrono::milliseconds timeout);

// A run's recorded-program columns as a file of schema `version` has them, for a SELECT of run r:
// "r.command, r.exit_status, r.rank, r.local_rank, r.world_size", with NULL for each column the version lacks
// (command and exit_status came with schema 2, the rank fields with schema 4).
std::string recorded_columns(int version);
// What read_recorded() reads.
struct RecordedFields {
  std::string command;
  std::optional<int> exit_status, rank, local_rank, world_size;
};
// Reads the five columns of recorded_columns() at `first`.
RecordedFields read_recorded(const Statement& s, int first);
// Copies them into a Run or a RunInfo.
template <class RunLike>
void set_recorded(RunLike& r, RecordedFields f) {
  r.command = std::move(f.command);
  r.exit_status = f.exit_status;
  r.rank = f.rank;
  r.local_rank = f.local_rank;
  r.world_size = f.world_size;
}

// Reads a summary from columns n, median, mean, min, max, q1, q3, stdev starting at `first`.
Summary read_summary(const Statement& s, int first);
// Reads a machine from columns hostname, gpu_name, gpu_uuid, cc, sm_count, driver, cuda starting at `first`.
Machine read_machine(const Statement& s, int first);

}  // namespace gpuperf::db
