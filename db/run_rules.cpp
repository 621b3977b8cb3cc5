#include "db/run_rules.hpp"

#include <cmath>
#include <set>
#include <string>
#include <utility>

#include "core/errors.hpp"
#include "db/source_lines.hpp"
#include "db/timestamp.hpp"

namespace gpuperf::db {

std::optional<RankProblem> rank_problem(const Run& run) {
  if (run.rank && *run.rank < 0) {
    return RankProblem{"rank", "expected 0 or more (ranks count from 0), got " + std::to_string(*run.rank)};
  }
  if (run.local_rank && *run.local_rank < 0) {
    return RankProblem{"local_rank",
                       "expected 0 or more (local ranks count from 0), got " + std::to_string(*run.local_rank)};
  }
  if (run.world_size && *run.world_size < 1) {
    return RankProblem{"world_size", "expected 1 or more processes, got " + std::to_string(*run.world_size)};
  }
  if (!run.world_size) return std::nullopt;
  const std::string size = std::to_string(*run.world_size);
  if (run.rank && *run.rank >= *run.world_size) {
    return RankProblem{"rank", "rank " + std::to_string(*run.rank) + " is not below world_size " + size +
                                   " (ranks count from 0 to world_size - 1)"};
  }
  if (run.local_rank && *run.local_rank >= *run.world_size) {
    return RankProblem{"local_rank", "local_rank " + std::to_string(*run.local_rank) + " is not below world_size " +
                                         size + " (a host runs at most world_size processes of the job)"};
  }
  return std::nullopt;
}

void validate_run(const Run& run) {
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
  if (const auto problem = rank_problem(run)) throw InputError(where + ": " + problem->field + ": " + problem->what);
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& r : run.results) {
    const std::string inst = where + ", " + r.instance.display_name();
    if (r.instance.name.empty()) throw InputError(where + ": a result has no benchmark name");
    if (!seen.emplace(r.instance.name, params_key(r.instance.params)).second) {
      throw InputError(inst + ": the benchmark instance appears twice in the run");
    }
    validate_source_lines(r.source, inst);
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

// One metric name, one meaning: a series must not mix units or directions.
void check_metric_traits(const MetricInfo& m, const MetricInfo& stored, const std::string& where) {
  if (stored.unit != m.unit) {
    throw InputError(where + ": metric '" + m.name + "' has unit '" + m.unit + "', but the database stores " +
                     "it in '" + stored.unit + "'");
  }
  if (stored.higher_is_better != m.higher_is_better) {
    throw InputError(where + ": metric '" + m.name + "' says " + (m.higher_is_better ? "higher" : "lower") +
                     " is better, but the database says " + (stored.higher_is_better ? "higher" : "lower"));
  }
  if (stored.deterministic != m.deterministic) {
    throw InputError(where + ": metric '" + m.name + "' is marked " +
                     (m.deterministic ? "deterministic" : "not deterministic") + ", but the database says " +
                     (stored.deterministic ? "deterministic" : "not deterministic"));
  }
}

}  // namespace gpuperf::db
