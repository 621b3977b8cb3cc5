// record --metrics: the range profiler's session kept enabled between profiled launches and the rules that end
// it (profiler/record/inject/profile_session.hpp), and the metric set's split into groups (pass_groups.hpp), with a
// fake back end that logs every session call. No GPU.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "profiler/record/inject/pass_groups.hpp"
#include "profiler/record/inject/profile_session.hpp"

namespace gpuperf::record::inject {
namespace {

// The calls KeptSession makes, as CUPTI's range profiler would take them: begin enables (and ends an open
// session first, as the CUPTI back end does), restart needs an enabled profiler.
class LoggingBackend final : public cupti::RangeProfilerBackend {
 public:
  explicit LoggingBackend(std::vector<std::string>* log) : log_(log) {}
  bool fail_restart = false;
  bool enabled = false;
  std::string chip_name() const override { return "GH100"; }
  std::vector<std::string> base_metrics(cupti::MetricKind) override { return {}; }
  std::vector<std::string> sub_metrics(cupti::MetricKind, const std::string&) override { return {}; }
  std::optional<cupti::MetricProperties> metric_properties(const std::string&) override { return std::nullopt; }
  std::size_t add_configuration(const std::vector<std::string>&) override { return 1; }
  void begin_session(std::size_t configuration, cupti::SessionReplay, std::size_t) override {
    end_session();
    enabled = true;
    log_->push_back("begin:" + std::to_string(configuration));
  }
  bool restart_session(std::size_t configuration, cupti::SessionReplay, std::size_t) override {
    if (!enabled) return false;
    if (fail_restart) throw std::runtime_error("cuptiRangeProfilerSetConfig failed");
    log_->push_back("restart:" + std::to_string(configuration));
    return true;
  }
  void start_pass() override {}
  void push_range(const std::string&) override {}
  void pop_range() override {}
  bool end_pass() override { return true; }
  std::size_t decode() override { return 0; }
  std::vector<cupti::RangeValues> evaluate() override { return {}; }
  void end_session() override {
    if (!enabled) return;
    enabled = false;
    log_->push_back("end");
  }

 private:
  std::vector<std::string>* log_;
};

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
  return out;
}

// One profiled launch as inject_metrics.cpp runs it: the entry's decision, the session, the passes, done().
void profile(KeptSession& s, const void* ctx, LoggingBackend& b, std::size_t group) {
  ASSERT_EQ(s.on_launch(true, false), LaunchAction::profile);
  s.open(ctx, b, group);
  s.done();
}

TEST(KeptSession, ConsecutiveProfiledLaunchesOfOneGroupRestartTheSessionBegunOnce) {
  std::vector<std::string> log;
  LoggingBackend b(&log);
  KeptSession s;
  int ctx = 0;
  profile(s, &ctx, b, 1);
  profile(s, &ctx, b, 1);
  profile(s, &ctx, b, 1);
  EXPECT_EQ(joined(log), "begin:1 restart:1 restart:1");
  EXPECT_TRUE(s.kept());
  EXPECT_TRUE(b.enabled);  // kept enabled after the last one, until something ends it
  EXPECT_EQ(s.begins(), 1u);
  EXPECT_EQ(s.restarts(), 2u);
}

TEST(KeptSession, AnotherGroupBeginsTheSessionAnew) {
  // Restarted with another configuration, CUPTI gave NaN for every metric (H100): never restarted so.
  std::vector<std::string> log;
  LoggingBackend b(&log);
  KeptSession s;
  int ctx = 0;
  profile(s, &ctx, b, 0);
  profile(s, &ctx, b, 1);
  profile(s, &ctx, b, 1);
  EXPECT_EQ(joined(log), "begin:0 end begin:1 restart:1");
  EXPECT_EQ(s.ends(SessionEnd::another_configuration), 1u);
  EXPECT_EQ(s.begins(), 2u);
  EXPECT_EQ(s.restarts(), 1u);
}

TEST(KeptSession, ALaunchThatIsNotProfiledEndsTheKeptSessionBeforeItRuns) {
  std::vector<std::string> log;
  LoggingBackend b(&log);
  KeptSession s;
  int ctx = 0;
  profile(s, &ctx, b, 0);
  EXPECT_EQ(s.on_launch(false, false), LaunchAction::pass);
  EXPECT_FALSE(b.enabled);  // disabled in the entry callback: the kernel never runs under an enabled profiler
  EXPECT_FALSE(s.kept());
  EXPECT_EQ(s.ends(SessionEnd::other_launch), 1u);
  EXPECT_EQ(s.on_launch(false, false), LaunchAction::pass);  // nothing kept: nothing to end
  profile(s, &ctx, b, 1);                                    // the next profiled launch begins anew
  EXPECT_EQ(joined(log), "begin:0 end begin:1");
}

TEST(KeptSession, ACaptureBeginEndsItAndCapturedLaunchesAreNeverProfiledNorEndIt) {
  std::vector<std::string> log;
  LoggingBackend b(&log);
  KeptSession s;
  int ctx = 0;
  profile(s, &ctx, b, 0);
  // A launch into a stream being captured, with the session still kept (a capture this library did not see
  // begin): not profiled, wanted or not, and the profiler is not touched inside the capture.
  EXPECT_EQ(s.on_launch(true, true), LaunchAction::pass);
  EXPECT_EQ(s.on_launch(false, true), LaunchAction::pass);
  EXPECT_TRUE(s.kept());
  EXPECT_EQ(joined(log), "begin:0");
  // The capture's beginning ends it.
  EXPECT_EQ(s.end(SessionEnd::capture_begin), "");
  EXPECT_FALSE(b.enabled);
  EXPECT_EQ(s.ends(SessionEnd::capture_begin), 1u);
  // Launches captured after that find nothing to end: the profiler stays disabled through the capture.
  EXPECT_EQ(s.on_launch(true, true), LaunchAction::pass);
  EXPECT_EQ(joined(log), "begin:0 end");
}

TEST(KeptSession, ContextDestructionExitAndAnInstrumentedLaunchEndItOnceEachCountedApart) {
  std::vector<std::string> log;
  LoggingBackend b(&log);
  KeptSession s;
  int ctx = 0;
  profile(s, &ctx, b, 0);
  EXPECT_EQ(s.end(SessionEnd::context_destroy), "");
  EXPECT_EQ(s.end(SessionEnd::process_exit), "");  // nothing left
  EXPECT_EQ(s.ends(SessionEnd::context_destroy), 1u);
  EXPECT_EQ(s.ends(SessionEnd::process_exit), 0u);
  profile(s, &ctx, b, 0);
  EXPECT_EQ(s.end(SessionEnd::process_exit), "");
  // A launch instrumented for source lines ends it too, counted as such (the trace's "source_lines").
  profile(s, &ctx, b, 0);
  EXPECT_EQ(s.end(SessionEnd::source_lines), "");
  EXPECT_EQ(joined(log), "begin:0 end begin:0 end begin:0 end");
  EXPECT_EQ(s.ends(SessionEnd::source_lines), 1u);
  EXPECT_EQ(s.ends(SessionEnd::other_launch), 0u);
  EXPECT_STREQ(to_string(SessionEnd::source_lines), "source_lines");
}

TEST(KeptSession, AnotherContextsProfiledLaunchEndsTheKeptOneFirst) {
  std::vector<std::string> log_a, log_b;
  LoggingBackend a(&log_a), b(&log_b);
  KeptSession s;
  int ctx_a = 0, ctx_b = 0;
  profile(s, &ctx_a, a, 0);
  profile(s, &ctx_b, b, 0);
  EXPECT_EQ(joined(log_a), "begin:0 end");
  EXPECT_EQ(joined(log_b), "begin:0");
  EXPECT_EQ(s.ends(SessionEnd::another_context), 1u);
}

TEST(KeptSession, KeepingOffEndsEachSessionAfterItsLaunch) {
  std::vector<std::string> log;
  LoggingBackend b(&log);
  KeptSession s(false);
  int ctx = 0;
  profile(s, &ctx, b, 0);
  EXPECT_FALSE(s.kept());
  profile(s, &ctx, b, 1);
  EXPECT_EQ(joined(log), "begin:0 end begin:1 end");
}

TEST(KeptSession, AFailedRestartEndsTheSessionAndTheNextLaunchBegins) {
  std::vector<std::string> log;
  LoggingBackend b(&log);
  KeptSession s;
  int ctx = 0;
  profile(s, &ctx, b, 1);
  b.fail_restart = true;
  EXPECT_THROW(s.open(&ctx, b, 1), std::runtime_error);
  EXPECT_FALSE(s.kept());
  EXPECT_FALSE(b.enabled);
  b.fail_restart = false;
  profile(s, &ctx, b, 1);
  EXPECT_EQ(joined(log), "begin:1 end begin:1");
}

// Passes as CUPTI would count them here: each metric's own, added up (no packing).
PassCount adding(const std::map<std::string, std::size_t>& own) {
  return [own](const std::vector<std::string>& m) {
    std::size_t n = 0;
    for (const auto& x : m) n += own.at(x);
    return n;
  };
}

TEST(SplitPasses, MetricsThatNeedSeveralPassesAloneAreOneGroupTheLast) {
  // The default set's shape on GH100: sm__throughput 8 passes, the memory throughput 5, the rest 1 each.
  const std::vector<std::string> m = {"a", "sm", "b", "mem", "c", "d"};
  const auto own = adding({{"a", 1}, {"sm", 8}, {"b", 1}, {"mem", 5}, {"c", 1}, {"d", 1}});
  // sm and mem together, last; a, b, c, d balanced over the other two groups, ordered by their first index.
  EXPECT_EQ(split_passes(m, 3, own), (std::vector<std::vector<std::size_t>>{{0, 4}, {2, 5}, {1, 3}}));
  // Two groups: the rest in one, a launch of 4 passes instead of 3 + 5 + 9 over three launches.
  EXPECT_EQ(split_passes(m, 2, own), (std::vector<std::vector<std::size_t>>{{0, 2, 4, 5}, {1, 3}}));
  // `passes` is asked once per metric and once for the whole set (each question is a CUPTI configuration).
  std::size_t asked = 0;
  split_passes(m, 2, [&](const std::vector<std::string>& x) {
    ++asked;
    return own(x);
  });
  EXPECT_EQ(asked, m.size() + 1);
}

TEST(SplitPasses, WithoutMetricsThatNeedSeveralPassesAloneTheHeaviestGoFirstEachIntoTheLightestGroup) {
  // Weighed 1 each alone, but not sharing a pass (adding): balanced by count.
  const std::vector<std::string> m = {"a", "b", "c", "d", "e"};
  EXPECT_EQ(split_passes(m, 2, adding({{"a", 1}, {"b", 1}, {"c", 1}, {"d", 1}, {"e", 1}})),
            (std::vector<std::vector<std::size_t>>{{0, 2, 4}, {1, 3}}));
  // Only metrics of several passes: balanced too (LPT: x 4 -> g0, y 3 -> g1, z 2 -> g1).
  EXPECT_EQ(split_passes({"x", "y", "z"}, 2, adding({{"x", 4}, {"y", 3}, {"z", 2}})),
            (std::vector<std::vector<std::size_t>>{{0}, {1, 2}}));
}

TEST(SplitPasses, TheDefaultIsTwoGroupsWhenSomeMetricNeedsSeveralPassesAlone) {
  const auto own = adding({{"a", 1}, {"sm", 8}, {"b", 1}});
  EXPECT_EQ(default_groups({"a", "sm", "b"}, 3, own), 2u);
  // No metric needs several passes alone: one group a profiled launch, at most 8, when the set needs more than
  // kOneGroupMostPasses passes together.
  const auto ones = [](const std::vector<std::string>& m) { return m.size(); };
  const std::vector<std::string> seven = {"a", "b", "c", "d", "e", "f", "g"};
  EXPECT_EQ(default_groups(seven, 3, ones), 3u);
  EXPECT_EQ(default_groups(seven, 12, ones), 8u);
  EXPECT_EQ(default_groups({"a", "sm", "b"}, 1, own), 1u);  // one profiled launch an identity: every metric in it
  EXPECT_EQ(default_groups({"a", "sm", "b"}, 0, own), 1u);
}

// GH100's default set with the TriageCompute speed of light needs 4 passes together: every profiled launch collects
// all of it, so no identity is partial; with today's names (12 together) it is split as before.
TEST(SplitPasses, TheDefaultIsOneGroupWhenTheSetNeedsFewPasses) {
  const auto triage = adding({{"a", 1}, {"sm_triage", 2}, {"b", 1}});
  EXPECT_EQ(default_groups({"a", "sm_triage", "b"}, 3, triage), 1u);
  const auto today = adding({{"a", 1}, {"sm", 8}, {"b", 1}});
  EXPECT_EQ(default_groups({"a", "sm", "b"}, 3, today), 2u);
  // At the bound: kOneGroupMostPasses passes are one group, one more is split.
  const auto own = [](const std::vector<std::string>& m) { return m.size(); };
  EXPECT_EQ(default_groups(std::vector<std::string>(kOneGroupMostPasses, "x"), 3, own), 1u);
  EXPECT_EQ(default_groups(std::vector<std::string>(kOneGroupMostPasses + 1, "x"), 3, own), 3u);
}

TEST(SplitPasses, OneGroupWhenThereIsNothingToGain) {
  const std::vector<std::string> m = {"a", "b", "c"};
  const std::vector<std::vector<std::size_t>> all = {{0, 1, 2}};
  EXPECT_EQ(split_passes(m, 1, adding({{"a", 2}, {"b", 2}, {"c", 2}})), all);      // one group asked for
  EXPECT_EQ(split_passes(m, 3, [](const auto&) { return std::size_t{1}; }), all);  // the set needs one pass
  EXPECT_EQ(split_passes({"a"}, 3, adding({{"a", 4}})), (std::vector<std::vector<std::size_t>>{{0}}));
  // More groups than metrics: one metric a group, none empty.
  EXPECT_EQ(split_passes({"a", "b"}, 5, adding({{"a", 2}, {"b", 3}})),
            (std::vector<std::vector<std::size_t>>{{0}, {1}}));
}

// Counters of one pass share it up to a capacity, like a chip's counter registers: a fake where each metric
// takes `own` slots of one pass of `slots` (a metric larger than that needs more passes alone).
PassCount slots(const std::map<std::string, std::size_t>& own, std::size_t per_pass) {
  return [own, per_pass](const std::vector<std::string>& m) {
    std::size_t n = 0;
    for (const auto& x : m) n += own.at(x);
    return (n + per_pass - 1) / per_pass;
  };
}

TEST(PackSinglePass, EachMetricJoinsTheFirstGroupItStillFitsOnePassWith) {
  const std::vector<std::string> m = {"a", "sm", "b", "c", "d", "mem", "e"};
  const auto packed =
      pack_single_pass(m, slots({{"a", 2}, {"sm", 9}, {"b", 2}, {"c", 3}, {"d", 1}, {"mem", 5}, {"e", 3}}, 4));
  // a+b = 4 fill the first pass; c (3) begins the second, d (1) fills it; e (3) begins a third. sm (9 slots)
  // and mem (5) need more than one pass alone.
  EXPECT_EQ(packed.groups, (std::vector<std::vector<std::size_t>>{{0, 2}, {3, 4}, {6}}));
  EXPECT_EQ(packed.unfit, (std::vector<std::size_t>{1, 5}));
  // Every metric one pass, room for all: one group.
  EXPECT_EQ(pack_single_pass({"a", "b"}, slots({{"a", 1}, {"b", 1}}, 4)).groups,
            (std::vector<std::vector<std::size_t>>{{0, 1}}));
  // None fits: no group, each unfit.
  const auto none = pack_single_pass({"sm"}, slots({{"sm", 9}}, 4));
  EXPECT_TRUE(none.groups.empty());
  EXPECT_EQ(none.unfit, (std::vector<std::size_t>{0}));
}

TEST(NextGroup, TheKeptSessionsGroupComesFirstWhenTheIdentityLacksIt) {
  std::vector<bool> collected(3, false);
  EXPECT_EQ(next_group(collected, std::nullopt), 0u);  // nothing kept: the first it lacks
  EXPECT_EQ(next_group(collected, 2), 2u);             // a session of group 2 is kept: restart it
  EXPECT_EQ(next_group(collected, 2), 1u);             // has 2 already: the first it lacks, begun
  EXPECT_EQ(collected, (std::vector<bool>{true, true, true}));
  // Every group collected (more profiled launches than groups): it starts over, from the kept one.
  EXPECT_EQ(next_group(collected, 1), 1u);
  EXPECT_EQ(collected, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(next_group(collected, 7), 0u);  // a kept configuration that is no group of these: ignored
  std::vector<bool> one(1, false);
  EXPECT_EQ(next_group(one, std::nullopt), 0u);
  EXPECT_EQ(next_group(one, 0), 0u);  // one group: every launch collects it
}

TEST(NextGroup, AnIdentitysFirstLaunchTakesTheFirstGroupWhenTheLastNeedsSeveralPassesAlone) {
  // GH100's default set: group 0 the 19 one-pass metrics, group 1 the speed-of-light throughputs; a session of
  // group 1 is kept. A new identity (maybe launched once) takes group 0 all the same, begun.
  std::vector<bool> collected(2, false);
  EXPECT_EQ(next_group(collected, 1, true), 0u);
  EXPECT_EQ(next_group(collected, 1, true), 1u);  // its second: the kept one it lacks, restarted
  EXPECT_EQ(next_group(collected, 1, true), 1u);  // every group collected: starts over from the kept one
  // A lost first launch given back: the identity is new again, and takes group 0 again.
  std::vector<bool> lost_first(2, false);
  unsigned lost = 0;
  EXPECT_EQ(next_group(lost_first, 1, true), 0u);
  EXPECT_TRUE(give_back_group(lost_first, 0, lost, 1));
  EXPECT_EQ(next_group(lost_first, 1, true), 0u);
  // Not asked (balanced groups of one-pass metrics): the kept session's group, as before.
  std::vector<bool> balanced(2, false);
  EXPECT_EQ(next_group(balanced, 1, false), 1u);
}

TEST(SplitPasses, TheLastGroupNeedsSeveralPassesAloneOnlyWhenSplitSoAndThereIsAnother) {
  const std::vector<std::string> m = {"a", "sm", "b", "mem"};
  const auto own = adding({{"a", 1}, {"sm", 8}, {"b", 1}, {"mem", 5}});
  EXPECT_TRUE(last_group_needs_passes_alone(split_passes(m, 2, own), m, own));   // {a, b}, {sm, mem}
  EXPECT_FALSE(last_group_needs_passes_alone(split_passes(m, 1, own), m, own));  // one group of all
  const std::vector<std::string> light = {"a", "b"};
  EXPECT_FALSE(last_group_needs_passes_alone(split_passes(light, 2, own), light, own));  // {a}, {b}
  const std::vector<std::string> heavy = {"sm", "mem"};
  EXPECT_FALSE(last_group_needs_passes_alone({{0, 1}}, heavy, own));    // only them: no other group
  EXPECT_FALSE(last_group_needs_passes_alone({{0}, {1}}, heavy, own));  // only them, balanced: no broad group
  EXPECT_FALSE(last_group_needs_passes_alone({{0, 1}, {2}}, m, own));   // a, sm | b: the last is not them
  EXPECT_TRUE(needs_passes_alone("sm", own));
  EXPECT_FALSE(needs_passes_alone("a", own));
}

TEST(GiveBackGroup, ALostGroupIsCollectedAgainAtMostAsOftenAsAllowed) {
  std::vector<bool> collected(2, false);
  unsigned lost = 0;
  EXPECT_EQ(next_group(collected, std::nullopt), 0u);
  EXPECT_TRUE(give_back_group(collected, 0, lost, 1));  // its counters were lost: group 0 again
  EXPECT_EQ(collected, (std::vector<bool>{false, false}));
  EXPECT_EQ(next_group(collected, std::nullopt), 0u);
  EXPECT_FALSE(give_back_group(collected, 0, lost, 1));  // a second loss stands
  EXPECT_EQ(collected, (std::vector<bool>{true, false}));
  EXPECT_EQ(lost, 1u);
  EXPECT_EQ(next_group(collected, std::nullopt), 1u);
  unsigned more = 0;
  std::vector<bool> other(3, true);
  EXPECT_TRUE(give_back_group(other, 2, more, 2));
  EXPECT_TRUE(give_back_group(other, 1, more, 2));
  EXPECT_FALSE(give_back_group(other, 0, more, 2));
  EXPECT_EQ(other, (std::vector<bool>{true, false, false}));
}

}  // namespace
}  // namespace gpuperf::record::inject
