// The PostgreSQL engine: writing runs. A batch of runs is one transaction under the write lock: readers see
// all of it or nothing, a run whose uuid is stored already is skipped, and a failure anywhere (the server
// gone, a constraint) leaves the database as it was. The batch's outcomes, results and samples go to the
// server with COPY, three statements for every few MiB of rows, whatever the number of runs.
#include <endian.h>

#include <cstring>
#include <map>
#include <tuple>

#include "db/postgres/engine.hpp"
#include "db/postgres/identity.hpp"
#include "db/postgres/source_lines.hpp"
#include "db/run_rules.hpp"

namespace gpuperf::db::pg {
namespace {

void put16(std::string& out, std::uint16_t v) {
  const std::uint16_t b = htobe16(v);
  out.append(reinterpret_cast<const char*>(&b), 2);
}
void put32(std::string& out, std::uint32_t v) {
  const std::uint32_t b = htobe32(v);
  out.append(reinterpret_cast<const char*>(&b), 4);
}
void put64(std::string& out, std::uint64_t v) {
  const std::uint64_t b = htobe64(v);
  out.append(reinterpret_cast<const char*>(&b), 8);
}
// A float8 field: its length, then the IEEE 754 bits in network order.
void put_double(std::string& out, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, 8);
  put32(out, 8);
  put64(out, bits);
}

// Runs stored at once from which the tables' statistics are refreshed right away.
constexpr std::size_t kAnalyzeAfterRuns = 20;

struct Writer {
  explicit Writer(const Connection& conn) : c(conn) {
    Result r = c.exec("SELECT id, name, params_key, baseline FROM benchmark", {}, "reading benchmarks");
    for (int i = 0; i < r.rows(); ++i) {
      benchmarks[{r.text(i, 1), r.text(i, 2)}] = {r.int64(i, 0), r.text(i, 3)};
    }
  }

  const Connection& c;
  std::map<std::pair<std::string, std::string>, std::pair<std::int64_t, std::string>> benchmarks;  // -> id, baseline
  // Read from the database once per batch; each later use in the batch is checked against the first, so a
  // batch cannot store one metric name with two units.
  std::map<std::string, std::pair<std::int64_t, MetricInfo>> metric_ids;
  // Rows for COPY, in its text format: a batch's runs go together, a few MiB at a time.
  static constexpr std::size_t kFlushBytes = 8u << 20;
  std::string outcomes, results, samples;
  SourceLineRows source_lines;
  IdentityRows identities;

  // Sends the rows gathered so far, parents first.
  void flush() {
    if (!outcomes.empty()) {
      c.copy_in("COPY outcome(run_id, benchmark_id, seq, status, message) FROM STDIN", outcomes, "storing runs");
    }
    source_lines.flush(c);
    identities.flush(c);
    if (!results.empty()) {
      c.copy_in(
          "COPY result(id, run_id, benchmark_id, metric_id, seq, status, message, n, median, mean, min, max, q1, q3, "
          "stdev) FROM STDIN",
          results, "storing runs");
    }
    if (!samples.empty()) {
      // Samples in binary: no double printed and parsed again (PostgreSQL's COPY documentation, "Binary Format").
      static const char kSignature[] = "PGCOPY\n\377\r\n";  // 11 bytes with its NUL
      std::string data(kSignature, 11);
      put32(data, 0);  // flags
      put32(data, 0);  // header extension length
      data += samples;
      put16(data, 0xffffu);  // -1: the end
      c.copy_in("COPY sample(result_id, idx, value, sm_clock_mhz) FROM STDIN (FORMAT binary)", data, "storing runs");
    }
    outcomes.clear();
    results.clear();
    samples.clear();
  }

  std::int64_t metric_id(const MetricInfo& m, const std::string& where) {
    if (auto it = metric_ids.find(m.name); it != metric_ids.end()) {
      check_metric_traits(m, it->second.second, where);
      return it->second.first;
    }
    std::int64_t id = 0;
    Result r = c.exec("SELECT id, unit, higher_is_better, deterministic FROM metric WHERE name = $1",
                      Params().add(m.name), "storing runs");
    if (r.rows() > 0) {
      id = r.int64(0, 0);
      check_metric_traits(m, MetricInfo{m.name, r.text(0, 1), r.boolean(0, 2), r.boolean(0, 3)}, where);
    } else {
      id = c.exec("INSERT INTO metric(name, unit, higher_is_better, deterministic) VALUES($1, $2, $3, $4) RETURNING id",
                  Params().add(m.name).add(m.unit).add(m.higher_is_better).add(m.deterministic), "storing runs")
               .int64(0, 0);
    }
    metric_ids.emplace(m.name, std::make_pair(id, m));
    return id;
  }

  std::int64_t machine_id(const Run& run) {
    const Machine& mc = run.machine;
    Result found =
        c.exec("SELECT id FROM machine WHERE fingerprint = $1", Params().add(mc.fingerprint()), "storing runs");
    std::int64_t id = 0;
    if (found.rows() == 0) {
      id = c.exec(
                "INSERT INTO machine(fingerprint, hostname, gpu_name, gpu_uuid, cc, sm_count, driver, cuda) "
                "VALUES($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
                Params()
                    .add(mc.fingerprint())
                    .add(mc.hostname)
                    .add(mc.gpu_name)
                    .add(mc.gpu_uuid)
                    .add(mc.cc)
                    .add(mc.sm_count)
                    .add(mc.driver)
                    .add(mc.cuda),
                "storing runs")
               .int64(0, 0);
    } else {
      id = found.int64(0, 0);
      // What an earlier run did not know, a later one fills in.
      c.exec(
          "UPDATE machine SET gpu_name = CASE WHEN gpu_name = '' THEN $2 ELSE gpu_name END, "
          "cc = CASE WHEN cc = '' THEN $3 ELSE cc END, sm_count = CASE WHEN sm_count = 0 THEN $4 ELSE sm_count END "
          "WHERE id = $1 AND (gpu_name = '' OR cc = '' OR sm_count = 0)",
          Params().add(id).add(mc.gpu_name).add(mc.cc).add(mc.sm_count), "storing runs");
    }
    // The machine row shows the host, driver and CUDA of its newest run.
    c.exec(
        "UPDATE machine SET hostname = $2, driver = $3, cuda = $4 WHERE id = $1 AND NOT EXISTS "
        "(SELECT 1 FROM run WHERE machine_id = $1 AND started_at > $5)",
        Params().add(id).add(mc.hostname).add(mc.driver).add(mc.cuda).add(run.started_at), "storing runs");
    return id;
  }

  InsertOutcome write(const Run& run) {
    Result existing = c.exec("SELECT id FROM run WHERE uuid = $1", Params().add(run.uuid), "storing runs");
    if (existing.rows() > 0) return {existing.int64(0, 0), false};
    const Machine& mc = run.machine;
    const std::int64_t machine = machine_id(run);
    const bool newest = c.exec("SELECT NOT EXISTS (SELECT 1 FROM run WHERE started_at > $1)",
                               Params().add(run.started_at), "storing runs")
                            .boolean(0, 0);
    Params p;
    p.add(run.uuid)
        .add(machine)
        .add(run.started_at)
        .add(run.finished_at)
        .add(run.commit)
        .add(run.branch)
        .add(run.label)
        .add(run.tool_version)
        .add(std::string(to_string(run.status)))
        .add(run.excluded)
        .add(run.excluded ? run.exclude_reason : std::string())
        .add(mc.hostname)
        .add(mc.driver)
        .add(mc.cuda);
    // A benchmark run has neither: NULL, as on SQLite.
    if (run.command.empty()) {
      p.add_null();
    } else {
      p.add(run.command);
    }
    p.add(run.exit_status).add(run.rank).add(run.local_rank).add(run.world_size);
    const std::int64_t run_id =
        c.exec(
             "INSERT INTO run(uuid, machine_id, started_at, finished_at, commit_sha, branch, label, tool_version, "
             "status, excluded, exclude_reason, hostname, driver, cuda, command, exit_status, rank, local_rank, "
             "world_size) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) "
             "RETURNING id",
             p, "storing runs")
            .int64(0, 0);

    identities.add_environment(run_id, run);
    // Result ids, taken in the order SQLite would give them.
    std::size_t result_count = 0;
    for (const auto& r : run.results) result_count += r.metrics.size();
    std::vector<std::int64_t> result_ids;
    if (result_count > 0) {
      Result ids = c.exec("SELECT nextval(pg_get_serial_sequence('result', 'id')) FROM generate_series(1, $1)",
                          Params().add(result_count), "storing runs");
      for (int i = 0; i < ids.rows(); ++i) result_ids.push_back(ids.int64(i, 0));
    }

    std::size_t next_result = 0;
    const std::string run_text = std::to_string(run_id);
    for (std::size_t i = 0; i < run.results.size(); ++i) {
      const ::gpuperf::Result& r = run.results[i];
      const std::string where = "run " + run.uuid + ", " + r.instance.display_name();
      const std::int64_t bench = benchmark(r, newest);
      const std::string bench_text = std::to_string(bench);
      outcomes += run_text + '\t' + bench_text + '\t' + std::to_string(i) + '\t' + to_string(r.status) + '\t';
      copy_text_field(outcomes, r.message);
      outcomes += '\n';
      source_lines.add(run_id, bench, r.source);
      identities.add_code(run_id, bench, r.code);
      for (std::size_t j = 0; j < r.metrics.size(); ++j) {
        const Measurement& m = r.metrics[j];
        const std::int64_t mid = metric_id(m.metric, where);
        const std::int64_t rid = result_ids.at(next_result++);
        const std::string result_id = std::to_string(rid);
        // The summary is always recomputed from the raw samples when there are any.
        const Summary s = m.samples.empty() ? m.summary : summarize(m.samples);
        results += result_id + '\t' + run_text + '\t' + bench_text + '\t' + std::to_string(mid) + '\t' +
                   std::to_string(j) + '\t' + to_string(m.status) + '\t';
        copy_text_field(results, m.message);
        results += '\t' + std::to_string(s.n);
        const double stats[] = {s.median, s.mean, s.min, s.max, s.q1, s.q3, s.stdev};
        for (double v : stats) results += '\t' + (s.n > 0 ? round_trip(v) : std::string("\\N"));
        results += '\n';
        for (std::size_t k = 0; k < m.samples.size(); ++k) {
          // A tuple of COPY's binary format: the field count, then each field's length and big-endian value.
          put16(samples, 4);
          put32(samples, 8);
          put64(samples, static_cast<std::uint64_t>(rid));
          put32(samples, 4);
          put32(samples, static_cast<std::uint32_t>(k));
          put_double(samples, m.samples[k]);
          if (m.sm_clock_mhz.empty()) {
            put32(samples, 0xffffffffu);  // -1: NULL
          } else {
            put_double(samples, m.sm_clock_mhz[k]);
          }
        }
      }
    }
    if (samples.size() + source_lines.bytes() + identities.bytes() > kFlushBytes) flush();
    return {run_id, true};
  }

  // The benchmark instance's id; the newest run's baseline is the one kept.
  std::int64_t benchmark(const ::gpuperf::Result& r, bool newest) {
    const std::string key = params_key(r.instance.params);
    auto it = benchmarks.find({r.instance.name, key});
    if (it == benchmarks.end()) {
      const std::int64_t id =
          c.exec("INSERT INTO benchmark(name, params_json, params_key, baseline) VALUES($1, $2, $3, $4) RETURNING id",
                 Params().add(r.instance.name).add(params_json(r.instance.params)).add(key).add(r.baseline),
                 "storing runs")
              .int64(0, 0);
      benchmarks[{r.instance.name, key}] = {id, r.baseline};
      return id;
    }
    if (newest && it->second.second != r.baseline) {
      c.exec("UPDATE benchmark SET baseline = $2 WHERE id = $1", Params().add(it->second.first).add(r.baseline),
             "storing runs");
      it->second.second = r.baseline;
    }
    return it->second.first;
  }
};

}  // namespace

std::vector<InsertOutcome> PgEngine::insert_runs(const std::vector<const Run*>& runs) {
  Transaction tx(conn_);
  begin_write(tx);
  Writer w(conn_);
  std::vector<InsertOutcome> out;
  out.reserve(runs.size());
  for (const Run* r : runs) out.push_back(w.write(*r));
  w.flush();
  tx.commit();
  // A large import leaves the planner without statistics until autovacuum comes by (a minute or more), and
  // the history query planned without them took 4.4 s instead of 1.6 s for a year of nights. Tables the
  // role does not own are skipped with a notice, which is not an error.
  std::size_t inserted = 0;
  for (const InsertOutcome& o : out) inserted += o.inserted ? 1 : 0;
  if (inserted >= kAnalyzeAfterRuns) {
    try {
      conn_.exec_script("ANALYZE machine, run, benchmark, metric, outcome, result", "updating statistics");
    } catch (const Error&) {
      // Only the planner's speed depends on it; the runs are stored.
    }
  }
  return out;
}

}  // namespace gpuperf::db::pg
