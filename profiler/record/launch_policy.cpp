#include "profiler/record/launch_policy.hpp"

#include <cstdlib>

#include "core/kernel_kind.hpp"

namespace gpuperf::record {

LaunchClass classify_launch(bool single_kernel, bool known, const char* symbol, const std::vector<std::string>& extra,
                            bool stopped) {
  // Communication first: a cooperative launch of NCCL's kernel is communication too, and saying so is what
  // `record` counts; it is never profiled either way.
  if (symbol != nullptr && kernel_kind(symbol, extra) == KernelKind::communication) return LaunchClass::communication;
  if (stopped) return LaunchClass::stopped;
  if (!single_kernel || !known || symbol == nullptr) return LaunchClass::other;
  return LaunchClass::candidate;
}

std::vector<std::string> parse_communication_kernels(const char* text) {
  std::vector<std::string> out;
  if (text == nullptr) return out;
  std::string line;
  for (const char* p = text;; ++p) {
    if (*p == '\n' || *p == '\0') {
      if (!line.empty()) out.push_back(line);
      line.clear();
      if (*p == '\0') break;
    } else {
      line += *p;
    }
  }
  return out;
}

std::string communication_kernels_value(const std::vector<std::string>& substrings) {
  std::string out;
  for (const std::string& s : substrings) {
    if (s.empty()) continue;
    out += (out.empty() ? "" : "\n") + s;
  }
  return out;
}

bool distributed_job(const std::function<const char*(const char*)>& env) {
  for (const char* size : {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* v = env(size);
    if (v != nullptr && std::strtol(v, nullptr, 10) > 1) return true;
  }
  return false;
}

bool time_budget_allows(std::uint64_t spent_ns, std::uint64_t budget_ms, bool profiled_before) {
  if (budget_ms == 0) return true;
  const std::uint64_t budget_ns = budget_ms * 1000000ull;
  if (spent_ns >= budget_ns) return false;
  return !profiled_before || spent_ns < budget_ns / 2;
}

bool range_profiling_over(bool enough, std::uint64_t profiled, std::uint64_t spent_ns, std::uint64_t budget_ms) {
  return enough || (profiled > 0 && !time_budget_allows(spent_ns, budget_ms, true));
}

ReplayMode replay_mode(ReplayChoice choice, bool distributed, bool communication_seen) {
  if (choice == ReplayChoice::kernel) return ReplayMode::every_pass;
  if (choice == ReplayChoice::one_pass || distributed) return ReplayMode::one_pass;
  return communication_seen ? ReplayMode::none : ReplayMode::every_pass;
}

bool keep_sessions_by_default(ReplayMode process_mode, bool source_lines) {
  return process_mode != ReplayMode::one_pass || !source_lines;
}

}  // namespace gpuperf::record
