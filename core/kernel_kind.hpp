// What a kernel does for the program, as far as its name tells: compute, or communication (a kernel that
// moves data between GPUs or processes and waits for its peers: NCCL's collectives and point-to-point
// kernels, NVSHMEM's, PyTorch's symmetric-memory all-reduces, DeepEP's dispatch and combine).
//
// `record --metrics` never serializes or replays a communication kernel: a replayed pass would wait for
// peers that have already left the collective (a hang; Nsight Compute has the same trap), and its counters
// would measure the wait. Reports split a rank's GPU time between the two kinds.
//
// Plain C++ with no dependency, compiled into the injection library as well as gpuperf_core.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuperf {

enum class KernelKind { compute, communication };

// The built-in name patterns of communication kernels: a kernel whose (mangled or demangled) name contains
// one of them is communication. Substrings, matched case-sensitively.
const std::vector<std::string_view>& communication_kernel_patterns();

// `name`'s kind: communication when it contains a built-in pattern or one of `extra` (the user's own, from
// `record --communication-kernel`; empty strings in `extra` are ignored), else compute.
KernelKind kernel_kind(std::string_view name, const std::vector<std::string>& extra = {});

// "compute" or "communication".
const char* to_string(KernelKind kind);

}  // namespace gpuperf
