#include "core/kernel_kind.hpp"

namespace gpuperf {

const std::vector<std::string_view>& communication_kernel_patterns() {
  // NCCL 2.19+ names its kernels ncclDevKernel_<Collective>_<Op>_<Type>_<Algo>_<Proto>, older releases
  // ncclKernel_...; both also appear inside mangled names ("_Z29ncclDevKernel_..."). NVSHMEM's device
  // kernels and collectives carry "nvshmem" (nvshmemi_*, nvshmemx_*). PyTorch's symmetric-memory
  // all-reduces live in c10d::symmetric_memory; DeepEP's expert-parallel kernels in deep_ep::intranode and
  // deep_ep::internode. A list, not a rule: a program's own kernels that wait on peers are named with
  // `record --communication-kernel`.
  static const std::vector<std::string_view> patterns = {
      "ncclDevKernel", "ncclKernel", "nvshmem", "c10d::symmetric_memory", "deep_ep::intranode", "deep_ep::internode",
  };
  return patterns;
}

KernelKind kernel_kind(std::string_view name, const std::vector<std::string>& extra) {
  for (std::string_view p : communication_kernel_patterns()) {
    if (name.find(p) != std::string_view::npos) return KernelKind::communication;
  }
  for (const std::string& p : extra) {
    if (!p.empty() && name.find(p) != std::string_view::npos) return KernelKind::communication;
  }
  return KernelKind::compute;
}

const char* to_string(KernelKind kind) { return kind == KernelKind::communication ? "communication" : "compute"; }

}  // namespace gpuperf
