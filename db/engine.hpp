// What an engine (db/sqlite/, db/postgres/) does for the Store. Not a public header: nothing outside db/
// sees an engine, only db::Store, and nothing outside an engine's folder sees its connection type.
//
// An engine stores and reads the result model in its own SQL; what both must answer alike (resolving a run
// reference, a machine reference, grouping history rows into sorted series, the validation of a run before
// it is written) is done once, in db/store.cpp and db/run_rules.cpp, on what the engine returns.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "db/store_types.hpp"

namespace gpuperf::db {

// One result row of a history query: a point and the series it belongs to.
struct HistoryRow {
  std::int64_t machine_id = 0;
  std::string fingerprint;
  std::int64_t benchmark_id = 0;
  std::string name, params_json, params_key;
  std::int64_t metric_id = 0;
  MetricInfo metric;
  Status instance_status = Status::ok;  // the outcome's
  Status result_status = Status::ok;    // the metric's
  SeriesPoint point;                    // its status is left for the caller to decide
};

// The benchmark rows (id, instance), for matching a name filter.
struct BenchmarkRow {
  std::int64_t id = 0;
  BenchmarkInstance instance;
};

class Engine {
 public:
  virtual ~Engine() = default;

  virtual int schema_version() const = 0;
  virtual int opened_version() const = 0;

  // All of `runs` in one transaction: each is inserted whole, or, when its uuid is stored already, skipped.
  // Each run has passed validate_run (db/run_rules.hpp).
  virtual std::vector<InsertOutcome> insert_runs(const std::vector<const Run*>& runs) = 0;
  // False when no run has this id.
  virtual bool set_excluded(std::int64_t run_id, bool excluded, const std::string& reason) = 0;
  // Store::prune_samples; `cutoff` is in the stored form.
  virtual PruneReport prune_samples(const std::string& cutoff, bool dry_run) = 0;
  // Store::hold_run_key. `on_wait` is called once before waiting for another holder.
  virtual void hold_run_key(const std::string& uuid, const std::function<void()>& on_wait) const = 0;

  // Store's answers (db/answers.hpp), validated by Store. add_*: false when the uuid is stored already.
  virtual bool add_acknowledgement(const Acknowledgement& ack) = 0;
  // 0: undone now; 1: undone already; 2: no such acknowledgement.
  virtual int undo_acknowledgement(std::int64_t id, const std::string& by, const std::string& at) = 0;
  virtual std::vector<Acknowledgement> acknowledgements(const AckFilter& filter) const = 0;
  virtual bool add_annotation(const Annotation& note) = 0;
  virtual std::vector<Annotation> annotations() const = 0;
  // The privileges this connection lacks to record answers ("INSERT on table annotation, ..."); "" for none.
  virtual std::string missing_answer_privileges() const { return {}; }

  virtual std::vector<MachineRow> machines() const = 0;  // id order
  virtual std::vector<RunInfo> runs(const RunFilter& filter) const = 0;
  enum class RunKey {
    id,             // at most one
    uuid,           // at most one
    uuid_prefix,    // id order
    commit_prefix,  // newest first (started_at, then id)
  };
  virtual std::vector<RunInfo> runs_matching(RunKey key, const std::string& value) const = 0;
  virtual std::optional<RunInfo> latest_run(const std::string& branch,
                                            std::optional<std::int64_t> machine_id) const = 0;
  // Throws InputError when no run has this id.
  virtual Run load_run(std::int64_t run_id, bool with_samples) const = 0;
  // The runs with these ids, samples included, each handed to `each` in this order as soon as it is read,
  // so a whole history never sits in memory. By default one load_run each; the PostgreSQL engine streams
  // the samples of many runs at once. Throws InputError when an id names no run.
  virtual void load_runs(const std::vector<std::int64_t>& run_ids, const std::function<void(Run&&)>& each) const {
    for (std::int64_t id : run_ids) each(load_run(id, true));
  }

  // Store::identity.
  virtual RunIdentity identity(std::int64_t run_id) const = 0;
  // Store::lines_with_text.
  virtual std::vector<SourceLine> lines_with_text(std::int64_t run_id) const = 0;

  virtual std::vector<BenchmarkRow> benchmarks() const = 0;
  // Every stored metric's traits (unit, direction, determinism), in name order.
  virtual std::vector<MetricInfo> metrics() const = 0;
  // Every history row the filter selects, in no particular order. `benchmark_ids`: only these (nullopt: all).
  virtual void history_rows(const HistoryFilter& filter, const std::optional<std::vector<std::int64_t>>& benchmark_ids,
                            const std::function<void(HistoryRow&&)>& row) const = 0;
  // Fills the points' samples and SM clocks, in measurement order.
  virtual void load_samples(std::vector<Series>& series, std::size_t points) const = 0;

  virtual DbInfo info() const = 0;
  virtual CheckReport check() const = 0;
  virtual void backup_to(const std::string& dest_path) const = 0;
};

}  // namespace gpuperf::db

namespace gpuperf::db {

// The engines' openers (db/sqlite/engine.cpp, db/postgres/engine.cpp), as Store's constructor documents.
std::unique_ptr<Engine> open_sqlite(const std::string& path, Access access, const OpenOptions& options);
std::unique_ptr<Engine> open_postgres(const std::string& location, Access access, const OpenOptions& options);
// For a command that measures first: an existing SQLite file that is damaged is refused now (InputError),
// read-only, before minutes of measuring; anything else (missing, empty, a server) is left to the open.
void refuse_damaged_file(const std::string& path, const OpenOptions& options);

}  // namespace gpuperf::db
