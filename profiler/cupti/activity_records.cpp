#include "profiler/cupti/activity_records.hpp"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace gpuperf::cupti {

std::map<std::uint64_t, double> durations_by_external_id(const ActivityBatch& batch,
                                                         const std::vector<std::uint64_t>& ids) {
  const std::set<std::uint64_t> wanted(ids.begin(), ids.end());
  std::unordered_map<std::uint32_t, std::uint64_t> external_of;  // correlation id -> external id
  for (const auto& c : batch.correlations) {
    if (wanted.count(c.external_id) != 0) external_of[c.correlation_id] = c.external_id;
  }
  struct Span {
    std::uint64_t start = ~std::uint64_t{0};
    std::uint64_t end = 0;
  };
  std::map<std::uint64_t, Span> spans;
  for (const auto& k : batch.kernels) {
    auto it = external_of.find(k.correlation_id);
    if (it == external_of.end()) continue;
    if (k.end_ns <= k.start_ns) continue;  // incomplete record: no timestamps
    Span& s = spans[it->second];
    s.start = std::min(s.start, k.start_ns);
    s.end = std::max(s.end, k.end_ns);
  }
  std::map<std::uint64_t, double> out;
  for (const auto& [id, s] : spans) out[id] = static_cast<double>(s.end - s.start);
  return out;
}

std::vector<KernelRecord> kernels_of_first_tag(const ActivityBatch& batch, const std::vector<std::uint64_t>& ids) {
  for (std::uint64_t id : ids) {
    std::set<std::uint32_t> correlations;
    for (const auto& c : batch.correlations) {
      if (c.external_id == id) correlations.insert(c.correlation_id);
    }
    std::vector<KernelRecord> out;
    for (const auto& k : batch.kernels) {
      if (correlations.count(k.correlation_id) != 0) out.push_back(k);
    }
    if (out.empty()) continue;
    std::stable_sort(out.begin(), out.end(),
                     [](const KernelRecord& a, const KernelRecord& b) { return a.start_ns < b.start_ns; });
    return out;
  }
  return {};
}

}  // namespace gpuperf::cupti
