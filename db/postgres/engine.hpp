// The PostgreSQL engine: a team's results database on a server. What its source files share. Not a public
// header: nothing outside db/postgres/ includes it.
#pragma once

#include <string>

#include "db/engine.hpp"
#include "db/postgres/connection.hpp"

namespace gpuperf::db::pg {

class PgEngine final : public Engine {
 public:
  PgEngine(Connection conn, Access access, int opened_version, const OpenOptions& options);

  int schema_version() const override;
  int opened_version() const override { return opened_version_; }
  std::vector<InsertOutcome> insert_runs(const std::vector<const Run*>& runs) override;
  bool set_excluded(std::int64_t run_id, bool excluded, const std::string& reason) override;
  PruneReport prune_samples(const std::string& cutoff, bool dry_run) override;
  void hold_run_key(const std::string& uuid, const std::function<void()>& on_wait) const override;
  std::vector<MachineRow> machines() const override;
  std::vector<RunInfo> runs(const RunFilter& filter) const override;
  std::vector<RunInfo> runs_matching(RunKey key, const std::string& value) const override;
  std::optional<RunInfo> latest_run(const std::string& branch, std::optional<std::int64_t> machine_id) const override;
  Run load_run(std::int64_t run_id, bool with_samples) const override;
  std::vector<BenchmarkRow> benchmarks() const override;
  std::vector<MetricInfo> metrics() const override;
  void history_rows(const HistoryFilter& filter, const std::optional<std::vector<std::int64_t>>& benchmark_ids,
                    const std::function<void(HistoryRow&&)>& row) const override;
  void load_samples(std::vector<Series>& series, std::size_t points) const override;
  DbInfo info() const override;
  CheckReport check() const override;
  void backup_to(const std::string& dest_path) const override;

 private:
  // Starts a write: BEGIN, the lock timeout, then the write lock (schema::kWriteLock).
  void begin_write(Transaction& tx) const;

  Connection conn_;
  Access access_;
  int opened_version_ = 0;
  std::chrono::milliseconds busy_timeout_;
};

}  // namespace gpuperf::db::pg
