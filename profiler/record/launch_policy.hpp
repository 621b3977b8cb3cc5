// Which launches `record --metrics` may profile, as far as the launch itself tells (inject_metrics.cpp asks
// this first, then its budgets). Plain C++ without CUDA, so the decision is unit-tested on a machine without a
// GPU (tests/record/test_inject_policy.cpp).
//
// A communication kernel (NCCL's, NVSHMEM's, ... core/kernel_kind.hpp, and the program's own named with
// `record --communication-kernel SUBSTRING`) is never profiled: kernel replay runs a launch several times,
// and each run of a collective waits for peers that ran it once (the replay spins forever: the hang of a DDP
// program under --metrics, docs/record-ends.md). Such a launch only passes the launch gate (shared), like any
// unprofiled one: never serialized against the profiler's own work, never synchronized on, never replayed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "profiler/record/record_config.hpp"

namespace gpuperf::record {

enum class LaunchClass {
  candidate,      // may be profiled, if its identity still wants launches within the budgets
  communication,  // a communication kernel: never profiled
  other,          // a cooperative or graph launch, or one whose kernel or shape CUPTI does not give
  stopped,        // profiling was given up in this process (the watchdog): no launch is profiled any more
};

// `single_kernel`: the launch API launches one kernel (cudaLaunchKernel, cuLaunchKernel, ...); `symbol`: its
// mangled name (null when CUPTI gives none); `known`: its grid and block were read; `extra`: the user's
// communication substrings; `stopped`: the watchdog gave profiling up.
LaunchClass classify_launch(bool single_kernel, bool known, const char* symbol, const std::vector<std::string>& extra,
                            bool stopped);

// The substrings of GPUPERF_RECORD_COMMUNICATION_KERNELS: one a line (kernel names hold commas and spaces);
// empty lines are dropped. nullptr: none.
std::vector<std::string> parse_communication_kernels(const char* text);

// The variable's value for `substrings` (`record` sets it): joined with '\n'.
std::string communication_kernels_value(const std::vector<std::string>& substrings);

// Whether the process is a rank of a distributed job of more than one process: WORLD_SIZE (torchrun),
// OMPI_COMM_WORLD_SIZE (Open MPI) or PMI_SIZE (MPICH, Slurm's PMI) above 1. `env` looks a variable up
// (std::getenv in the injection library).
bool distributed_job(const std::function<const char*(const char*)>& env);

// Whether the time budget of profiling (--profile-seconds, `budget_ms`; 0: none) lets a launch be profiled after
// `spent_ns` of it: any launch while half of it is left; past that, only the first of an identity not profiled
// yet (`profiled_before` false), so that identities that come late still get counters, of one group, before the
// budget ends, instead of early ones collecting their last groups (two H100s, DDP: the budget ran out in 8 of 20
// runs, 1 or 2 compute identities of a rank without counters).
bool time_budget_allows(std::uint64_t spent_ns, std::uint64_t budget_ms, bool profiled_before);

// Whether an identity's range-profiled launches are over, so that its next launch may be instrumented for source
// lines: it had its share (`enough`: --profile-launches), or it was profiled (`profiled` launches) and the time
// budget's second half profiles no more of its launches (time_budget_allows). Without the second, an identity the
// second half stopped never got its instrumented launch: GPT-2 on an H100 had lines for 24 of 167 identities, 98
// before the second-half rule, an instrumented launch taking 9 ms (median).
bool range_profiling_over(bool enough, std::uint64_t profiled, std::uint64_t spent_ns, std::uint64_t budget_ms);

// How kernel replay may profile a launch now. Replaying a launch of several passes restores the memory its kernel
// can reach before each pass, the communication buffers that peers write into included: a peer's write between
// the save and the restore is lost and a later collective waits forever (two H100s, torchrun DDP under record
// --metrics: the ranks of 1 run in 6 hung in dist.barrier). A replay of one pass runs the kernel once and
// restores nothing (16 of 16 DDP runs ended on four H100s, each rank forced to replay one-pass metrics).
enum class ReplayMode {
  every_pass,  // all of a launch's metric group in one replay, as many passes as it needs
  one_pass,    // one pass a launch, the metrics split in one-pass groups (pass_groups.hpp, pack_single_pass)
  none,        // no range profiling any more
};

// A rank of a distributed job replays one pass a launch; a process that is not one stops range profiling at its
// first communication kernel (it drives a collective over its own GPUs, and its groups were planned for every
// pass). --profile-replay kernel replays every pass anyway; --profile-replay one-pass replays one pass a launch in
// every process (nothing saved or restored, so a launch starts from the L2 emptied before it, where a replay of
// several passes can leave the kernel's data in the L2 and read its DRAM traffic wrong: docs/metrics.md).
ReplayMode replay_mode(ReplayChoice choice, bool distributed, bool communication_seen);

// Whether the range profiler's session is kept enabled from one profiled launch to the next by default
// (profile_session.hpp; GPUPERF_RECORD_PROFILE_KEEP overrides it): yes, except in a one-pass process (a rank)
// that instruments launches for source lines. There, on H100s, sessions begun after a kept one had ended failed
// to decode (CUPTI_ERROR_UNKNOWN, 16 of 228 launches a run, and then sessions begun per launch too), and none
// failed when kept without source lines: a DDP rank's profiled launch then took 26 ms (median, H100s), 510 begun.
bool keep_sessions_by_default(ReplayMode process_mode, bool source_lines);

}  // namespace gpuperf::record
