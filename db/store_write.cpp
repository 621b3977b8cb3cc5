// Store: writing runs. A run (or a batch of runs) is one BEGIN IMMEDIATE transaction: readers see all of
// it or nothing, and an error anywhere leaves the database as it was.
#include <cmath>
#include <map>
#include <set>

#include "db/store_impl.hpp"
#include "db/timestamp.hpp"

namespace gpuperf::db {
namespace {

// Checks what the schema cannot: names, finite values, matching lengths, no instance twice.
void validate(const Run& run) {
  const std::string where = "run " + (run.uuid.empty() ? std::string("(no uuid)") : run.uuid);
  if (run.uuid.empty()) throw InputError("a run needs a uuid");
  if (!is_normalized_timestamp(run.started_at)) {
    throw InputError(where + ": started_at '" + run.started_at + "' is not an ISO 8601 UTC time like " +
                     "2026-11-01T02:00:00Z");
  }
  if (!run.finished_at.empty() && !is_normalized_timestamp(run.finished_at)) {
    throw InputError(where + ": finished_at '" + run.finished_at + "' is not an ISO 8601 UTC time");
  }
  if (run.machine.fingerprint() == "/") throw InputError(where + ": the machine has no hostname, GPU name or UUID");
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& r : run.results) {
    const std::string inst = where + ", " + r.instance.display_name();
    if (r.instance.name.empty()) throw InputError(where + ": a result has no benchmark name");
    if (!seen.emplace(r.instance.name, params_key(r.instance.params)).second) {
      throw InputError(inst + ": the benchmark instance appears twice in the run");
    }
    std::set<std::string> metric_names;
    for (const auto& m : r.metrics) {
      const std::string mw = inst + ", metric " + m.metric.name;
      if (m.metric.name.empty()) throw InputError(inst + ": a metric has no name");
      if (!metric_names.insert(m.metric.name).second) throw InputError(mw + ": the metric appears twice");
      for (double v : m.samples) {
        if (!std::isfinite(v)) throw InputError(mw + ": a sample is not a finite number");
      }
      if (!m.sm_clock_mhz.empty() && m.sm_clock_mhz.size() != m.samples.size()) {
        throw InputError(mw + ": " + std::to_string(m.sm_clock_mhz.size()) + " SM clock readings for " +
                         std::to_string(m.samples.size()) + " samples");
      }
      for (double v : m.sm_clock_mhz) {
        if (!std::isfinite(v)) throw InputError(mw + ": an SM clock reading is not a finite number");
      }
    }
  }
}

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
      "status, excluded, exclude_reason, hostname, driver, cuda, command, exit_status) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"};
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
  std::map<std::string, std::int64_t> metric_ids;  // checked against the stored traits once per batch

  std::int64_t metric_id(const MetricInfo& m, const std::string& where) {
    if (auto it = metric_ids.find(m.name); it != metric_ids.end()) return it->second;
    std::int64_t id = 0;
    find_metric.bind(1, m.name);
    if (find_metric.step()) {
      id = find_metric.int64(0);
      std::string unit = find_metric.text(1);
      bool hib = find_metric.int64(2) != 0, det = find_metric.int64(3) != 0;
      find_metric.reset();
      // One metric name, one meaning: a series must not mix units or directions.
      if (unit != m.unit) {
        throw InputError(where + ": metric '" + m.name + "' has unit '" + m.unit + "', but the database stores " +
                         "it in '" + unit + "'");
      }
      if (hib != m.higher_is_better) {
        throw InputError(where + ": metric '" + m.name + "' says " + (m.higher_is_better ? "higher" : "lower") +
                         " is better, but the database says " + (hib ? "higher" : "lower"));
      }
      if (det != m.deterministic) {
        throw InputError(where + ": metric '" + m.name + "' is marked " +
                         (m.deterministic ? "deterministic" : "not deterministic") + ", but the database says " +
                         (det ? "deterministic" : "not deterministic"));
      }
    } else {
      find_metric.reset();
      insert_metric.bind_all(m.name, m.unit, m.higher_is_better, m.deterministic).run();
      id = c.last_insert_rowid();
    }
    metric_ids.emplace(m.name, id);
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
    validate(run);
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
    insert_run.run();
    std::int64_t run_id = c.last_insert_rowid();

    for (std::size_t i = 0; i < run.results.size(); ++i) {
      const Result& r = run.results[i];
      const std::string where = "run " + run.uuid + ", " + r.instance.display_name();
      upsert_benchmark.bind_all(r.instance.name, params_json(r.instance.params), params_key(r.instance.params),
                                r.baseline, newest);
      std::int64_t bench_id = returning_id(upsert_benchmark);
      insert_outcome.bind_all(run_id, bench_id, i, to_string(r.status), r.message).run();
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

InsertOutcome Store::insert_run(const Run& run) { return write_batch(impl_->conn, {&run}).front(); }

std::vector<InsertOutcome> Store::insert_runs(const std::vector<Run>& runs) {
  std::vector<const Run*> ptrs;
  ptrs.reserve(runs.size());
  for (const Run& r : runs) ptrs.push_back(&r);
  return write_batch(impl_->conn, ptrs);
}

}  // namespace gpuperf::db
