// The SQLite engine: writing runs. A run (or a batch of runs) is one BEGIN IMMEDIATE transaction: readers see all of
// it or nothing, and an error anywhere leaves the database as it was.
#include <cmath>
#include <map>
#include <set>

#include "db/run_rules.hpp"
#include "db/sqlite/engine.hpp"
#include "db/sqlite/identity.hpp"
#include "db/sqlite/source_lines.hpp"
#include "db/timestamp.hpp"

namespace gpuperf::db {
namespace {

// The statements of one batch, prepared once.
struct Writer {
  explicit Writer(Connection& conn) : c(conn) {}
  Connection& c;
  Statement find_run{c, "SELECT id FROM run WHERE uuid = ?1"};
  Statement upsert_machine{c,
                           "INSERT INTO machine(fingerprint, hostname, gpu_name, gpu_uuid, cc, sm_count, driver, cuda) "
                           "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT(fingerprint) DO UPDATE SET "
                           "gpu_name = CASE WHEN gpu_name = '' THEN excluded.gpu_name ELSE gpu_name END, "
                           "cc = CASE WHEN cc = '' THEN excluded.cc ELSE cc END, "
                           "sm_count = CASE WHEN sm_count = 0 THEN excluded.sm_count ELSE sm_count END "
                           "RETURNING id"};
  // The machine row shows the host, driver and CUDA of its newest run.
  Statement refresh_machine{c,
                            "UPDATE machine SET hostname = ?2, driver = ?3, cuda = ?4 WHERE id = ?1 AND NOT EXISTS "
                            "(SELECT 1 FROM run WHERE machine_id = ?1 AND started_at > ?5)"};
  Statement insert_run{
      c,
      "INSERT INTO run(uuid, machine_id, started_at, finished_at, commit_sha, branch, label, tool_version, "
      "status, excluded, exclude_reason, hostname, driver, cuda, command, exit_status, rank, local_rank, world_size) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)"};
  Statement newest_overall{c, "SELECT NOT EXISTS (SELECT 1 FROM run WHERE started_at > ?1)"};
  Statement upsert_benchmark{
      c,
      "INSERT INTO benchmark(name, params_json, params_key, baseline) VALUES(?1, ?2, ?3, ?4) "
      "ON CONFLICT(name, params_key) DO UPDATE SET baseline = CASE WHEN ?5 THEN excluded.baseline "
      "ELSE baseline END RETURNING id"};
  Statement find_metric{c, "SELECT id, unit, higher_is_better, deterministic FROM metric WHERE name = ?1"};
  Statement insert_metric{c, "INSERT INTO metric(name, unit, higher_is_better, deterministic) VALUES(?1, ?2, ?3, ?4)"};
  Statement insert_outcome{
      c, "INSERT INTO outcome(run_id, benchmark_id, seq, status, message) VALUES(?1, ?2, ?3, ?4, ?5)"};
  Statement insert_result{
      c,
      "INSERT INTO result(run_id, benchmark_id, metric_id, seq, status, message, n, median, mean, min, max, "
      "q1, q3, stdev) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"};
  Statement insert_sample{c, "INSERT INTO sample(result_id, idx, value, sm_clock_mhz) VALUES(?1, ?2, ?3, ?4)"};
  SourceLineWriter source_lines{c};
  IdentityWriter identities{c};
  // Read from the database once per batch; each later use in the batch is checked against the first, so a
  // batch cannot store one metric name with two units.
  std::map<std::string, std::pair<std::int64_t, MetricInfo>> metric_ids;

  std::int64_t metric_id(const MetricInfo& m, const std::string& where) {
    if (auto it = metric_ids.find(m.name); it != metric_ids.end()) {
      check_metric_traits(m, it->second.second, where);
      return it->second.first;
    }
    std::int64_t id = 0;
    find_metric.bind(1, m.name);
    if (find_metric.step()) {
      id = find_metric.int64(0);
      std::string unit = find_metric.text(1);
      bool hib = find_metric.int64(2) != 0, det = find_metric.int64(3) != 0;
      find_metric.reset();
      check_metric_traits(m, MetricInfo{m.name, unit, hib, det}, where);
    } else {
      find_metric.reset();
      insert_metric.bind_all(m.name, m.unit, m.higher_is_better, m.deterministic).run();
      id = c.last_insert_rowid();
    }
    metric_ids.emplace(m.name, std::make_pair(id, m));
    return id;
  }

  std::int64_t returning_id(Statement& s) {
    if (!s.step()) throw InputError("an upsert returned no id");
    std::int64_t id = s.int64(0);
    s.reset();
    return id;
  }

  InsertOutcome write(const Run& run) {
    find_run.bind(1, run.uuid);
    if (find_run.step()) {
      InsertOutcome o{find_run.int64(0), false};
      find_run.reset();
      return o;
    }
    find_run.reset();
    const Machine& mc = run.machine;
    upsert_machine.bind_all(mc.fingerprint(), mc.hostname, mc.gpu_name, mc.gpu_uuid, mc.cc, mc.sm_count, mc.driver,
                            mc.cuda);
    std::int64_t machine_id = returning_id(upsert_machine);
    refresh_machine.bind_all(machine_id, mc.hostname, mc.driver, mc.cuda, run.started_at).run();
    newest_overall.bind(1, run.started_at);
    newest_overall.step();
    bool newest = newest_overall.int64(0) != 0;
    newest_overall.reset();

    insert_run.bind_all(run.uuid, machine_id, run.started_at, run.finished_at, run.commit, run.branch, run.label,
                        run.tool_version, to_string(run.status), run.excluded,
                        run.excluded ? run.exclude_reason : std::string(), mc.hostname, mc.driver, mc.cuda);
    // Left unbound, command and exit_status stay NULL: a benchmark run.
    if (!run.command.empty()) insert_run.bind(15, run.command);
    if (run.exit_status) insert_run.bind(16, *run.exit_status);
    // Likewise the rank fields: a benchmark run, or a process that was not part of a distributed job.
    if (run.rank) insert_run.bind(17, *run.rank);
    if (run.local_rank) insert_run.bind(18, *run.local_rank);
    if (run.world_size) insert_run.bind(19, *run.world_size);
    insert_run.run();
    std::int64_t run_id = c.last_insert_rowid();
    identities.write_environment(run_id, run);

    for (std::size_t i = 0; i < run.results.size(); ++i) {
      const Result& r = run.results[i];
      const std::string where = "run " + run.uuid + ", " + r.instance.display_name();
      upsert_benchmark.bind_all(r.instance.name, params_json(r.instance.params), params_key(r.instance.params),
                                r.baseline, newest);
      std::int64_t bench_id = returning_id(upsert_benchmark);
      insert_outcome.bind_all(run_id, bench_id, i, to_string(r.status), r.message).run();
      source_lines.write(run_id, bench_id, r.source);
      identities.write_code(run_id, bench_id, r.code);
      for (std::size_t j = 0; j < r.metrics.size(); ++j) {
        const Measurement& m = r.metrics[j];
        std::int64_t mid = metric_id(m.metric, where);
        // The summary is always recomputed from the raw samples when there are any.
        Summary s = m.samples.empty() ? m.summary : summarize(m.samples);
        insert_result.bind_all(run_id, bench_id, mid, j, to_string(m.status), m.message, s.n);
        if (s.n > 0) {  // else the statistics stay NULL
          const double stats[] = {s.median, s.mean, s.min, s.max, s.q1, s.q3, s.stdev};
          for (int k = 0; k < 7; ++k) insert_result.bind(8 + k, stats[k]);
        }
        insert_result.run();
        std::int64_t result_id = c.last_insert_rowid();
        for (std::size_t k = 0; k < m.samples.size(); ++k) {
          insert_sample.bind_all(result_id, k, m.samples[k]);
          if (!m.sm_clock_mhz.empty()) insert_sample.bind(4, m.sm_clock_mhz[k]);
          insert_sample.run();
        }
      }
    }
    return {run_id, true};
  }
};

}  // namespace

namespace {
std::vector<InsertOutcome> write_batch(Connection& c, const std::vector<const Run*>& runs) {
  Transaction tx(c, Transaction::Mode::immediate);
  Writer w(c);
  std::vector<InsertOutcome> out;
  out.reserve(runs.size());
  for (const Run* r : runs) out.push_back(w.write(*r));
  tx.commit();
  return out;
}
}  // namespace

std::vector<InsertOutcome> SqliteEngine::insert_runs(const std::vector<const Run*>& runs) {
  return write_batch(conn_, runs);
}

}  // namespace gpuperf::db
