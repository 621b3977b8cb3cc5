#include "reports/cross_machine.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace gpuperf::reports {

std::string CrossMachineFinding::on_text() const {
  const std::string of = std::to_string(measured_on) + (measured_on == 1 ? " machine" : " machines");
  if (on_all()) return "all " + of;
  std::string t = std::to_string(hosts.size()) + " of " + of + ": ";
  for (std::size_t i = 0; i < hosts.size() && i < 4; ++i) t += (i > 0 ? ", " : "") + hosts[i];
  if (hosts.size() > 4) t += ", ...";
  return t;
}

std::vector<CrossMachineFinding> cross_machine_findings(const ReportModel& model) {
  if (model.machines.size() < 2) return {};
  // (display name, metric, regression) -> finding
  using Key = std::tuple<bool, std::string, std::string>;
  std::map<Key, CrossMachineFinding> by_key;
  for (std::size_t mi = 0; mi < model.machines.size(); ++mi) {
    const MachineReport& m = model.machines[mi];
    for (const bool regression : {true, false}) {
      for (const ChangeRow& row : regression ? m.regressions : m.improvements) {
        const Key key{!regression, m.instances[row.instance].instance.display_name(), row.change.metric.name};
        auto [it, fresh] = by_key.try_emplace(key);
        CrossMachineFinding& f = it->second;
        if (fresh) {
          f.machine = mi;
          f.instance = row.instance;
          f.metric = row.change.metric.name;
          f.regression = regression;
          f.min_change_pct = f.max_change_pct = row.change.change_pct;
        }
        // A machine with two findings of one kind in the window (a step, then another) counts once.
        if (f.hosts.empty() || f.hosts.back() != m.host) f.hosts.push_back(m.host);
        f.min_change_pct = std::min(f.min_change_pct, row.change.change_pct);
        f.max_change_pct = std::max(f.max_change_pct, row.change.change_pct);
      }
    }
  }
  // Commits, and the machines that measure each finding's series at all.
  std::map<Key, std::string> commit_of;
  for (const MachineReport& m : model.machines) {
    for (const bool regression : {true, false}) {
      for (const ChangeRow& row : regression ? m.regressions : m.improvements) {
        const Key key{!regression, m.instances[row.instance].instance.display_name(), row.change.metric.name};
        auto [it, fresh] = commit_of.try_emplace(key, row.change.commit);
        if (!fresh && it->second != row.change.commit) by_key.at(key).same_commit = false;
      }
    }
  }
  std::vector<CrossMachineFinding> out;
  for (auto& [key, f] : by_key) {
    const std::string& name = std::get<1>(key);
    for (const MachineReport& m : model.machines) {
      const bool measured = std::any_of(m.instances.begin(), m.instances.end(), [&](const InstanceTrends& inst) {
        return inst.instance.display_name() == name && inst.find(f.metric) != nullptr;
      });
      f.measured_on += measured ? 1 : 0;
    }
    out.push_back(std::move(f));
  }
  std::stable_sort(out.begin(), out.end(), [](const CrossMachineFinding& a, const CrossMachineFinding& b) {
    if (a.regression != b.regression) return a.regression;
    return a.hosts.size() > b.hosts.size();
  });
  return out;
}

}  // namespace gpuperf::reports
