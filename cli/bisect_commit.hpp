// One commit of `gpuperf bisect`: build it in the bisection's worktree, measure it with the bench
// executable it built (or record the program it built), store the run (label `bisect`) and decide it with
// the rule of reports/analysis/bisect_rule.hpp. `git bisect run` calls gpuperf back for each commit
// (`gpuperf bisect-step STATE`, hidden), with the settings the driver wrote to STATE.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "db/store.hpp"
#include "reports/analysis/compare.hpp"

namespace gpuperf::cli {

inline constexpr int kStepGood = 0, kStepBad = 1, kStepSkip = 125, kStepAbort = 128;  // git bisect run's codes
inline const char* const kBisectLabel = "bisect";

struct BisectConfig {
  std::string db_path;
  std::string worktree;             // where each commit is checked out and built
  std::string scratch;              // the bisection's temporary folder: logs, the bench's own database, the step log
  std::string build;                // shell command (sh -c) run in the worktree
  std::string bench;                // the bench executable, relative to the worktree unless absolute
  std::vector<std::string> record;  // --record: APP ARGS (APP relative to the worktree unless absolute)
  std::string self;                 // this gpuperf, which records the program
  std::string filter;               // instance regex, passed to the bench (and to record as --kernel-regex)
  std::string metric = "duration";
  std::string metrics = "default";  // the bench's --metrics
  int device = 0;
  bool quick = false;
  int tries = 3;  // measurements of an ambiguous commit before it is skipped
  double alpha = 0.01;
  std::vector<std::string> thresholds;
  std::int64_t good_run = 0, bad_run = 0;
  std::string fingerprint;  // the machine of the ends' runs; runs stored on another are never reused
  std::string hostname;     // this host, for reusing an end's run before the fingerprint is known

  std::string to_json() const;
  static BisectConfig from_file(const std::string& path);
  analysis::CompareOptions compare_options() const;
  std::string step_log() const { return scratch + "/steps.jsonl"; }
};

// What happened to one commit; the step appends one line per commit to the step log.
struct CommitStep {
  std::string commit;
  bool built = false, build_failed = false;
  std::vector<std::int64_t> measured, reused;  // run ids
  std::string verdict;                         // good, bad, skip
  std::string why;
  double build_s = 0, measure_s = 0;
};
void append_step(const BisectConfig& cfg, const CommitStep& step);
std::vector<CommitStep> read_steps(const BisectConfig& cfg);

// Runs the build command for the checkout now in the worktree; false when it fails (the tail of its
// output goes to *failure).
bool build_commit(const BisectConfig& cfg, const std::string& sha, CommitStep& step, std::string* failure);

// Runs the bench (or records the program) for `sha`: the run it produced, label `bisect`, not stored.
// Throws EnvironmentError for exit 3 (no GPU); std::nullopt with *failure for anything else that gave no run.
std::optional<Run> measure_commit(const BisectConfig& cfg, const std::string& sha, CommitStep& step,
                                  std::string* failure);

// Stored `bisect` runs of `sha` on this machine that cover the filter and metric, oldest first.
std::vector<std::int64_t> stored_runs(const BisectConfig& cfg, const db::Store& store, const std::string& sha);

// The `git bisect run` script for the commit checked out in the worktree: kStepGood, kStepBad, kStepSkip,
// or kStepAbort after an error (its message in the step log).
int bisect_step(const BisectConfig& cfg);

}  // namespace gpuperf::cli
