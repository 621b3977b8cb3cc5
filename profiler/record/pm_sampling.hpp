// `record --pm-sampling`: CUPTI's PM sampling of the speed-of-light throughputs over a bounded window of the
// program (docs/pm-sampling.md), the parts both binaries share. Plain C++, no CUPTI header: tested without a GPU
// (tests/record/test_pm_sampling.cpp).
//
//  - Which Perfworks metrics are sampled, per chip: the TriageCompute speed of light (speed_of_light.hpp), DRAM
//    and the GPC clock when they fit one PM-sampling pass (GH100: all six, probe/pmsampling), else the light set
//    (L2, DRAMC, DRAM, clock), else a basic one that chips without TriageCompute names take; and the names they
//    are stored under (pm_sm_throughput, ...).
//  - The window (PmWindow): the first NVTX range of a name (--pm-sampling-nvtx), or launches counted in the
//    process (--pm-sampling-launch-skip / --pm-sampling-launch-count); it opens before a launch or at a push, and
//    closes after a launch or at the pop. Inside it no launch is range-profiled or instrumented.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiler/speed_of_light.hpp"

namespace gpuperf::record {

// One sampled metric: its Perfworks name, the name each identity's value is stored under, its unit, and the
// factor from CUPTI's value to the stored one (the GPC clock: Hz to MHz).
struct PmMetric {
  const char* perfworks;
  const char* name;
  const char* unit;
  double scale;
};

// Every metric PM sampling may take, in the order of the sets below.
const std::vector<PmMetric>& pm_metrics();
// Null for a Perfworks name not in pm_metrics().
const PmMetric* find_pm_metric(const std::string& perfworks);

// The sets tried in order, each without the names `accepts` refuses: the TriageCompute speed of light with DRAM and
// the GPC clock; the light set (L2, DRAMC, DRAM, clock; about a quarter of the host time a sample, FINDINGS.md);
// the basic set (DRAM, SM cycles active, clock). The first whose lead (first) metric the chip accepts and that
// needs one pass (`passes`, PM sampling's host object) is taken; empty when none does.
std::vector<std::string> choose_pm_metrics(const AcceptsMetric& accepts, const PassesOfList& passes);

// Where the window lies. nvtx non-empty: the first NVTX range of that name (the pushed range's own message, on
// any thread) from its push to its pop. Else launches: before launch `launch_skip` (0-based, the process's kernel
// launches in their order) to after `launch_count` launches.
struct PmWindowSpec {
  std::string nvtx;
  std::uint64_t launch_skip = 0;
  std::uint64_t launch_count = 1000;
};

// The window's state machine, fed the process's kernel launches and NVTX pushes and pops in the order they are
// made (the caller serializes them). Each call says whether sampling is to start or stop there; it opens once.
class PmWindow {
 public:
  enum class Action { none, open, close };
  explicit PmWindow(PmWindowSpec spec) : spec_(std::move(spec)) {}

  // Before a kernel launch (its API call's entry).
  Action before_launch();
  // After it (the call's exit).
  Action after_launch();
  // An NVTX push of `name` on thread `thread`, leaving that thread `depth` ranges deep (1: outermost).
  Action on_push(const std::string& name, std::uint64_t thread, std::size_t depth);
  // A pop on `thread` that was `depth` ranges deep before it.
  Action on_pop(std::uint64_t thread, std::size_t depth);
  // Closes it (too long, or the process ends): `close` when it was open.
  Action force_close();

  bool is_open() const { return state_ == State::open; }
  bool is_done() const { return state_ == State::done; }
  std::uint64_t launches_inside() const { return inside_; }

 private:
  enum class State { waiting, open, done };
  PmWindowSpec spec_;
  State state_ = State::waiting;
  std::uint64_t seen_ = 0;    // launches before this one (launch mode)
  std::uint64_t inside_ = 0;  // launches made while open
  std::uint64_t thread_ = 0;  // nvtx mode: the range's thread and depth
  std::size_t depth_ = 0;
};

}  // namespace gpuperf::record
