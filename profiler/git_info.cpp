#include "profiler/git_info.hpp"

#include <cstdio>
#include <cstdlib>

namespace gpuperf {
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// First line of the command's standard output; empty when it fails.
std::string first_line(const std::string& command) {
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return {};
  std::string out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p) != nullptr) {
    out += buf;
    if (out.find('\n') != std::string::npos) break;
  }
  while (std::fgets(buf, sizeof buf, p) != nullptr) {
  }
  const int status = pclose(p);
  if (status != 0) return {};
  if (auto nl = out.find('\n'); nl != std::string::npos) out.resize(nl);
  return out;
}

}  // namespace

bool is_git_sha(const std::string& s) {
  if (s.size() != 40) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

GitInfo detect_git(const std::string& dir) {
  GitInfo info;
  const std::string git = "git -C " + shell_quote(dir.empty() ? "." : dir) + " ";
  const std::string sha = first_line(git + "rev-parse HEAD 2>/dev/null");
  if (!is_git_sha(sha)) return info;
  info.commit = sha;
  std::string branch = first_line(git + "rev-parse --abbrev-ref HEAD 2>/dev/null");
  if (branch == "HEAD") {
    branch.clear();
    for (const char* var : {"GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME", "BRANCH_NAME"}) {
      const char* v = std::getenv(var);
      if (v != nullptr && *v != '\0') {
        branch = v;
        break;
      }
    }
  }
  info.branch = branch;
  return info;
}

}  // namespace gpuperf
