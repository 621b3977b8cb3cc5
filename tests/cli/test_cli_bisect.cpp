// gpuperf bisect end to end without a GPU: a generated git repository whose "build" makes a fake bench
// (tests/cli/bisect/fake_bench.sh) that reports a duration and a gld_efficiency per commit. git's own
// bisection runs in a worktree of its own; these tests check the culprit, the stored runs, reuse, the
// outputs, bad input and that the user's checkout is left as it was (also after Ctrl-C).
#include <signal.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "db/store.hpp"
#include "tests/cli/cli_fixture.hpp"

namespace gpuperf::testing {
namespace {

using nlohmann::json;

const char* const kBuild =
    "mkdir -p out && cp bench.sh out/bench && cp level.txt out/level.txt && chmod +x out/bench && "
    "if [ -f broken ]; then echo 'error: broken.c:1: syntax error' >&2; exit 1; fi; sleep ${FAKE_BUILD_SLEEP:-0}";

std::string sh(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[512];
  while (p != nullptr && std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
  if (p != nullptr) pclose(p);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

class BisectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = dir_.file("repo");
    std::filesystem::create_directories(repo_);
    git("init -q -b main");
    std::filesystem::copy_file(BISECT_FAKE_BENCH, repo_ + "/bench.sh");
    // 0 good; 2 does not build; 5 +5% duration only; 7 gld_efficiency 100% -> 50% and +71% duration.
    const std::vector<std::string> levels{"100000 100", "", "", "", "", "105000 100", "", "180000 50", "", "", "", ""};
    for (std::size_t i = 0; i < levels.size(); ++i) {
      if (!levels[i].empty()) write("level.txt", levels[i] + "\n");
      write("notes.txt", "commit " + std::to_string(i) + "\n");
      if (i == 2) write("broken", "x\n");
      if (i == 3) std::filesystem::remove(repo_ + "/broken");
      const std::string subject = i == 5   ? "copy: one more pass per element"
                                  : i == 7 ? "copy: odd elements first"
                                           : "commit " + std::to_string(i);
      git("add -A");
      git("commit -q -m '" + subject + "'");
      shas_.push_back(git("rev-parse HEAD"));
    }
    setenv("FAKE_BENCH_LOG", dir_.file("bench-calls.log").c_str(), 1);
  }
  void TearDown() override { unsetenv("FAKE_BENCH_LOG"); }

  std::string git(const std::string& args) const {
    return sh("cd '" + repo_ + "' && git -c user.name=t -c user.email=t@example.com " + args);
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(repo_ + "/" + name) << text; }

  CliResult bisect(const std::string& good, const std::string& bad, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args{
        "--db",    dir_.file("gp.db"), "bisect",   "--good",          good, "--bad", bad, "--build", kBuild,
        "--bench", "out/bench",        "--filter", "memory/coalesced"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_gpuperf(args, repo_);
  }
  int bench_calls() const { return std::stoi("0" + sh("wc -l < '" + dir_.file("bench-calls.log") + "' 2>/dev/null")); }
  std::size_t stored_runs() const {
    if (!std::filesystem::exists(dir_.file("gp.db"))) return 0;
    return db::Store(dir_.file("gp.db"), db::Access::read_only).runs().size();
  }
  // The user's checkout: on main at the last commit, clean, one worktree, no bisection.
  void expect_checkout_untouched() const {
    EXPECT_EQ(git("rev-parse HEAD"), shas_.back());
    EXPECT_EQ(git("rev-parse --abbrev-ref HEAD"), "main");
    EXPECT_EQ(git("status --porcelain"), "");
    EXPECT_EQ(git("worktree list --porcelain | grep -c '^worktree '"), "1");
    EXPECT_EQ(git("for-each-ref refs/bisect | wc -l"), "0");
  }

  TempDir dir_;
  std::string repo_;
  std::vector<std::string> shas_;
};

TEST_F(BisectTest, FindsADurationOnlyChangeAndStoresEachMeasuredCommit) {
  const CliResult r = bisect(shas_[0], shas_[6], {"--format", "json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_TRUE(j["resolved"].get<bool>());
  EXPECT_EQ(j["culprit"]["commit"], shas_[5]);
  EXPECT_EQ(j["culprit"]["subject"], "copy: one more pass per element");
  EXPECT_EQ(j["culprit"]["parent"], shas_[4]);
  ASSERT_EQ(j["levels"].size(), 1u);
  EXPECT_EQ(j["levels"][0]["instance"], "memory/coalesced[n=1024]");
  EXPECT_DOUBLE_EQ(j["levels"][0]["good"].get<double>(), 100000);
  EXPECT_DOUBLE_EQ(j["levels"][0]["before"].get<double>(), 100000);
  EXPECT_DOUBLE_EQ(j["levels"][0]["culprit"].get<double>(), 105000);
  EXPECT_TRUE(j["moved"].empty()) << j["moved"];  // no counter moved
  // 6 commits after good: the ends and at most ceil(log2(6)) + 1 more, each measured once and stored.
  const int measured = j["cost"]["runs_measured"];
  EXPECT_LE(measured, 2 + 4);
  EXPECT_EQ(measured, bench_calls());
  EXPECT_EQ(static_cast<std::size_t>(measured), stored_runs());
  for (const db::RunInfo& run : db::Store(dir_.file("gp.db"), db::Access::read_only).runs()) {
    EXPECT_EQ(run.label, "bisect");
  }
  expect_checkout_untouched();

  // Again: every commit it needs is stored on this machine, nothing is built or measured.
  const CliResult again = bisect(shas_[0], shas_[6], {"--format", "json"});
  ASSERT_EQ(again.code, 0) << again.err;
  const json k = json::parse(again.out);
  EXPECT_EQ(k["culprit"]["commit"], shas_[5]);
  EXPECT_EQ(k["cost"]["runs_measured"], 0);
  EXPECT_EQ(k["cost"]["commits_built"], 0);
  EXPECT_EQ(k["cost"]["runs_reused"], measured);
  EXPECT_EQ(bench_calls(), measured);
}

TEST_F(BisectTest, FindsACounterChangeWithWhatMovedAndSkipsACommitThatDoesNotBuild) {
  const CliResult r = bisect(shas_[0], shas_[11], {"--metric", "gld_efficiency", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["culprit"]["commit"], shas_[7]);
  EXPECT_DOUBLE_EQ(j["levels"][0]["before"].get<double>(), 100);
  EXPECT_DOUBLE_EQ(j["levels"][0]["culprit"].get<double>(), 50);
  ASSERT_EQ(j["moved"].size(), 1u) << j["moved"];
  EXPECT_EQ(j["moved"][0]["metric"], "duration");
  EXPECT_DOUBLE_EQ(j["moved"][0]["before"].get<double>(), 105000);
  expect_checkout_untouched();
  // The duration over the same range: the +71% step, not the +5% one nearer good.
  const CliResult d = bisect(shas_[0], shas_[11], {"--format", "json"});
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_EQ(json::parse(d.out)["culprit"]["commit"], shas_[7]);
}

TEST_F(BisectTest, CommitThatDoesNotBuildIsSkipped) {
  // good 1, bad 5: git tries the middle, 3 (builds) or 2 (does not: skipped, git picks another).
  const CliResult r = bisect(shas_[1], shas_[5], {"--format", "json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["culprit"]["commit"], shas_[5]);
  bool skipped = false;
  for (const auto& s : j["steps"]) {
    if (s["commit"] == shas_[2]) {
      EXPECT_EQ(s["verdict"], "skip");
      EXPECT_NE(s["why"].get<std::string>().find("syntax error"), std::string::npos) << s["why"];
      skipped = true;
    }
  }
  // Whether git chose commit 2 depends on its midpoint; when it did, the skip is recorded.
  if (!skipped) GTEST_LOG_(INFO) << "git never chose the broken commit";
}

TEST_F(BisectTest, TextAndMarkdownNameTheCulpritAndTheCost) {
  const CliResult t = bisect(shas_[4], shas_[6]);
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("culprit  " + shas_[5] + " copy: one more pass per element"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("+5.0%"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("cost: "), std::string::npos) << t.out;
  const CliResult m = bisect(shas_[4], shas_[6], {"--format", "md"});
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_NE(m.out.find("**Culprit:** `" + shas_[5].substr(0, 10) + "`"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("| memory/coalesced\\[n=1024\\] | duration |"), std::string::npos) << m.out;
}

TEST_F(BisectTest, BadInputIsRefusedAndStoresNothing) {
  EXPECT_CLI(bisect(shas_[3], shas_[3]), 2, "name the same commit");
  EXPECT_CLI(bisect("no-such-ref", shas_[3]), 2, "'no-such-ref' names no commit");
  EXPECT_CLI(bisect(shas_[6], shas_[3]), 2, "is not an ancestor");
  EXPECT_CLI(bisect(shas_[2], shas_[6]), 2, "the build command fails at the good end");
  const CliResult no_change = bisect(shas_[0], shas_[4]);
  EXPECT_CLI(no_change, 2, "the change does not reproduce");
  EXPECT_NE(no_change.err.find("memory/coalesced[n=1024] duration: same"), std::string::npos) << no_change.err;
  EXPECT_EQ(stored_runs(), 0u);
  const CliResult not_git = run_gpuperf({"--db", dir_.file("gp.db"), "bisect", "--good", "a", "--bad", "b", "--build",
                                         "true", "--bench", "b", "--filter", "x"},
                                        dir_.path().string());
  EXPECT_CLI(not_git, 2, "is not in a git repository");
  EXPECT_CLI(bisect(shas_[0], shas_[6], {"--tries", "0"}), 2, "--tries");
  expect_checkout_untouched();
}

TEST_F(BisectTest, InterruptRemovesTheWorktreeAndLeavesTheCheckout) {
  setenv("FAKE_BUILD_SLEEP", "30", 1);
  const pid_t pid = spawn_gpuperf({"--db", dir_.file("gp.db"), "bisect", "--good", shas_[0], "--bad", shas_[6],
                                   "--build", kBuild, "--bench", "out/bench", "--filter", "memory/coalesced"},
                                  repo_);
  unsetenv("FAKE_BUILD_SLEEP");
  // Wait until the worktree exists and its first build is running, then Ctrl-C.
  for (int i = 0; i < 100 && git("worktree list --porcelain | grep -c '^worktree '") != "2"; ++i) usleep(50000);
  usleep(300000);
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_EQ(stored_runs(), 0u);
  expect_checkout_untouched();
}

// The ends' results carry the same code fingerprint (the fake bench's third level.txt field): no commit between
// them changed the kernel, so bisect says so once the ends are measured and builds nothing more.
TEST_F(BisectTest, SaysTheCodeIsTheSameAtBothEndsAndBisectsNoFurther) {
  const std::vector<std::string> levels{"100000 100 sass:00000000000000aa", "", "120000 100 sass:00000000000000aa", ""};
  std::vector<std::string> more;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (!levels[i].empty()) write("level.txt", levels[i] + "\n");
    write("notes.txt", "later commit " + std::to_string(i) + "\n");
    git("add -A");
    git("commit -q -m 'later " + std::to_string(i) + "'");
    more.push_back(git("rev-parse HEAD"));
  }
  shas_.insert(shas_.end(), more.begin(), more.end());  // the checkout's HEAD is the last of them
  const CliResult r = bisect(more[0], more[3], {"--format", "json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_FALSE(j["resolved"].get<bool>());
  ASSERT_TRUE(j.contains("same_code")) << j;
  const std::string why = j["same_code"];
  EXPECT_NE(why.find("the code of memory/coalesced[n=1024] is the same at both ends (sass:00000000000000aa)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("no commit in the range changed it"), std::string::npos) << why;
  EXPECT_EQ(bench_calls(), 2);  // the two ends, nothing between them
  EXPECT_EQ(stored_runs(), 2u);
  const CliResult text = bisect(more[0], more[3]);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("culprit  none: the code of memory/coalesced[n=1024] is the same at both ends"),
            std::string::npos)
      << text.out;
  expect_checkout_untouched();
}

// --finding on the sample history (memory/coalesced stepped at ec456ab89b in duration and 13 counters): it
// names the duration finding, as a user would bisect it, and prints it whole (it once read a destroyed vector).
TEST(BisectFinding, TheNewestFindingIsTheDurationStep) {
  TempDir dir;
  const std::string db = dir.file("sample.db");
  ASSERT_EQ(
      run_gpuperf({"--db", db, "--quiet", "import", std::string(GPUPERF_SOURCE_DIR) + "/examples/sample-history.json"},
                  dir.path().string())
          .code,
      0);
  std::filesystem::create_directories(dir.file("not-a-repo"));
  const CliResult r = run_gpuperf(
      {"--db", db, "bisect", "--finding", "--build", "true", "--bench", "true", "--repo", dir.file("not-a-repo")},
      dir.path().string());
  EXPECT_EQ(r.code, 2) << r.err;  // no git repository to bisect in: refused after the finding is named
  EXPECT_NE(r.err.find("bisect: newest finding: memory/coalesced duration +119.1% between 1387a5da94 and ec456ab89b\n"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace gpuperf::testing
