// The git side of `gpuperf bisect`: references, ancestry, a worktree of its own (never the user's
// checkout), and git's own bisection engine (`git bisect start` / `git bisect run`) inside it.
#pragma once

#include <string>
#include <vector>

#include "reports/bisect_writer.hpp"

namespace gpuperf::cli {

// The top folder of the git checkout holding `dir`. InputError when it is none.
std::string git_toplevel(const std::string& dir);
// The full sha of the commit `ref` names in `repo`. InputError when it names nothing.
std::string resolve_commit(const std::string& repo, const std::string& ref);
// True when `ancestor` is an ancestor of (or equal to) `descendant`.
bool is_ancestor(const std::string& repo, const std::string& ancestor, const std::string& descendant);
// Commits in descendant's history that are not in ancestor's (git rev-list --count a..d).
std::size_t commits_between(const std::string& repo, const std::string& ancestor, const std::string& descendant);

using reports::CommitInfo;
CommitInfo commit_info(const std::string& repo, const std::string& sha);

// A detached worktree of `repo` at `dir`, checked out at `sha`. Its destructor ends any bisection in it
// (`git bisect reset`), removes it (`git worktree remove --force`) and prunes its record in the
// repository, so the user's checkout and refs are as they were, also after an exception or an interrupt.
class Worktree {
 public:
  Worktree(std::string repo, std::string dir, const std::string& sha);
  ~Worktree();
  Worktree(const Worktree&) = delete;
  Worktree& operator=(const Worktree&) = delete;
  const std::string& dir() const { return dir_; }
  void checkout(const std::string& sha) const;

 private:
  std::string repo_, dir_;
};

struct BisectOutcome {
  std::vector<std::string> culprits;  // one sha: found; several: skipped commits left git unsure
  std::string log;                    // `git bisect run`'s output
  int exit_code = 0;                  // git bisect run's
};

// `git bisect start BAD GOOD` and `git bisect run STEP...` in the worktree; `step` is run once per commit
// git chooses and answers 0 (good), 1 (bad), 125 (skip) or >= 128 (stop). Its output goes to `log_path`.
BisectOutcome bisect_run(const Worktree& wt, const std::string& good, const std::string& bad,
                         const std::vector<std::string>& step, const std::string& log_path);

}  // namespace gpuperf::cli
