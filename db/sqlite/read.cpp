// The SQLite engine: reading runs back — the run list, run references, and a whole run in the result model.
#include <algorithm>
#include <cctype>
#include <map>

#include "db/sqlite/engine.hpp"
#include "db/sqlite/identity.hpp"
#include "db/sqlite/source_lines.hpp"

namespace gpuperf::db {
namespace {

// "SELECT <RunInfo's columns in read_run_info's order> FROM run r JOIN machine m ...", for a WHERE to follow.
std::string select_run_info(int version) {
  return std::string(
             "SELECT r.id, r.uuid, r.machine_id, m.fingerprint, "
             "CASE WHEN r.hostname <> '' THEN r.hostname ELSE m.hostname END, "
             "m.gpu_name, r.started_at, r.finished_at, r.commit_sha, r.branch, r.label, r.tool_version, "
             "r.status, r.excluded, r.exclude_reason, "
             "(SELECT count(*) FROM outcome o WHERE o.run_id = r.id), ") +
         recorded_columns(version) + " FROM run r JOIN machine m ON m.id = r.machine_id ";
}

RunInfo read_run_info(const Statement& s) {
  RunInfo r;
  r.id = s.int64(0);
  r.uuid = s.text(1);
  r.machine_id = s.int64(2);
  r.fingerprint = s.text(3);
  r.hostname = s.text(4);
  r.gpu_name = s.text(5);
  r.started_at = s.text(6);
  r.finished_at = s.text(7);
  r.commit = s.text(8);
  r.branch = s.text(9);
  r.label = s.text(10);
  r.tool_version = s.text(11);
  r.status = status_from_string(s.text(12));
  r.excluded = s.int64(13) != 0;
  r.exclude_reason = s.text(14);
  r.instance_count = s.int64(15);
  set_recorded(r, read_recorded(s, 16));
  return r;
}

std::vector<RunInfo> read_all(Statement& s) {
  std::vector<RunInfo> out;
  while (s.step()) out.push_back(read_run_info(s));
  return out;
}

}  // namespace

std::vector<RunInfo> SqliteEngine::runs(const RunFilter& f) const {
  // Newest first so LIMIT keeps the newest N; returned oldest first.
  Statement s(conn_, select_run_info(readable_version_) +
                         "WHERE (?1 IS NULL OR r.branch = ?1) AND (?2 IS NULL OR r.machine_id = ?2) "
                         "AND (?3 IS NULL OR r.started_at >= ?3) AND (?4 OR r.excluded = 0) "
                         "ORDER BY r.started_at DESC, r.id DESC LIMIT ?5");
  if (f.branch) s.bind(1, *f.branch);
  if (f.machine_id) s.bind(2, *f.machine_id);
  if (f.since) s.bind(3, *f.since);
  s.bind(4, f.include_excluded);
  s.bind(5, f.last ? static_cast<std::int64_t>(*f.last) : std::int64_t{-1});
  auto out = read_all(s);
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<RunInfo> SqliteEngine::runs_matching(RunKey key, const std::string& value) const {
  const std::string select = select_run_info(readable_version_);
  switch (key) {
    case RunKey::id: {
      Statement s(conn_, select + "WHERE r.id = ?1");
      s.bind(1, static_cast<std::int64_t>(std::stoll(value)));
      return read_all(s);
    }
    case RunKey::uuid: {
      Statement s(conn_, select + "WHERE r.uuid = ?1");
      s.bind(1, value);
      return read_all(s);
    }
    case RunKey::uuid_prefix: {
      Statement s(conn_, select + "WHERE substr(r.uuid, 1, ?2) = ?1 ORDER BY r.id");
      s.bind_all(value, value.size());
      return read_all(s);
    }
    case RunKey::commit_prefix: {
      Statement s(conn_, select + "WHERE substr(r.commit_sha, 1, ?2) = ?1 ORDER BY r.started_at DESC, r.id DESC");
      s.bind_all(value, value.size());
      return read_all(s);
    }
  }
  return {};
}

RunIdentity SqliteEngine::identity(std::int64_t run_id) const { return read_identity(conn_, run_id); }

std::vector<SourceLine> SqliteEngine::lines_with_text(std::int64_t run_id) const {
  return read_lines_with_text(conn_, run_id);
}

std::vector<BenchmarkRow> SqliteEngine::benchmarks() const {
  std::vector<BenchmarkRow> out;
  Statement s(conn_, "SELECT id, name, params_json FROM benchmark ORDER BY id");
  while (s.step()) out.push_back({s.int64(0), BenchmarkInstance{s.text(1), params_from_json(s.text(2))}});
  return out;
}

std::vector<MetricInfo> SqliteEngine::metrics() const {
  std::vector<MetricInfo> out;
  Statement s(conn_, "SELECT name, unit, higher_is_better, deterministic FROM metric ORDER BY name");
  while (s.step()) out.push_back(MetricInfo{s.text(0), s.text(1), s.int64(2) != 0, s.int64(3) != 0});
  return out;
}

std::optional<RunInfo> SqliteEngine::latest_run(const std::string& branch,
                                                std::optional<std::int64_t> machine_id) const {
  Statement s(conn_, select_run_info(readable_version_) +
                         "WHERE r.branch = ?1 AND (?2 IS NULL OR r.machine_id = ?2) AND r.excluded = 0 "
                         "ORDER BY r.started_at DESC, r.id DESC LIMIT 1");
  s.bind(1, branch);
  if (machine_id) s.bind(2, *machine_id);
  if (s.step()) return read_run_info(s);
  return std::nullopt;
}

Run SqliteEngine::load_run(std::int64_t run_id, bool with_samples) const {
  const Connection& c = conn_;
  Run run;
  {
    Statement s(c, std::string("SELECT r.uuid, r.started_at, r.finished_at, r.commit_sha, r.branch, r.label, "
                               "r.tool_version, r.status, r.excluded, r.exclude_reason, "
                               "CASE WHEN r.hostname <> '' THEN r.hostname ELSE m.hostname END, m.gpu_name, "
                               "m.gpu_uuid, m.cc, m.sm_count, r.driver, r.cuda, ") +
                       recorded_columns(readable_version_) +
                       " FROM run r JOIN machine m ON m.id = r.machine_id WHERE r.id = ?1");
    s.bind(1, run_id);
    if (!s.step()) throw InputError("no run with id " + std::to_string(run_id));
    run.uuid = s.text(0);
    run.started_at = s.text(1);
    run.finished_at = s.text(2);
    run.commit = s.text(3);
    run.branch = s.text(4);
    run.label = s.text(5);
    run.tool_version = s.text(6);
    run.status = status_from_string(s.text(7));
    run.excluded = s.int64(8) != 0;
    run.exclude_reason = s.text(9);
    run.machine = read_machine(s, 10);
    set_recorded(run, read_recorded(s, 17));
  }
  std::map<std::int64_t, std::size_t> result_of_benchmark;
  {
    Statement s(c,
                "SELECT o.benchmark_id, b.name, b.params_json, b.baseline, o.status, o.message FROM outcome o "
                "JOIN benchmark b ON b.id = o.benchmark_id WHERE o.run_id = ?1 ORDER BY o.seq");
    s.bind(1, run_id);
    while (s.step()) {
      Result r;
      r.instance.name = s.text(1);
      r.instance.params = params_from_json(s.text(2));
      r.baseline = s.text(3);
      r.status = status_from_string(s.text(4));
      r.message = s.text(5);
      result_of_benchmark[s.int64(0)] = run.results.size();
      run.results.push_back(std::move(r));
    }
  }
  read_source_lines(c, run_id, result_of_benchmark, run);
  {
    RunIdentity id = read_identity(c, run_id);
    run.environment = std::move(id.environment);
    for (auto& [bench, code] : id.code) {
      if (auto it = result_of_benchmark.find(bench); it != result_of_benchmark.end())
        run.results[it->second].code = code;
    }
  }
  // result id -> (index of the instance in run.results, index of the metric in its metrics)
  std::map<std::int64_t, std::pair<std::size_t, std::size_t>> where_of_result;
  {
    Statement s(c,
                "SELECT res.id, res.benchmark_id, mt.name, mt.unit, mt.higher_is_better, mt.deterministic, "
                "res.status, res.message, res.n, res.median, res.mean, res.min, res.max, res.q1, res.q3, res.stdev "
                "FROM result res JOIN metric mt ON mt.id = res.metric_id WHERE res.run_id = ?1 "
                "ORDER BY res.benchmark_id, res.seq");
    s.bind(1, run_id);
    while (s.step()) {
      Measurement m;
      m.metric.name = s.text(2);
      m.metric.unit = s.text(3);
      m.metric.higher_is_better = s.int64(4) != 0;
      m.metric.deterministic = s.int64(5) != 0;
      m.status = status_from_string(s.text(6));
      m.message = s.text(7);
      m.summary = read_summary(s, 8);
      std::size_t ri = result_of_benchmark.at(s.int64(1));
      auto& metrics = run.results[ri].metrics;
      where_of_result[s.int64(0)] = {ri, metrics.size()};
      metrics.push_back(std::move(m));
    }
  }
  if (!with_samples) return run;
  Statement s(c,
              "SELECT s.result_id, s.value, s.sm_clock_mhz FROM sample s JOIN result res ON res.id = s.result_id "
              "WHERE res.run_id = ?1 ORDER BY s.result_id, s.idx");
  s.bind(1, run_id);
  while (s.step()) {
    auto [ri, mi] = where_of_result.at(s.int64(0));
    Measurement& m = run.results[ri].metrics[mi];
    m.samples.push_back(s.real(1));
    if (!s.is_null(2)) m.sm_clock_mhz.push_back(s.real(2));
  }
  return run;
}

}  // namespace gpuperf::db
