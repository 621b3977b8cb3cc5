// The SQLite engine's history rows: every (machine, benchmark instance, metric) point a filter selects.
//
// One query reads every matching result row (a year of nightly runs, ~40 instances x ~12 metrics, is ~175k
// rows); they are grouped into series and sorted here. Raw samples are read only on request.
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "db/sqlite/engine.hpp"

namespace gpuperf::db {
namespace {

std::string names_json(const std::vector<std::string>& names) { return nlohmann::json(names).dump(); }

// Fills the points' samples and clocks. Few points: one indexed range each. Many (a large part of all
// results): one pass over the whole sample table in key order, which beats 100k separate look-ups.
void load_samples_from(const Connection& c, std::vector<Series>& out, std::size_t points) {
  const auto all_results = static_cast<std::size_t>(query_int(c, "SELECT count(*) FROM result"));
  if (points * 4 < all_results) {
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
    return;
  }
  std::unordered_map<std::int64_t, SeriesPoint*> by_result;
  by_result.reserve(points);
  for (auto& series : out) {
    for (auto& p : series.points) by_result.emplace(p.result_id, &p);
  }
  Statement scan(c, "SELECT result_id, value, sm_clock_mhz FROM sample ORDER BY result_id, idx");
  std::int64_t last_id = -1;
  SeriesPoint* cur = nullptr;
  while (scan.step()) {
    std::int64_t id = scan.int64(0);
    if (id != last_id) {
      auto it = by_result.find(id);
      cur = it == by_result.end() ? nullptr : it->second;
      last_id = id;
    }
    if (cur == nullptr) continue;
    cur->samples.push_back(scan.real(1));
    if (!scan.is_null(2)) cur->sm_clock_mhz.push_back(scan.real(2));
  }
}

}  // namespace

void SqliteEngine::load_samples(std::vector<Series>& series, std::size_t points) const {
  load_samples_from(conn_, series, points);
}

void SqliteEngine::history_rows(const HistoryFilter& f, const std::optional<std::vector<std::int64_t>>& benchmark_ids,
                                const std::function<void(HistoryRow&&)>& row) const {
  const Connection& c = conn_;
  // ?1 branch, ?2 machine, ?3 since, ?4 include excluded, ?5 newest N runs per machine,
  // ?6 metric names (JSON array), ?7 benchmark ids (JSON array), ?8 include failed, ?9 last run id.
  // No ORDER BY: sorting ~175k wide rows in SQLite costs several times the query itself, so rows are
  // grouped into series here and each series sorted on its own.
  Statement s(c, R"sql(
WITH chosen AS (
  SELECT id FROM (
    SELECT id, row_number() OVER (PARTITION BY machine_id ORDER BY started_at DESC, id DESC) AS newest
    FROM run
    WHERE (?1 IS NULL OR branch = ?1) AND (?2 IS NULL OR machine_id = ?2) AND (?3 IS NULL OR started_at >= ?3)
      AND (?4 OR excluded = 0) AND (?9 IS NULL OR id <= ?9))
  WHERE ?5 IS NULL OR newest <= ?5)
SELECT r.machine_id, m.fingerprint, res.benchmark_id, b.name, b.params_json, b.params_key,
       res.metric_id, mt.name, mt.unit, mt.higher_is_better, mt.deterministic,
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
)sql");
  if (f.branch) s.bind(1, *f.branch);
  if (f.machine_id) s.bind(2, *f.machine_id);
  if (f.since) s.bind(3, *f.since);
  s.bind(4, f.include_excluded);
  if (f.last_runs) s.bind(5, *f.last_runs);
  if (!f.metrics.empty()) s.bind(6, names_json(f.metrics));
  if (benchmark_ids) s.bind(7, nlohmann::json(*benchmark_ids).dump());
  s.bind(8, f.include_failed);
  if (f.up_to_run_id) s.bind(9, *f.up_to_run_id);

  while (s.step()) {
    HistoryRow r;
    r.machine_id = s.int64(0);
    r.fingerprint = s.text(1);
    r.benchmark_id = s.int64(2);
    r.name = s.text(3);
    r.params_json = s.text(4);
    r.params_key = s.text(5);
    r.metric_id = s.int64(6);
    r.metric = MetricInfo{s.text(7), s.text(8), s.int64(9) != 0, s.int64(10) != 0};
    SeriesPoint& p = r.point;
    p.run_id = s.int64(11);
    p.result_id = s.int64(12);
    p.run_uuid = s.text(13);
    p.commit = s.text(14);
    p.branch = s.text(15);
    p.started_at = s.text(16);
    r.instance_status = status_from_string(s.text(17));
    r.result_status = status_from_string(s.text(18));
    p.excluded = s.int64(19) != 0;
    p.summary = read_summary(s, 20);
    row(std::move(r));
  }
}

}  // namespace gpuperf::db
