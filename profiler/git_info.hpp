// The commit and branch of the checkout a run was made from.
#pragma once

#include <string>

namespace gpuperf {

struct GitInfo {
  std::string commit;  // full 40-hex sha, or empty when `dir` is not in a git checkout
  std::string branch;  // "main"; for a detached HEAD the CI's branch variable when set, else empty
};

// Asks git about `dir` (git -C dir rev-parse ...). Never throws: no git, or not a checkout, gives empty
// fields. A detached HEAD (as CI checks out) falls back to $GITHUB_HEAD_REF, $GITHUB_REF_NAME,
// $CI_COMMIT_REF_NAME or $BRANCH_NAME, in that order.
GitInfo detect_git(const std::string& dir);

// True for a full 40-hex-digit lowercase sha.
bool is_git_sha(const std::string& s);

}  // namespace gpuperf
