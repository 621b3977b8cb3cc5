// A recorded program's verdict, before its kernels' (docs/regressions.md, "A recorded program's verdict"):
// its total kernel GPU time before -> after, judged over the runs each side has; the change split by kernel
// family (kernel_family.hpp) and by NVTX range; the kernels that moved most, gone and new ones included; and
// the gone kernels paired with the new ones that replaced them.
//
// The program's line is judged by a rule of its own, not by a kernel row's test: a recorded run gives one
// total, so the samples are runs. The base side is the base run with the base branch's recordings of the same
// command on the same machine up to the base (at most CompareOptions::history_runs of them); the candidate side is
// the candidate run with other recordings of the same command at the candidate's commit. With fewer than
// kMinProgramRuns runs on the base side the verdict is "not enough data", with the command that adds them.
// Otherwise a change under the program_time floor (3%, `--threshold program_time=PCT`) is "same"; a larger
// one is slower (faster) only when every candidate total lies above (below) every base total, else
// "ambiguous". It fails the job only with `--gate program_time` (or `--gate all`): off by default.
//
// Pairing: a kernel identity of the base that the candidate lacks (gone) and one the candidate has alone (new)
// replaced each other when they are of the same family in the same NVTX range; what is left unpaired in a range
// pairs across families when the range has few of them (at most kMaxCrossGone gone, kMaxCrossNew new), which
// is how an attention backend switch reads (a fused attention kernel gone, batched GEMMs and a softmax new).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "reports/analysis/kernel_family.hpp"
#include "reports/analysis/types.hpp"

namespace gpuperf::analysis {

constexpr std::size_t kMinProgramRuns = 3;
constexpr double kProgramTimeFloorPct = 3.0;
constexpr std::size_t kMaxCrossGone = 4, kMaxCrossNew = 8;

// A recorded run's kernel GPU time: the sum of its identities' gpu_time_total; nullopt for a benchmark run
// (no gpu_time_total anywhere).
std::optional<double> program_gpu_time(const Run& run);

// One part of the program's time (a family, or an NVTX range) on both sides.
struct TimePart {
  std::string name;
  double base_ns = 0, candidate_ns = 0;
  std::size_t base_kernels = 0, candidate_kernels = 0;
  double delta_ns() const { return candidate_ns - base_ns; }
  // (candidate / base - 1) * 100; nullopt where the base had none of it.
  std::optional<double> change_pct() const;
};

// One kernel identity's GPU time on both sides (gpu_time_total); a side without it is nullopt.
struct KernelTimeChange {
  BenchmarkInstance instance;
  std::string family, range;  // range: the instance's NVTX path, "" outside any range
  std::optional<double> base_ns, candidate_ns;
  double base_launches = 0, candidate_launches = 0;
  double delta_ns() const { return candidate_ns.value_or(0) - base_ns.value_or(0); }
  bool gone() const { return base_ns && !candidate_ns; }
  bool added() const { return candidate_ns && !base_ns; }
  // Indices into ProgramChange::replacements: the replacement this kernel is part of (gone or new side).
  std::optional<std::size_t> replacement;
};

// Gone kernels and the new ones that took their place (indices into ProgramChange::kernels).
struct Replacement {
  std::string range;                     // their NVTX range ("" outside any)
  std::string family;                    // their family; empty when they pair across families
  std::vector<std::size_t> gone;         // heaviest first
  std::vector<std::size_t> added;        // heaviest first
  double base_ns = 0, candidate_ns = 0;  // the gone kernels' time before, the new ones' after
};

struct ProgramChange {
  std::string program;                            // the instances' family: "train"
  std::string command;                            // the candidate's command line as stored
  double base_ns = 0, candidate_ns = 0;           // this pair of runs' totals
  std::vector<double> base_runs, candidate_runs;  // the totals the verdict used (samples), this pair's first
  double change_pct = 0;                          // of the medians of base_runs and candidate_runs
  Verdict verdict = Verdict::not_enough_data;
  double min_effect_pct = kProgramTimeFloorPct;
  bool gated = false;     // --gate program_time: a slower verdict fails the job
  std::string note;       // why the verdict is what it is
  std::string next_step;  // not enough data: the command that adds the runs it lacks
  std::size_t runs_needed = 0;

  std::vector<TimePart> families;         // every family either side has, largest |delta| first
  std::vector<TimePart> ranges;           // top-level NVTX ranges, largest |delta| first; empty without ranges
  std::vector<KernelTimeChange> kernels;  // every identity, largest |delta| first
  std::vector<Replacement> replacements;  // heaviest (base_ns + candidate_ns) first
  std::vector<std::string> family_rules;  // the user's --kernel-family rules

  bool regression() const { return gated && verdict == Verdict::slower; }
  std::size_t gone_count() const;
  std::size_t added_count() const;
};

// The program's change between two recorded runs, not judged yet: judge_program sets the verdict, over this
// pair's totals and the other recordings' (compare_runs does, then the CLI again with the store's recordings).
// nullopt unless both runs are recorded runs (Run::command) with kernel time.
std::optional<ProgramChange> program_change(const Run& base, const Run& candidate, const KernelFamilies& families);

// Judges `p` over the runs each side has: `base_runs` and `candidate_runs` are the totals of the other
// recordings (not this pair's own runs, which program_change counted already). `min_effect_pct`: the floor;
// `gated`: --gate program_time; `base_branch` and `base_commit` for the next step's command.
void judge_program(ProgramChange& p, const std::vector<double>& base_runs, const std::vector<double>& candidate_runs,
                   double min_effect_pct, bool gated, const std::string& base_branch, const std::string& base_commit);

}  // namespace gpuperf::analysis
