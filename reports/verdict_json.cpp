// The JSON writer of compare, check and detect (verdict_writer.hpp documents the fields): every row, every
// change, for programs; the text and Markdown writer and the JUnit writer are verdict_writer.cpp and
// verdict_junit.cpp.
#include "reports/verdict_json.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/value_text.hpp"
#include "db/answers_json.hpp"
#include "reports/analysis/identity_findings.hpp"
#include "reports/kind_split_text.hpp"
#include "reports/line_text.hpp"
#include "reports/program_text.hpp"
#include "reports/verdict_parts.hpp"

namespace gpuperf::reports {

using namespace gpuperf::analysis;

namespace {

using nlohmann::json;

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json params_object(const Params& p) { return json::parse(params_json(p)); }

json side_json(const RunSide& s) {
  json j{{"run", s.uuid},    {"run_id", s.run_id},         {"commit", s.commit},       {"branch", s.branch},
         {"label", s.label}, {"started_at", s.started_at}, {"machine", s.fingerprint}, {"gpu_name", s.gpu_name}};
  // A recorded process of a distributed job; absent otherwise, as in the interchange format.
  if (s.rank) j["rank"] = *s.rank;
  if (s.local_rank) j["local_rank"] = *s.local_rank;
  if (s.world_size) j["world_size"] = *s.world_size;
  return j;
}

json row_json(const CompareRow& r, const CompareReport& report) {
  json j;
  j["machine"] = r.machine;
  j["benchmark"] = r.instance.name;
  j["params"] = params_object(r.instance.params);
  j["metric"] = r.metric.name;
  j["unit"] = r.metric.unit;
  j["commit"] = report.candidate.commit;
  j["previous_commit"] = report.base.commit;
  j["run"] = report.candidate.uuid;
  j["kind"] = r.verdict == Verdict::slower   ? json("regression")
              : r.verdict == Verdict::faster ? json("improvement")
                                             : json(nullptr);
  const bool both = r.base && r.candidate && r.base->n > 0 && r.candidate->n > 0;
  j["change_pct"] = both ? number_or_null(r.change_pct) : json(nullptr);
  j["before"] = r.base && r.base->n > 0 ? json(r.base->median) : json(nullptr);
  j["after"] = r.candidate && r.candidate->n > 0 ? json(r.candidate->median) : json(nullptr);
  j["confidence"] = 1 - r.p_value;
  j["verdict"] = to_string(r.verdict);
  j["p_value"] = r.p_value;
  j["welch_p_value"] = r.welch_p_value;
  j["ci_low_pct"] = number_or_null(r.ci_low_pct);
  j["ci_high_pct"] = number_or_null(r.ci_high_pct);
  j["min_effect_pct"] = r.min_effect_pct;
  j["n_before"] = r.base ? r.base->n : 0;
  j["n_after"] = r.candidate ? r.candidate->n : 0;
  j["base_status"] = to_string(r.base_status);
  j["candidate_status"] = to_string(r.candidate_status);
  j["base_clock_mhz"] = r.base_clock_mhz > 0 ? json(r.base_clock_mhz) : json(nullptr);
  j["candidate_clock_mhz"] = r.candidate_clock_mhz > 0 ? json(r.candidate_clock_mhz) : json(nullptr);
  j["confirmed_in_cycles"] = r.confirmed_in_cycles;
  j["note"] = r.note;
  if (!r.code.empty()) j["code"] = r.code;
  j["ambiguous_by_history"] = r.ambiguous_by_history;
  j["gated"] = r.gated;
  if (!r.lines.empty()) j["lines"] = line_changes_json(r.lines);
  if (r.accepted) j["accepted_baseline"] = db::acknowledgement_json(*r.accepted);
  if (!r.next_step.empty()) j["next_step"] = r.next_step;
  return j;
}

json environment_json(const std::vector<env::Change>& changes) {
  json out = json::array();
  for (const env::Change& c : changes) out.push_back(json{{"field", c.key}, {"before", c.before}, {"after", c.after}});
  return out;
}

json steps_json(const std::vector<EnvironmentStep>& steps, const std::vector<ChangePoint>& changes) {
  json out = json::array();
  for (const EnvironmentStep& s : steps) {
    json kernels = json::array();
    for (std::size_t i : s.changes) {
      const ChangePoint& c = changes[i];
      kernels.push_back(json{{"benchmark", c.instance.name},
                             {"params", params_object(c.instance.params)},
                             {"kind", to_string(c.kind)},
                             {"change_pct", number_or_null(c.change_pct)},
                             {"code", c.code}});
    }
    out.push_back(json{{"machine", s.machine},
                       {"run", s.run_uuid},
                       {"run_id", s.run_id},
                       {"previous_run_id", s.previous_run_id},
                       {"commit", s.commit},
                       {"previous_commit", s.previous_commit},
                       {"started_at", s.started_at},
                       {"environment", environment_json(s.environment)},
                       {"summary", describe_step(s, changes)},
                       {"kernels", std::move(kernels)}});
  }
  return out;
}

json short_series_json(const std::vector<ShortSeries>& too_short) {
  json a = json::array();
  for (const auto& s : too_short) {
    a.push_back(json{{"machine", s.machine},
                     {"benchmark", s.instance.name},
                     {"params", params_object(s.instance.params)},
                     {"metric", s.metric.name},
                     {"verdict", "not enough data"},
                     {"runs", s.runs},
                     {"needed", s.needed},
                     {"next_step", s.next_command + s.after_command}});
  }
  return a;
}

}  // namespace

void write_compare_json(std::ostream& out, const CompareReport& report) {
  json j;
  j["base"] = side_json(report.base);
  j["candidate"] = side_json(report.candidate);
  j["regression"] = report.regression();
  j["gate"] = json{{"rule", report.gate.describe()}, {"added", report.gate.added()}};
  j["ungated_slower"] =
      std::count_if(report.rows.begin(), report.rows.end(), [](const CompareRow& r) { return is_ungated_slowdown(r); });
  json summary = json::object();
  for (const auto& [v, n] : verdict_counts(report.rows)) summary[to_string(v)] = n;
  j["summary"] = summary;
  j["ambiguous_by_history"] = ambiguous_by_history(report.rows);
  j["missing_instances"] = report.missing_instances();
  j["missing_fails"] = report.missing_fails();
  j["allow_missing"] = report.allow_missing;
  if (report.program) j["program"] = program_change_json(*report.program);
  j["rows"] = json::array();
  for (const auto& r : report.rows) j["rows"].push_back(row_json(r, report));
  if (report.kinds) j["kinds"] = kind_split_change_json(*report.kinds);
  j["environment"] = environment_json(report.environment);
  out << j.dump(2) << '\n';
}

void write_changes_json(std::ostream& out, const std::vector<ChangePoint>& changes,
                        const std::vector<EnvironmentStep>& steps, const std::vector<ShortSeries>& too_short,
                        const std::vector<ChangePoint>& programs) {
  json j;
  if (!programs.empty()) j["programs"] = program_changes_json(programs);
  j["changes"] = json::array();
  for (const auto& c : changes) {
    j["changes"].push_back(json{{"machine", c.machine},
                                {"benchmark", c.instance.name},
                                {"params", params_object(c.instance.params)},
                                {"metric", c.metric.name},
                                {"unit", c.metric.unit},
                                {"deterministic", c.metric.deterministic},
                                {"commit", c.commit},
                                {"previous_commit", c.previous_commit},
                                {"run", c.run_uuid},
                                {"run_id", c.run_id},
                                {"previous_run_id", c.previous_run_id},
                                {"started_at", c.started_at},
                                {"index", c.index},
                                {"kind", to_string(c.kind)},
                                {"change_pct", number_or_null(c.change_pct)},
                                {"before", c.before},
                                {"after", c.after},
                                {"confidence", c.confidence},
                                {"unconfirmed", c.unconfirmed},
                                {"runs_after", c.runs_after},
                                {"gated", c.gated},
                                {"hints", c.hints}});
    if (!c.lines.empty()) j["changes"].back()["lines"] = line_changes_json(c.lines);
    json& x = j["changes"].back();
    if (c.answer) x["acknowledgement"] = db::acknowledgement_json(*c.answer);
    if (!c.code.empty()) x["code"] = c.code;
    if (!c.environment.empty()) x["environment"] = environment_json(c.environment);
    if (c.environment_step > 0) x["environment_step"] = c.environment_step;
  }
  if (!steps.empty()) j["environment_steps"] = steps_json(steps, changes);  // absent where none: files as before
  j["not_enough_data"] = short_series_json(too_short);
  out << j.dump(2) << '\n';
}

}  // namespace gpuperf::reports
