// Store::history: series of (machine, benchmark instance, metric) over runs, for the analysis layer.
//
// One query reads every matching result row already in series order (the index result_by_series and the
// run indexes keep it fast: a year of nightly runs, ~40 instances x ~12 metrics, is ~175k rows); raw
// samples are read only on request, one indexed range per point.
#include <regex>

#include <nlohmann/json.hpp>

#include "db/store_impl.hpp"

namespace gpuperf::db {
namespace {

// The benchmark ids whose display name matches `pattern` (ECMAScript syntax, searched, not anchored).
std::string matching_benchmarks_json(const Connection& c, const std::string& pattern) {
  std::regex re;
  try {
    re = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw InputError("benchmark filter '" + pattern + "' is not a valid regular expression: " + e.what());
  }
  nlohmann::json ids = nlohmann::json::array();
  Statement s(c, "SELECT id, name, params_json FROM benchmark");
  while (s.step()) {
    BenchmarkInstance inst{s.text(1), params_from_json(s.text(2))};
    if (std::regex_search(inst.display_name(), re)) ids.push_back(s.int64(0));
  }
  return ids.dump();
}

std::string names_json(const std::vector<std::string>& names) { return nlohmann::json(names).dump(); }

}  // namespace

std::vector<Series> Store::history(const HistoryFilter& f) const {
  const Connection& c = impl_->conn;
  // ?1 branch, ?2 machine, ?3 since, ?4 include excluded, ?5 newest N runs per machine,
  // ?6 metric names (JSON array), ?7 benchmark ids (JSON array), ?8 include failed
  Statement s(c, R"sql(
WITH chosen AS (
  SELECT id FROM (
    SELECT id, row_number() OVER (PARTITION BY machine_id ORDER BY started_at DESC, id DESC) AS newest
    FROM run
    WHERE (?1 IS NULL OR branch = ?1) AND (?2 IS NULL OR machine_id = ?2) AND (?3 IS NULL OR started_at >= ?3)
      AND (?4 OR excluded = 0))
  WHERE ?5 IS NULL OR newest <= ?5)
SELECT r.machine_id, m.fingerprint, res.benchmark_id, b.name, b.params_json,
       mt.name, mt.unit, mt.higher_is_better, mt.deterministic,
       r.id, res.id, r.uuid, r.commit_sha, r.branch, r.started_at, o.status, res.status, r.excluded,
       res.n, res.median, res.mean, res.min, res.max, res.q1, res.q3, res.stdev
FROM chosen
JOIN run r ON r.id = chosen.id
JOIN machine m ON m.id = r.machine_id
JOIN result res ON res.run_id = r.id
JOIN outcome o ON o.run_id = res.run_id AND o.benchmark_id = res.benchmark_id
JOIN benchmark b ON b.id = res.benchmark_id
JOIN metric mt ON mt.id = res.metric_id
WHERE (?6 IS NULL OR mt.name IN (SELECT value FROM json_each(?6)))
  AND (?7 IS NULL OR res.benchmark_id IN (SELECT value FROM json_each(?7)))
  AND (?8 OR (o.status = 'ok' AND res.status = 'ok'))
ORDER BY m.fingerprint, b.name, b.params_key, mt.name, r.started_at, r.id
)sql");
  if (f.branch) s.bind(1, *f.branch);
  if (f.machine_id) s.bind(2, *f.machine_id);
  if (f.since) s.bind(3, *f.since);
  s.bind(4, f.include_excluded);
  if (f.last_runs) s.bind(5, *f.last_runs);
  if (!f.metrics.empty()) s.bind(6, names_json(f.metrics));
  if (!f.benchmark_regex.empty()) s.bind(7, matching_benchmarks_json(c, f.benchmark_regex));
  s.bind(8, f.include_failed);

  std::vector<Series> out;
  std::int64_t cur_machine = -1, cur_bench = -1;
  std::string cur_metric;
  while (s.step()) {
    std::int64_t machine_id = s.int64(0), bench_id = s.int64(2);
    std::string metric = s.text(5);
    if (out.empty() || machine_id != cur_machine || bench_id != cur_bench || metric != cur_metric) {
      Series series;
      series.key.machine_id = machine_id;
      series.key.fingerprint = s.text(1);
      series.key.benchmark_id = bench_id;
      series.key.instance = BenchmarkInstance{s.text(3), params_from_json(s.text(4))};
      series.key.metric = MetricInfo{metric, s.text(6), s.int64(7) != 0, s.int64(8) != 0};
      out.push_back(std::move(series));
      cur_machine = machine_id;
      cur_bench = bench_id;
      cur_metric = metric;
    }
    SeriesPoint p;
    p.run_id = s.int64(9);
    p.result_id = s.int64(10);
    p.run_uuid = s.text(11);
    p.commit = s.text(12);
    p.branch = s.text(13);
    p.started_at = s.text(14);
    // The instance's disposition outranks its metric's: an incorrect kernel's duration is not a point.
    Status instance_status = status_from_string(s.text(15));
    p.status = instance_status != Status::ok ? instance_status : status_from_string(s.text(16));
    p.excluded = s.int64(17) != 0;
    p.summary = read_summary(s, 18);
    out.back().points.push_back(std::move(p));
  }

  if (f.with_samples) {
    Statement samples(c, "SELECT value, sm_clock_mhz FROM sample WHERE result_id = ?1 ORDER BY idx");
    for (auto& series : out) {
      for (auto& p : series.points) {
        samples.bind(1, p.result_id);
        while (samples.step()) {
          p.samples.push_back(samples.real(0));
          if (!samples.is_null(1)) p.sm_clock_mhz.push_back(samples.real(1));
        }
        samples.reset();
      }
    }
  }
  return out;
}

}  // namespace gpuperf::db
