// How a recorded run's GPU time splits between compute and communication kernels (core/kernel_kind.hpp): per
// rank, the share of the time its GPU spent in NCCL's (and other) kernels that move data and wait for peers.
// A rank whose communication share grows is waiting more for the others, or sending more; a CUDA performance
// engineer reads it next to the compute time to see which one moved. Plain data; no I/O.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernel_kind.hpp"
#include "core/result.hpp"

namespace gpuperf::analysis {

// One kind's part of a run's kernel time.
struct KindTotals {
  double gpu_time_ns = 0;   // the sum of its kernels' gpu_time_total, ns
  double launches = 0;      // the sum of its kernels' launches
  std::size_t kernels = 0;  // kernel identities (results) of this kind
};

struct KindSplit {
  KindTotals compute, communication;

  double total_ns() const { return compute.gpu_time_ns + communication.gpu_time_ns; }
  // The kind's share of total_ns(), in percent; 0 when there is no kernel time.
  double share_pct(KernelKind kind) const;
  const KindTotals& of(KernelKind kind) const { return kind == KernelKind::communication ? communication : compute; }
  // True when any kernel of the run is a communication kernel: only then is the split worth showing.
  bool has_communication() const { return communication.kernels > 0; }
};

// Adds one kernel identity (a result named `benchmark_name`) with its GPU time (ns) and launches to `split`;
// `extra`: the user's own communication-kernel name patterns (`record --communication-kernel`), besides the
// built-in ones. Only the kernel part of the name is classified (`benchmark_variant`: "<program>/<kernel>" ->
// "<kernel>"), so a program named "nccl_test" does not make every one of its kernels communication.
void add_kernel(KindSplit& split, std::string_view benchmark_name, double gpu_time_ns, double launches,
                const std::vector<std::string>& extra = {});

// The split of a recorded run: every result with a gpu_time_total value, by the kind of its kernel name (its
// launches from the "launches" metric, 0 where missing). Empty (no kernels) for a benchmark run, whose results
// have no gpu_time_total. `extra` as for add_kernel: `record` passes its --communication-kernel patterns; the
// reports and compare, which have none stored, classify by the built-in patterns.
KindSplit kind_split(const Run& run, const std::vector<std::string>& extra = {});

// A split's change from a base run to a candidate run (`gpuperf compare` of two recorded runs).
struct KindSplitChange {
  KindSplit base, candidate;
  // (candidate / base - 1) * 100 of a kind's GPU time; nullopt where the base had none of it (a new kind).
  std::optional<double> change_pct(KernelKind kind) const;
};

// The change between two recorded runs when either has communication kernels; nullopt otherwise (benchmark
// runs, or programs that communicate with nobody: the compute total is then just the sum of the kernel rows).
std::optional<KindSplitChange> kind_split_change(const Run& base, const Run& candidate);

}  // namespace gpuperf::analysis
