// What changed besides the code, in every finding (docs/regressions.md, "What changed besides the code"):
// whether a kernel's code is the same on both sides of a comparison or a change point (its SASS fingerprint,
// core/result.hpp CodeIdentity), which environment fields differ (core/environment.hpp), and in a history the
// nights on which many kernels stepped together while the environment changed: one environment step, not a
// regression per kernel. Explanations only: nothing here changes a verdict or what gates (gate.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "db/store.hpp"
#include "reports/analysis/compare_report.hpp"
#include "reports/analysis/types.hpp"

namespace gpuperf::analysis {

inline constexpr const char* kSameCode = "same code";
inline constexpr const char* kCodeChanged = "code changed";

// kSameCode, kCodeChanged, or "" when either side has no fingerprint (a run from before fingerprints, a kernel
// whose cubin was not seen). Equal fingerprints with different launch shapes: "same code, launch changed".
std::string code_verdict(const CodeIdentity& before, const CodeIdentity& after);

// Each duration row gets its code verdict in front of its note ("same code; clock 1980 -> 1755 MHz"), and the
// report the environment fields that differ between the two runs.
void attach_identities(CompareReport& report, const Run& base, const Run& candidate);

// Duration changes stepping together on one night while the environment changed: at least this many kernels.
inline constexpr std::size_t kEnvironmentStepKernels = 3;

// Each change point gets the code verdict of its instance and the environment changes from its previous run to
// its run (both loaded from `store` without samples, once per run), also as hints ("same code", "driver
// 580.159.04 -> 590.12") for every writer that shows hints. Then the duration changes of one machine and run
// whose environment changed and whose code did not change (same or unknown), when there are at least
// kEnvironmentStepKernels of them, become one EnvironmentStep (returned) and carry its number
// (ChangePoint::environment_step); a kernel whose code changed that night stays a finding of its own.
std::vector<EnvironmentStep> attach_identities(std::vector<ChangePoint>& changes, const db::Store& store);

// The grouping alone, on change points whose `code` and `environment` are set (tests feed them directly).
std::vector<EnvironmentStep> group_environment_steps(std::vector<ChangePoint>& changes);

// For bisect: when every one of `instances` has the same code at both ends (kSameCode), why no commit can be
// found: "the code of memory/coalesced[n=1024] is the same at both ends (sass:...), so no commit in the range
// changed it; between the ends' runs: driver 580.159.04 -> 590.12". "" when any differs or is unknown.
std::string same_code_at_ends(const Run& good, const Run& bad, const std::vector<BenchmarkInstance>& instances);

// "driver 580.159.04 -> 590.12: 30 kernels slower (median +12.1%), same code" for a step.
std::string describe_step(const EnvironmentStep& step, const std::vector<ChangePoint>& changes);

}  // namespace gpuperf::analysis
