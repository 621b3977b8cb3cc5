#include "cli/bisect_git.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/subprocess.hpp"
#include "core/errors.hpp"
#include "profiler/git_info.hpp"

namespace gpuperf::cli {
namespace {

ProcessResult git(const std::string& dir, std::vector<std::string> args) {
  args.insert(args.begin(), {"git", "-C", dir});
  ProcessOptions o;
  o.env["GIT_TERMINAL_PROMPT"] = "0";
  return run_process(args, o);
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string git_ok(const std::string& dir, const std::vector<std::string>& args) {
  const ProcessResult r = git(dir, args);
  if (r.exit_code != 0) {
    std::string cmd = "git";
    for (const auto& a : args) cmd += ' ' + a;
    throw EnvironmentError("'" + cmd + "' failed in " + dir + " (exit " + std::to_string(r.exit_code) +
                           "): " + trimmed(r.err));
  }
  return trimmed(r.out);
}

}  // namespace

std::string git_toplevel(const std::string& dir) {
  const ProcessResult r = git(dir, {"rev-parse", "--show-toplevel"});
  if (r.exit_code != 0 || trimmed(r.out).empty()) {
    throw InputError(dir + " is not in a git repository (bisect needs the history to build): " + trimmed(r.err));
  }
  return trimmed(r.out);
}

std::string resolve_commit(const std::string& repo, const std::string& ref) {
  if (ref.empty() || ref[0] == '-') throw InputError("'" + ref + "' is not a git reference");
  const ProcessResult r = git(repo, {"rev-parse", "--verify", "-q", ref + "^{commit}"});
  const std::string sha = trimmed(r.out);
  if (r.exit_code != 0 || !is_git_sha(sha)) {
    throw InputError("'" + ref + "' names no commit in " + repo);
  }
  return sha;
}

bool is_ancestor(const std::string& repo, const std::string& ancestor, const std::string& descendant) {
  const ProcessResult r = git(repo, {"merge-base", "--is-ancestor", ancestor, descendant});
  if (r.exit_code > 1) throw EnvironmentError("git merge-base failed in " + repo + ": " + trimmed(r.err));
  return r.exit_code == 0;
}

std::size_t commits_between(const std::string& repo, const std::string& ancestor, const std::string& descendant) {
  return std::stoul(git_ok(repo, {"rev-list", "--count", ancestor + ".." + descendant}));
}

CommitInfo commit_info(const std::string& repo, const std::string& sha) {
  std::istringstream lines(git_ok(repo, {"show", "-s", "--format=%H%n%cI%n%P%n%s", sha}));
  CommitInfo c;
  std::string parents;
  std::getline(lines, c.sha);
  std::getline(lines, c.date);
  std::getline(lines, parents);
  std::getline(lines, c.subject);
  c.parent = parents.substr(0, parents.find(' '));
  return c;
}

Worktree::Worktree(std::string repo, std::string dir, const std::string& sha)
    : repo_(std::move(repo)), dir_(std::move(dir)) {
  git_ok(repo_, {"worktree", "add", "--detach", "--quiet", dir_, sha});
}

Worktree::~Worktree() {
  try {
    git(dir_, {"bisect", "reset", "--quiet"});
    git(repo_, {"worktree", "remove", "--force", dir_});
    git(repo_, {"worktree", "prune"});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuperf: warning: could not remove the bisect worktree %s: %s\n", dir_.c_str(), e.what());
  }
}

void Worktree::checkout(const std::string& sha) const { git_ok(dir_, {"checkout", "--quiet", "--detach", sha}); }

BisectOutcome bisect_run(const Worktree& wt, const std::string& good, const std::string& bad,
                         const std::vector<std::string>& step, const std::string& log_path) {
  git_ok(wt.dir(), {"bisect", "start", bad, good});
  std::vector<std::string> args{"git", "-C", wt.dir(), "bisect", "run"};
  args.insert(args.end(), step.begin(), step.end());
  ProcessOptions o;
  o.out_path = log_path;
  o.err_path = log_path + ".err";
  BisectOutcome out;
  out.exit_code = run_process(args, o).exit_code;
  std::ifstream f(log_path);
  std::ostringstream text;
  text << f.rdbuf();
  out.log = text.str();
  // git prints "<sha> is the first bad commit", or, when only skipped commits are left, "The first bad
  // commit could be any of:" followed by one sha per line.
  std::istringstream lines(out.log);
  std::string line;
  bool listing = false;
  while (std::getline(lines, line)) {
    if (line.find("could be any of") != std::string::npos) {
      listing = true;
      out.culprits.clear();
      continue;
    }
    const std::string first = line.substr(0, line.find(' '));
    if (!listing && line.find(" is the first bad commit") != std::string::npos && is_git_sha(first)) {
      out.culprits = {first};
      break;
    }
    if (listing) {
      if (!is_git_sha(first)) break;
      out.culprits.push_back(first);
    }
  }
  return out;
}

}  // namespace gpuperf::cli
