#include "reports/analysis/gate.hpp"

#include <sstream>

#include "core/close_names.hpp"
#include "core/errors.hpp"
#include "core/metrics.hpp"

namespace gpuperf::analysis {
namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t");
  return s.substr(a, b - a + 1);
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace

bool default_gate(const MetricInfo& metric) { return metric.name == "duration" || metric.deterministic; }

bool GateSet::gates(const MetricInfo& metric) const {
  return all || default_gate(metric) || extra.count(metric.name) > 0;
}

void GateSet::add(const std::string& spec, const std::string& option) {
  std::stringstream ss(spec);
  std::string item;
  bool any = false;
  while (std::getline(ss, item, ',')) {
    item = trim(item);
    if (item.empty()) throw InputError(option + " '" + spec + "' has an empty item");
    any = true;
    if (item == "all") {
      all = true;
    } else if (item != "default") {
      // program_time: a recorded program's total kernel time (program_change.hpp), off by default.
      if (item != kProgramTimeMetric) check_metric_name(item, option);
      extra.insert(item);
    }
  }
  if (!any) throw InputError(option + " needs METRIC[,METRIC...], 'default' or 'all'");
}

std::string GateSet::describe() const {
  if (all) return "every metric (--gate all)";
  std::string s = "duration, failed or incorrect kernels, deterministic counters";
  if (!extra.empty()) s += " + " + join(std::vector<std::string>(extra.begin(), extra.end()), ", ");
  return s;
}

std::vector<std::string> GateSet::added() const {
  if (all) return {"all"};
  return {extra.begin(), extra.end()};
}

std::string unknown_metric(const std::string& name) {
  if (find_metric(name) != nullptr || name.find("__") != std::string::npos) return "";
  std::vector<std::string> names;
  for (const auto& t : known_metrics()) names.push_back(t.info.name);
  std::string msg = "expected a metric name, got '" + name + "'";
  const auto close = close_names(name, names);
  if (!close.empty()) return msg + "; did you mean " + join(close, ", ") + "?";
  return msg + " (gpuperf's: " + join(names, ", ") + "; or a raw Perfworks name such as dram__bytes_read.sum)";
}

void check_metric_name(const std::string& name, const std::string& option) {
  const std::string msg = unknown_metric(name);
  if (!msg.empty()) throw InputError(option + ": " + msg);
}

}  // namespace gpuperf::analysis
