#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "profiler/git_info.hpp"

namespace gpuperf {
namespace {

namespace fs = std::filesystem;

bool have_git() { return std::system("git --version >/dev/null 2>&1") == 0; }

fs::path temp_dir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

TEST(GitInfo, DetectsCommitAndBranchOfACheckout) {
  if (!have_git()) GTEST_SKIP() << "git is not installed";
  const fs::path repo = temp_dir("gpuperf-git-info");
  const std::string git = "git -C '" + repo.string() + "' ";
  ASSERT_EQ(std::system((git + "init -q -b feature/x && " + git +
                         "-c user.name=t -c user.email=t@t commit -q "
                         "--allow-empty -m first")
                            .c_str()),
            0);
  const GitInfo info = detect_git(repo.string());
  EXPECT_EQ(info.commit.size(), 40u);
  EXPECT_EQ(info.branch, "feature/x");
  fs::remove_all(repo);
}

TEST(GitInfo, OutsideACheckoutEverythingIsEmpty) {
  const fs::path dir = temp_dir("gpuperf-no-git");
  const GitInfo info = detect_git(dir.string());
  EXPECT_TRUE(info.commit.empty());
  EXPECT_TRUE(info.branch.empty());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuperf
