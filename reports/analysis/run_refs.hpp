// What `compare BASE CANDIDATE` and `check --baseline REF` accept as a side, resolved against the store.
//
//   42, 3f2a1c9e, 3f2a1c9e-...     a run id, a uuid or a unique uuid prefix (>= 8 characters)
//   abc1234                        a commit (prefix of >= 7): that commit's latest run
//   branch:NAME                    the latest run of branch NAME (excluded runs skipped)
//   label:NAME                     the latest run carrying label NAME, e.g. a release baseline
//   NAME                           a branch name, when nothing above matches it
//
// Named baselines are labels: `gpuperf run --label release-1.2` makes `label:release-1.2` one, no
// extra table needed. Latest-run lookups (branch, label, commit) keep to `machine_id` when given and fall
// back to nothing: a baseline from another GPU is not a baseline. Given `like` (the other side of the
// comparison), they also keep to runs of its kind: a benchmark-suite run's baseline is the latest suite
// run, a recorded program's the latest recording of the same command (else of any command), so a program
// recorded on main does not become the suite's baseline, nor the suite a program's.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "db/store.hpp"

namespace gpuperf::analysis {

// Throws InputError naming the reference when it matches nothing (or nothing on `machine_id`).
db::RunInfo resolve_run_ref(const db::Store& store, const std::string& ref,
                            std::optional<std::int64_t> machine_id = std::nullopt, const db::RunInfo* like = nullptr);

// True for references that name "the latest run of something" (branch:, label:, a bare branch name, a
// commit) and so depend on the machine; false for a specific run (id, uuid).
bool is_moving_ref(const db::Store& store, const std::string& ref);

// Runs loaded from the store without their samples, each once, for an analysis that visits the runs of
// many changes (the same night is the run of many kernels' changes). `on_load`, when given, sees each run
// (and its id) once as it is loaded, before anyone reads it.
class RunCache {
 public:
  using OnLoad = std::function<void(Run&, std::int64_t)>;
  explicit RunCache(const db::Store& store, OnLoad on_load = {}) : store_(store), on_load_(std::move(on_load)) {}
  const Run& operator()(std::int64_t id);

 private:
  const db::Store& store_;
  OnLoad on_load_;
  std::map<std::int64_t, Run> runs_;
};

}  // namespace gpuperf::analysis
