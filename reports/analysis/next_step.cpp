#include "reports/analysis/next_step.hpp"

namespace gpuperf::analysis {

std::string regex_escape(std::string_view text) {
  std::string out;
  for (char ch : text) {
    if (std::string_view("\\^$.|?*+()[]{}").find(ch) != std::string_view::npos) out += '\\';
    out += ch;
  }
  return out;
}

std::string exact_filter(const BenchmarkInstance& instance) {
  return "^" + regex_escape(instance.display_name()) + "$";
}

std::string repeat_command(const BenchmarkInstance& instance, const std::string& branch, std::size_t runs) {
  return "gpuperf run --filter '" + exact_filter(instance) + "'" + (branch.empty() ? "" : " --branch " + branch) +
         " --repeat " + std::to_string(runs);
}

std::string repeat_record_command(const std::string& command, const std::string& branch, std::size_t runs) {
  return "for i in $(seq " + std::to_string(runs) + "); do gpuperf record" +
         (branch.empty() ? "" : " --branch " + branch) + " -- " + command + "; done";
}

}  // namespace gpuperf::analysis
