// The PostgreSQL engine: a team's results database on a server. What its source files share. Not a public
// header: nothing outside db/postgres/ includes it.
#pragma once

#include <optional>
#include <string>

#include "db/engine.hpp"
#include "db/postgres/connection.hpp"

namespace gpuperf::db::pg {

class PgEngine final : public Engine {
 public:
  // `readable_version`: the schema the reads may name (the latest after a read-write open, which migrated;
  // the database's own for a read-only one).
  PgEngine(Connection conn, Access access, int opened_version, int readable_version, const OpenOptions& options);

  int schema_version() const override;
  int opened_version() const override { return opened_version_; }
  std::vector<InsertOutcome> insert_runs(const std::vector<const Run*>& runs) override;
  bool set_excluded(std::int64_t run_id, bool excluded, const std::string& reason) override;
  PruneReport prune_samples(const std::string& cutoff, bool dry_run) override;
  void hold_run_key(const std::string& uuid, const std::function<void()>& on_wait) const override;
  bool add_acknowledgement(const Acknowledgement& ack) override;
  int undo_acknowledgement(std::int64_t id, const std::string& by, const std::string& at) override;
  std::vector<Acknowledgement> acknowledgements(const AckFilter& filter) const override;
  bool add_annotation(const Annotation& note) override;
  std::vector<Annotation> annotations() const override;
  std::string missing_answer_privileges() const override;
  std::vector<MachineRow> machines() const override;
  std::vector<RunInfo> runs(const RunFilter& filter) const override;
  std::vector<RunInfo> runs_matching(RunKey key, const std::string& value) const override;
  std::optional<RunInfo> latest_run(const std::string& branch, std::optional<std::int64_t> machine_id) const override;
  Run load_run(std::int64_t run_id, bool with_samples) const override;
  void load_runs(const std::vector<std::int64_t>& run_ids, const std::function<void(Run&&)>& each) const override;
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

 private:
  // Where a result of a run being read goes: its id, and the instance and metric it fills in run.results.
  struct ResultSlot {
    std::int64_t result_id = 0;
    std::size_t instance = 0, metric = 0;
  };
  // A run without its samples (load_run's reads), and in `slots` its results in the order they were read.
  Run read_run(std::int64_t run_id, std::vector<ResultSlot>& slots) const;

  // Starts a write: BEGIN, the lock timeout, then the write lock (schema::kWriteLock).
  void begin_write(Transaction& tx) const;
  // One INSERT ... ON CONFLICT(uuid) DO NOTHING RETURNING of an answer in its write: whether it added the row.
  bool insert_answer(const char* sql, const Params& params, const char* what);

  Connection conn_;
  Access access_;
  int opened_version_ = 0;
  int readable_version_ = 0;
  std::chrono::milliseconds busy_timeout_;
};

// A run's recorded-program columns as a database of schema `version` has them, for a SELECT of run r:
// "r.command, r.exit_status, r.rank, r.local_rank, r.world_size", with NULL for the rank fields before
// schema 4 (a reader of a database its admin has not migrated yet).
std::string recorded_columns(int version);
// Reads the five columns of recorded_columns() at `first` of row `row` into a Run or a RunInfo.
template <class RunLike>
void read_recorded(const Result& r, int row, int first, RunLike& out) {
  const auto optional_int = [&](int column) {
    return r.is_null(row, column) ? std::optional<int>() : std::optional<int>(static_cast<int>(r.int64(row, column)));
  };
  out.command = r.is_null(row, first) ? std::string() : r.text(row, first);
  out.exit_status = optional_int(first + 1);
  out.rank = optional_int(first + 2);
  out.local_rank = optional_int(first + 3);
  out.world_size = optional_int(first + 4);
}

}  // namespace gpuperf::db::pg
