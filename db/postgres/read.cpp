// The PostgreSQL engine: reading runs back, and the history rows. The queries are the SQLite engine's
// (db/sqlite/read.cpp, db/sqlite/history.cpp) in PostgreSQL's words; text columns are COLLATE "C", so that
// every ORDER BY and comparison agrees with SQLite's byte order.
#include <algorithm>
#include <unordered_map>

#include "db/postgres/engine.hpp"
#include "db/postgres/identity.hpp"
#include "db/postgres/source_lines.hpp"

namespace gpuperf::db::pg {
namespace {

// "SELECT <RunInfo's columns in read_run_info's order> FROM run r JOIN machine m ...", for a WHERE to follow.
std::string select_run_info(int version) {
  return "SELECT r.id, r.uuid, r.machine_id, m.fingerprint, "
         "CASE WHEN r.hostname <> '' THEN r.hostname ELSE m.hostname END, "
         "m.gpu_name, r.started_at, r.finished_at, r.commit_sha, r.branch, r.label, r.tool_version, "
         "r.status, r.excluded, r.exclude_reason, "
         "(SELECT count(*) FROM outcome o WHERE o.run_id = r.id), " +
         recorded_columns(version) + " FROM run r JOIN machine m ON m.id = r.machine_id ";
}

std::vector<RunInfo> read_run_infos(const Result& r) {
  std::vector<RunInfo> out;
  for (int i = 0; i < r.rows(); ++i) {
    RunInfo x;
    x.id = r.int64(i, 0);
    x.uuid = r.text(i, 1);
    x.machine_id = r.int64(i, 2);
    x.fingerprint = r.text(i, 3);
    x.hostname = r.text(i, 4);
    x.gpu_name = r.text(i, 5);
    x.started_at = r.text(i, 6);
    x.finished_at = r.text(i, 7);
    x.commit = r.text(i, 8);
    x.branch = r.text(i, 9);
    x.label = r.text(i, 10);
    x.tool_version = r.text(i, 11);
    x.status = status_from_string(r.text(i, 12));
    x.excluded = r.boolean(i, 13);
    x.exclude_reason = r.text(i, 14);
    x.instance_count = r.int64(i, 15);
    read_recorded(r, i, 16, x);
    out.push_back(std::move(x));
  }
  return out;
}

Summary read_summary(const Result& r, int row, int first) {
  Summary m;
  m.n = static_cast<std::size_t>(r.int64(row, first));
  if (m.n == 0) return m;
  m.median = r.real(row, first + 1);
  m.mean = r.real(row, first + 2);
  m.min = r.real(row, first + 3);
  m.max = r.real(row, first + 4);
  m.q1 = r.real(row, first + 5);
  m.q3 = r.real(row, first + 6);
  m.stdev = r.real(row, first + 7);
  return m;
}

constexpr std::size_t kIdsPerQuery = 4000;

// "CROSS JOIN LATERAL (...) v": the samples of the result whose id is `id` (a column of the outer row), as
// two arrays in measurement order, v.vals and v.clocks (SM clocks, NULL where none was recorded). Read per
// result this way, the only plan is one range of sample's primary key per result: an aggregate under
// LATERAL is never flattened into a join, so a scan of the whole sample table would cost one scan per
// result, and no estimate of the table's statistics makes that look cheaper. The flat `WHERE result_id =
// ANY(...)` it replaces became a parallel scan of all 59 million samples once ANALYZE underestimated the
// distinct result ids 40-fold (issue 42, a year of 16 runners' nights). The ordered subquery (never pulled
// up: it has an ORDER BY) hands the aggregate the index's order, so no sort runs per result; this halved the
// server's time against array_agg(... ORDER BY idx) (4,000 results: 96 against 193 ms).
std::string samples_of(const char* id) {
  return std::string(
             "CROSS JOIN LATERAL (SELECT array_agg(t.value) AS vals, array_agg(t.sm_clock_mhz) AS clocks FROM ("
             "SELECT s.value, s.sm_clock_mhz FROM sample s WHERE s.result_id = ") +
         id + " ORDER BY s.idx) t) v";
}

}  // namespace

std::vector<RunInfo> PgEngine::runs(const RunFilter& f) const {
  // Newest first so LIMIT keeps the newest N; returned oldest first.
  Params p;
  p.add(f.branch).add(f.machine_id).add(f.since).add(f.include_excluded);
  if (f.last) {
    p.add(*f.last);
  } else {
    p.add_null();
  }
  Result r = conn_.exec(select_run_info(readable_version_) +
                            "WHERE ($1::text IS NULL OR r.branch = $1) AND ($2::bigint IS NULL OR r.machine_id = $2) "
                            "AND ($3::text IS NULL OR r.started_at >= $3) AND ($4::boolean OR NOT r.excluded) "
                            "ORDER BY r.started_at DESC, r.id DESC LIMIT $5::bigint",
                        p, "reading runs");
  auto out = read_run_infos(r);
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<RunInfo> PgEngine::runs_matching(RunKey key, const std::string& value) const {
  const std::string select = select_run_info(readable_version_);
  switch (key) {
    case RunKey::id:
      return read_run_infos(conn_.exec(select + "WHERE r.id = $1::bigint", Params().add(value), "finding a run"));
    case RunKey::uuid:
      return read_run_infos(conn_.exec(select + "WHERE r.uuid = $1", Params().add(value), "finding a run"));
    case RunKey::uuid_prefix:
      return read_run_infos(conn_.exec(select + "WHERE substr(r.uuid, 1, $2::integer) = $1 ORDER BY r.id",
                                       Params().add(value).add(value.size()), "finding a run"));
    case RunKey::commit_prefix:
      return read_run_infos(
          conn_.exec(select + "WHERE substr(r.commit_sha, 1, $2::integer) = $1 ORDER BY r.started_at DESC, r.id DESC",
                     Params().add(value).add(value.size()), "finding a run"));
  }
  return {};
}

std::optional<RunInfo> PgEngine::latest_run(const std::string& branch, std::optional<std::int64_t> machine_id) const {
  auto found = read_run_infos(conn_.exec(select_run_info(readable_version_) +
                                             "WHERE r.branch = $1 AND ($2::bigint IS NULL OR r.machine_id = $2) AND "
                                             "NOT r.excluded ORDER BY r.started_at DESC, r.id DESC LIMIT 1",
                                         Params().add(branch).add(machine_id), "finding the latest run"));
  if (found.empty()) return std::nullopt;
  return found.front();
}

Run PgEngine::read_run(std::int64_t run_id, std::vector<ResultSlot>& slots) const {
  Run run;
  {
    Result r = conn_.exec(
        "SELECT r.uuid, r.started_at, r.finished_at, r.commit_sha, r.branch, r.label, r.tool_version, r.status, "
        "r.excluded, r.exclude_reason, CASE WHEN r.hostname <> '' THEN r.hostname ELSE m.hostname END, m.gpu_name, "
        "m.gpu_uuid, m.cc, m.sm_count, r.driver, r.cuda, " +
            recorded_columns(readable_version_) + " FROM run r JOIN machine m ON m.id = r.machine_id WHERE r.id = $1",
        Params().add(run_id), "reading a run");
    if (r.rows() == 0) throw InputError("no run with id " + std::to_string(run_id));
    run.uuid = r.text(0, 0);
    run.started_at = r.text(0, 1);
    run.finished_at = r.text(0, 2);
    run.commit = r.text(0, 3);
    run.branch = r.text(0, 4);
    run.label = r.text(0, 5);
    run.tool_version = r.text(0, 6);
    run.status = status_from_string(r.text(0, 7));
    run.excluded = r.boolean(0, 8);
    run.exclude_reason = r.text(0, 9);
    run.machine.hostname = r.text(0, 10);
    run.machine.gpu_name = r.text(0, 11);
    run.machine.gpu_uuid = r.text(0, 12);
    run.machine.cc = r.text(0, 13);
    run.machine.sm_count = r.int64(0, 14);
    run.machine.driver = r.text(0, 15);
    run.machine.cuda = r.text(0, 16);
    read_recorded(r, 0, 17, run);
  }
  std::unordered_map<std::int64_t, std::size_t> result_of_benchmark;
  {
    Result r = conn_.exec(
        "SELECT o.benchmark_id, b.name, b.params_json, b.baseline, o.status, o.message FROM outcome o "
        "JOIN benchmark b ON b.id = o.benchmark_id WHERE o.run_id = $1 ORDER BY o.seq",
        Params().add(run_id), "reading a run");
    for (int i = 0; i < r.rows(); ++i) {
      ::gpuperf::Result x;
      x.instance.name = r.text(i, 1);
      x.instance.params = params_from_json(r.text(i, 2));
      x.baseline = r.text(i, 3);
      x.status = status_from_string(r.text(i, 4));
      x.message = r.text(i, 5);
      result_of_benchmark[r.int64(i, 0)] = run.results.size();
      run.results.push_back(std::move(x));
    }
  }
  read_source_lines(conn_, run_id, result_of_benchmark, run);
  {
    RunIdentity id = read_identity(conn_, run_id);
    run.environment = std::move(id.environment);
    for (auto& [bench, code] : id.code) {
      if (auto it = result_of_benchmark.find(bench); it != result_of_benchmark.end())
        run.results[it->second].code = code;
    }
  }
  slots.clear();
  {
    Result r = conn_.exec(
        "SELECT res.id, res.benchmark_id, mt.name, mt.unit, mt.higher_is_better, mt.deterministic, "
        "res.status, res.message, res.n, res.median, res.mean, res.min, res.max, res.q1, res.q3, res.stdev "
        "FROM result res JOIN metric mt ON mt.id = res.metric_id WHERE res.run_id = $1 "
        "ORDER BY res.benchmark_id, res.seq",
        Params().add(run_id), "reading a run");
    for (int i = 0; i < r.rows(); ++i) {
      Measurement m;
      m.metric.name = r.text(i, 2);
      m.metric.unit = r.text(i, 3);
      m.metric.higher_is_better = r.boolean(i, 4);
      m.metric.deterministic = r.boolean(i, 5);
      m.status = status_from_string(r.text(i, 6));
      m.message = r.text(i, 7);
      m.summary = read_summary(r, i, 8);
      const std::size_t ri = result_of_benchmark.at(r.int64(i, 1));
      auto& metrics = run.results[ri].metrics;
      slots.push_back(ResultSlot{r.int64(i, 0), ri, metrics.size()});
      metrics.push_back(std::move(m));
    }
  }
  return run;
}

Run PgEngine::load_run(std::int64_t run_id, bool with_samples) const {
  std::vector<ResultSlot> slots;
  Run run = read_run(run_id, slots);
  if (!with_samples) return run;
  // result id -> (index of the instance in run.results, index of the metric in its metrics)
  std::unordered_map<std::int64_t, std::pair<std::size_t, std::size_t>> where_of_result;
  for (const ResultSlot& x : slots) where_of_result[x.result_id] = {x.instance, x.metric};
  Result r =
      conn_.exec("SELECT res.id, v.vals, v.clocks FROM result res " + samples_of("res.id") + " WHERE res.run_id = $1",
                 Params().add(run_id), "reading a run's samples");
  for (int i = 0; i < r.rows(); ++i) {
    auto [ri, mi] = where_of_result.at(r.int64(i, 0));
    Measurement& m = run.results[ri].metrics[mi];
    r.reals(i, 1, m.samples);
    r.reals(i, 2, m.sm_clock_mhz);
  }
  return run;
}

RunIdentity PgEngine::identity(std::int64_t run_id) const { return read_identity(conn_, run_id); }

std::vector<SourceLine> PgEngine::lines_with_text(std::int64_t run_id) const {
  return read_lines_with_text(conn_, run_id);
}

std::vector<BenchmarkRow> PgEngine::benchmarks() const {
  Result r = conn_.exec("SELECT id, name, params_json FROM benchmark ORDER BY id", {}, "reading benchmarks");
  std::vector<BenchmarkRow> out;
  for (int i = 0; i < r.rows(); ++i) {
    out.push_back({r.int64(i, 0), BenchmarkInstance{r.text(i, 1), params_from_json(r.text(i, 2))}});
  }
  return out;
}

std::vector<MetricInfo> PgEngine::metrics() const {
  Result r =
      conn_.exec("SELECT name, unit, higher_is_better, deterministic FROM metric ORDER BY name", {}, "reading metrics");
  std::vector<MetricInfo> out;
  for (int i = 0; i < r.rows(); ++i)
    out.push_back(MetricInfo{r.text(i, 0), r.text(i, 1), r.boolean(i, 2), r.boolean(i, 3)});
  return out;
}

void PgEngine::history_rows(const HistoryFilter& f, const std::optional<std::vector<std::int64_t>>& benchmark_ids,
                            const std::function<void(HistoryRow&&)>& row) const {
  // SQLite reads the history as one wide join; over a connection that would send every run's, machine's,
  // benchmark's and metric's text again on each of ~175k rows (a year of nights). So the runs, benchmarks
  // and metrics the filter selects are read once each, and the result rows carry only ids and numbers.
  Params rp;
  rp.add(f.branch).add(f.machine_id).add(f.since).add(f.include_excluded);
  if (f.last_runs) {
    rp.add(*f.last_runs);
  } else {
    rp.add_null();
  }
  rp.add(f.up_to_run_id);
  Result runs = conn_.exec(
      "SELECT id, machine_id, uuid, commit_sha, branch, started_at, excluded FROM ("
      "  SELECT id, machine_id, uuid, commit_sha, branch, started_at, excluded, "
      "         row_number() OVER (PARTITION BY machine_id ORDER BY started_at DESC, id DESC) AS newest "
      "  FROM run WHERE ($1::text IS NULL OR branch = $1) AND ($2::bigint IS NULL OR machine_id = $2) "
      "    AND ($3::text IS NULL OR started_at >= $3) AND ($4::boolean OR NOT excluded) "
      "    AND ($6::bigint IS NULL OR id <= $6)) AS numbered "
      "WHERE $5::bigint IS NULL OR newest <= $5",
      rp, "reading the history");
  if (runs.rows() == 0) return;
  struct RunRow {
    std::int64_t machine_id;
    std::string uuid, commit, branch, started_at;
    bool excluded;
  };
  std::unordered_map<std::int64_t, RunRow> run_of;
  std::vector<std::int64_t> run_ids;
  for (int i = 0; i < runs.rows(); ++i) {
    run_ids.push_back(runs.int64(i, 0));
    run_of.emplace(runs.int64(i, 0), RunRow{runs.int64(i, 1), runs.text(i, 2), runs.text(i, 3), runs.text(i, 4),
                                            runs.text(i, 5), runs.boolean(i, 6)});
  }
  std::unordered_map<std::int64_t, std::string> fingerprint_of;
  for (const MachineRow& m : machines()) fingerprint_of.emplace(m.id, m.fingerprint);
  struct BenchRow {
    std::string name, params_json, params_key;
  };
  std::unordered_map<std::int64_t, BenchRow> bench_of;
  Result benches = conn_.exec("SELECT id, name, params_json, params_key FROM benchmark", {}, "reading the history");
  for (int i = 0; i < benches.rows(); ++i) {
    bench_of.emplace(benches.int64(i, 0), BenchRow{benches.text(i, 1), benches.text(i, 2), benches.text(i, 3)});
  }
  std::unordered_map<std::int64_t, MetricInfo> metric_of;
  std::vector<std::int64_t> metric_ids;
  Result metrics = conn_.exec(
      "SELECT id, name, unit, higher_is_better, deterministic FROM metric "
      "WHERE $1::text[] IS NULL OR name = ANY($1::text[])",
      f.metrics.empty() ? Params().add_null() : Params().add(array_literal(f.metrics)), "reading the history");
  for (int i = 0; i < metrics.rows(); ++i) {
    metric_ids.push_back(metrics.int64(i, 0));
    metric_of.emplace(metrics.int64(i, 0),
                      MetricInfo{metrics.text(i, 1), metrics.text(i, 2), metrics.boolean(i, 3), metrics.boolean(i, 4)});
  }
  if (metric_ids.empty()) return;

  Params p;
  p.add(array_literal(run_ids)).add(array_literal(metric_ids));
  if (benchmark_ids) {
    p.add(array_literal(*benchmark_ids));
  } else {
    p.add_null();
  }
  p.add(f.include_failed);
  // Per chosen run, its results through the (run_id, ...) keys of result and outcome. OFFSET 0 keeps the
  // LATERAL subquery from being flattened into one join, which could hash all of result (every machine's
  // runs) when the planner misjudges how many rows the run ids select.
  Result r = conn_.exec(
      "SELECT q.run_id, x.benchmark_id, x.metric_id, x.id, x.instance_status, x.status, "
      "x.n, x.median, x.mean, x.min, x.max, x.q1, x.q3, x.stdev "
      "FROM unnest($1::bigint[]) AS q(run_id) CROSS JOIN LATERAL ("
      "  SELECT res.benchmark_id, res.metric_id, res.id, o.status AS instance_status, res.status, "
      "         res.n, res.median, res.mean, res.min, res.max, res.q1, res.q3, res.stdev "
      "  FROM result res JOIN outcome o ON o.run_id = res.run_id AND o.benchmark_id = res.benchmark_id "
      "  WHERE res.run_id = q.run_id AND o.run_id = q.run_id AND res.metric_id = ANY($2::bigint[]) "
      "    AND ($3::bigint[] IS NULL OR res.benchmark_id = ANY($3::bigint[])) "
      "    AND ($4::boolean OR (o.status = 'ok' AND res.status = 'ok')) OFFSET 0) x",
      p, "reading the history");
  for (int i = 0; i < r.rows(); ++i) {
    const RunRow& run = run_of.at(r.int64(i, 0));
    const BenchRow& bench = bench_of.at(r.int64(i, 1));
    HistoryRow h;
    h.machine_id = run.machine_id;
    h.fingerprint = fingerprint_of.at(run.machine_id);
    h.benchmark_id = r.int64(i, 1);
    h.name = bench.name;
    h.params_json = bench.params_json;
    h.params_key = bench.params_key;
    h.metric_id = r.int64(i, 2);
    h.metric = metric_of.at(h.metric_id);
    SeriesPoint& pt = h.point;
    pt.run_id = r.int64(i, 0);
    pt.result_id = r.int64(i, 3);
    pt.run_uuid = run.uuid;
    pt.commit = run.commit;
    pt.branch = run.branch;
    pt.started_at = run.started_at;
    h.instance_status = status_from_string(r.text(i, 4));
    h.result_status = status_from_string(r.text(i, 5));
    pt.excluded = run.excluded;
    pt.summary = read_summary(r, i, 6);
    row(std::move(h));
  }
}

void PgEngine::load_samples(std::vector<Series>& series, std::size_t points) const {
  // The points' results, a few thousand ids a query: one round trip per batch, not per point.
  std::unordered_map<std::int64_t, SeriesPoint*> by_result;
  by_result.reserve(points);
  std::vector<std::int64_t> ids;
  ids.reserve(points);
  for (auto& s : series) {
    for (auto& p : s.points) {
      by_result.emplace(p.result_id, &p);
      ids.push_back(p.result_id);
    }
  }
  for (std::size_t at = 0; at < ids.size(); at += kIdsPerQuery) {
    const std::vector<std::int64_t> batch(
        ids.begin() + static_cast<std::ptrdiff_t>(at),
        ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), at + kIdsPerQuery)));
    Result r = conn_.exec("SELECT q.id, v.vals, v.clocks FROM unnest($1::bigint[]) AS q(id) " + samples_of("q.id"),
                          Params().add(array_literal(batch)), "reading samples");
    for (int i = 0; i < r.rows(); ++i) {
      SeriesPoint* p = by_result.at(r.int64(i, 0));
      r.reals(i, 1, p->samples);
      r.reals(i, 2, p->sm_clock_mhz);
    }
  }
}

}  // namespace gpuperf::db::pg
