#include "reports/analysis/kind_split.hpp"

namespace gpuperf::analysis {

double KindSplit::share_pct(KernelKind kind) const {
  const double total = total_ns();
  return total > 0 ? 100.0 * of(kind).gpu_time_ns / total : 0.0;
}

void add_kernel(KindSplit& split, std::string_view benchmark_name, double gpu_time_ns, double launches,
                const std::vector<std::string>& extra) {
  KindTotals& t = kernel_kind(benchmark_variant(benchmark_name), extra) == KernelKind::communication
                      ? split.communication
                      : split.compute;
  t.gpu_time_ns += gpu_time_ns;
  t.launches += launches;
  ++t.kernels;
}

KindSplit kind_split(const Run& run, const std::vector<std::string>& extra) {
  KindSplit split;
  for (const Result& r : run.results) {
    const Measurement* total = r.find("gpu_time_total");
    if (total == nullptr || total->summary.n == 0) continue;
    const Measurement* launches = r.find("launches");
    add_kernel(split, r.instance.name, total->summary.median,
               launches != nullptr && launches->summary.n > 0 ? launches->summary.median : 0.0, extra);
  }
  return split;
}

std::optional<double> KindSplitChange::change_pct(KernelKind kind) const {
  const double before = base.of(kind).gpu_time_ns, after = candidate.of(kind).gpu_time_ns;
  if (before <= 0) return std::nullopt;
  return (after / before - 1) * 100;
}

std::optional<KindSplitChange> kind_split_change(const Run& base, const Run& candidate) {
  KindSplitChange c{kind_split(base), kind_split(candidate)};
  if (!c.base.has_communication() && !c.candidate.has_communication()) return std::nullopt;
  return c;
}

}  // namespace gpuperf::analysis
