#include "reports/analysis/identity_findings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "reports/analysis/line_findings.hpp"
#include "reports/analysis/run_refs.hpp"

namespace gpuperf::analysis {
namespace {

bool is_duration(const MetricInfo& m) { return m.name == "duration"; }

}  // namespace

std::string code_verdict(const CodeIdentity& before, const CodeIdentity& after) {
  if (before.fingerprint.empty() || after.fingerprint.empty()) return "";
  if (before.fingerprint != after.fingerprint) return kCodeChanged;
  if (!before.launch.empty() && !after.launch.empty() && before.launch != after.launch) {
    return std::string(kSameCode) + ", launch changed";
  }
  return kSameCode;
}

void attach_identities(CompareReport& report, const Run& base, const Run& candidate) {
  report.environment = env::changes(env::effective(base), env::effective(candidate));
  for (CompareRow& row : report.rows) {
    if (!is_duration(row.metric)) continue;
    const Result* b = find_result(base, row.instance);
    const Result* c = find_result(candidate, row.instance);
    if (b == nullptr || c == nullptr) continue;
    row.code = code_verdict(b->code, c->code);
    if (!row.code.empty()) row.note = row.note.empty() ? row.code : row.code + "; " + row.note;
  }
}

std::vector<EnvironmentStep> attach_identities(std::vector<ChangePoint>& changes, const db::Store& store) {
  RunCache run(store);
  for (ChangePoint& c : changes) {
    if (c.run_id == 0 || c.previous_run_id == 0) continue;
    const Run& before = run(c.previous_run_id);
    const Run& after = run(c.run_id);
    const Result* b = find_result(before, c.instance);
    const Result* a = find_result(after, c.instance);
    if (b != nullptr && a != nullptr) c.code = code_verdict(b->code, a->code);
    c.environment = env::changes(env::effective(before), env::effective(after));
    if (!c.code.empty()) c.hints.push_back(c.code);
    for (const env::Change& e : c.environment) c.hints.push_back(env::describe(e));
  }
  return group_environment_steps(changes);
}

std::vector<EnvironmentStep> group_environment_steps(std::vector<ChangePoint>& changes) {
  // (machine, run) -> the duration changes there whose environment changed and whose code did not.
  std::map<std::tuple<std::string, std::int64_t>, std::vector<std::size_t>> nights;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const ChangePoint& c = changes[i];
    if (!is_duration(c.metric) || c.environment.empty() || c.code == kCodeChanged) continue;
    nights[{c.machine, c.run_id}].push_back(i);
  }
  std::vector<EnvironmentStep> steps;
  for (const auto& [key, members] : nights) {
    if (members.size() < kEnvironmentStepKernels) continue;
    const ChangePoint& first = changes[members.front()];
    EnvironmentStep s;
    static_cast<ChangeSite&>(s) = first;  // the night of its first kernel, the same for all
    s.environment = first.environment;
    s.changes = members;
    for (std::size_t i : members) {
      s.regressions += changes[i].kind == ChangeKind::regression ? 1 : 0;
      changes[i].environment_step = steps.size() + 1;
    }
    steps.push_back(std::move(s));
  }
  return steps;
}

std::string same_code_at_ends(const Run& good, const Run& bad, const std::vector<BenchmarkInstance>& instances) {
  std::string names, fingerprint;
  for (const BenchmarkInstance& i : instances) {
    const Result* g = find_result(good, i);
    const Result* b = find_result(bad, i);
    if (g == nullptr || b == nullptr || code_verdict(g->code, b->code).rfind(kSameCode, 0) != 0) return "";
    names += (names.empty() ? "" : ", ") + i.display_name();
    fingerprint = g->code.fingerprint;
  }
  if (names.empty()) return "";
  std::string out = "the code of " + names + " is the same at both ends" +
                    (instances.size() == 1 ? " (" + fingerprint + ")" : std::string()) +
                    ", so no commit in the range changed it; between the ends' runs: ";
  const auto changed = env::changes(env::effective(good), env::effective(bad));
  out += changed.empty() ? "no recorded environment field differs (clocks, load or a library not recorded?)"
                         : env::describe(changed);
  return out;
}

std::string describe_step(const EnvironmentStep& step, const std::vector<ChangePoint>& changes) {
  std::vector<double> pcts;
  std::size_t same = 0;
  for (std::size_t i : step.changes) {
    pcts.push_back(changes[i].change_pct);
    same += changes[i].code == kSameCode ? 1 : 0;
  }
  std::sort(pcts.begin(), pcts.end());
  const double median = pcts.empty()           ? 0
                        : pcts.size() % 2 == 1 ? pcts[pcts.size() / 2]
                                               : (pcts[pcts.size() / 2 - 1] + pcts[pcts.size() / 2]) / 2;
  const std::size_t n = step.changes.size();
  const std::size_t faster = n - step.regressions;
  char pct[32];
  std::snprintf(pct, sizeof pct, "%+.1f%%", median);
  std::string out = env::describe(step.environment) + ": " + std::to_string(n) + " kernels stepped together (";
  if (step.regressions > 0) out += std::to_string(step.regressions) + " slower";
  if (step.regressions > 0 && faster > 0) out += ", ";
  if (faster > 0) out += std::to_string(faster) + " faster";
  out += ", median " + std::string(pct) + "), ";
  out += same == n ? "same code" : std::to_string(same) + " with the same code, the others without fingerprints";
  return out;
}

}  // namespace gpuperf::analysis
