// The store's vocabulary (store.hpp): how a connection opens, the rows, filters, series and reports its reads and
// checks return. Apart from the Store class so the engines (engine.hpp), which Store calls, include these and not
// the class above them.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"
#include "db/answers.hpp"
#include "db/lock_wait.hpp"

namespace gpuperf::db {

enum class Access {
  read_only,   // never creates or migrates; fails on a missing file
  read_write,  // creates the file and migrates an older schema
};

// How a connection waits for other processes' locks.
struct OpenOptions {
  // How long a write waits for another process's transaction before it gives up (exit 3, naming the
  // holder). Unset: default_busy_timeout().
  std::optional<std::chrono::milliseconds> busy_timeout;
  LockWaitReporter on_wait;  // called about once a second while a write waits, after its first second
};

// $GPUPERF_DB_BUSY_TIMEOUT (seconds, fractions allowed) when set, else 10 minutes: long enough for the
// writers of a shared history file to queue behind each other's imports. InputError for a bad value.
std::chrono::milliseconds default_busy_timeout();
// Parses a busy timeout in seconds ("600", "0.5"); InputError naming `where` for anything else.
std::chrono::milliseconds parse_busy_timeout(const std::string& seconds, const std::string& where);

struct MachineRow {
  std::int64_t id = 0;
  std::string fingerprint;
  Machine machine;
};

struct RunInfo {
  std::int64_t id = 0;
  std::string uuid;
  std::int64_t machine_id = 0;
  std::string fingerprint;
  std::string hostname;
  std::string gpu_name;
  std::string started_at, finished_at;
  std::string commit, branch, label, tool_version;
  Status status = Status::ok;
  bool excluded = false;
  std::string exclude_reason;
  std::int64_t instance_count = 0;  // benchmark instances in the run
  std::string command;              // a recorded run's command line; empty for a benchmark run
  std::optional<int> exit_status;   // a recorded program's exit code (< 0: minus the signal); else empty
  // A recorded process's place in a distributed job (Run::rank, local_rank, world_size); else empty.
  std::optional<int> rank, local_rank, world_size;
};

struct RunFilter {
  std::optional<std::string> branch;
  std::optional<std::int64_t> machine_id;
  std::optional<std::string> since;  // ISO 8601 prefix compare on started_at
  std::optional<std::size_t> last;   // only the newest N (still returned oldest first)
  bool include_excluded = true;
};

// A series is (machine, benchmark instance, metric).
struct SeriesKey {
  std::int64_t machine_id = 0;
  std::string fingerprint;
  std::int64_t benchmark_id = 0;
  BenchmarkInstance instance;
  MetricInfo metric;
};

struct SeriesPoint {
  std::int64_t run_id = 0;
  std::int64_t result_id = 0;
  std::string run_uuid;
  std::string commit;
  std::string branch;
  std::string started_at;
  Status status = Status::ok;
  bool excluded = false;
  Summary summary;
  std::vector<double> samples;       // filled only when HistoryFilter::with_samples
  std::vector<double> sm_clock_mhz;  // likewise; empty when no clock was recorded
};

struct Series {
  SeriesKey key;
  std::vector<SeriesPoint> points;  // run order: started_at, then run id
};

struct HistoryFilter {
  std::optional<std::string> branch;
  std::optional<std::int64_t> machine_id;
  std::optional<std::string> since;
  std::optional<std::size_t> last_runs;  // per machine: only each machine's newest N runs
  // Only runs stored up to this one (ids <= it): the history as it stood when that run was stored. Run ids
  // grow in the order runs are stored (on a server, in the order writers commit under the write lock), so
  // this is a point in the history itself, whatever clocks the runners' started_at came from.
  std::optional<std::int64_t> up_to_run_id;
  std::vector<std::string> metrics;  // empty: all
  std::string benchmark_regex;       // empty: all; matched against display_name()
  bool include_excluded = false;
  bool include_failed = false;  // points whose status is not ok
  bool with_samples = false;
};

struct DbInfo {
  std::string path;    // as display_location shows it
  std::string engine;  // "sqlite" or "postgresql"
  int schema_version = 0;
  int supported_version = 0;
  std::int64_t machines = 0, runs = 0, benchmarks = 0, metrics = 0, results = 0, samples = 0;
  std::int64_t file_bytes = 0;
  std::string journal_mode;
};

struct CheckReport {
  bool ok = true;
  std::string checked;                // what the engine checked, in words
  std::vector<std::string> problems;  // integrity_check and foreign_key_check findings, plain words
};

// What `gpuperf db prune --samples-older-than` removes (or, in a dry run, would remove): the raw samples of
// the results of runs started before `cutoff` whose summary was computed from more than one sample. Each
// result row stays, with its summary (n, median, quartiles, ...): history, detect and reports read those.
// Single values (a counter's one sample) stay, as they are their own summary.
struct PruneReport {
  std::string cutoff;  // runs started before this (stored form, UTC)
  bool dry_run = false;
  std::int64_t runs = 0;          // runs that had samples to remove
  std::int64_t results = 0;       // results whose samples go
  std::int64_t samples = 0;       // sample rows removed
  std::int64_t samples_left = 0;  // sample rows that stay
  // Bytes the removed rows take, estimated from the sample table's size and its share of rows; -1 when the
  // engine cannot tell. SQLite reuses the freed pages for new runs (the file shrinks only with VACUUM or
  // `db backup`); PostgreSQL's autovacuum makes the space reusable likewise.
  std::int64_t bytes = -1;
};

// A stored run's environment and its results' code identities (schema 5), by benchmark id: what the findings
// compare between two points of a series (SeriesKey::benchmark_id).
struct RunIdentity {
  std::map<std::string, std::string> environment;  // Run::environment as stored (not env::effective)
  std::map<std::int64_t, CodeIdentity> code;       // benchmark id -> identity; absent: none stored
};

struct InsertOutcome {
  std::int64_t run_id = 0;
  bool inserted = false;  // false: a run with this uuid was already there (idempotent import)
};

}  // namespace gpuperf::db
