#include "db/run_rules.hpp"

#include <cmath>
#include <set>
#include <string>
#include <utility>

#include "core/errors.hpp"
#include "db/source_lines.hpp"
#include "db/timestamp.hpp"

namespace gpuperf::db {

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
