// The source-line pass against a fake SASS back end: aggregation per line, loads told from stores, the
// division by launches, kernels without line info, missing metrics, and the unsupported and failed cases.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/source_roots.hpp"
#include "profiler/cupti/range_backend.hpp"
#include "profiler/cupti/sass_backend.hpp"
#include "profiler/runner.hpp"
#include "profiler/source_line_aggregate.hpp"
#include "profiler/source_line_pass.hpp"
#include "tests/collector/fakes.hpp"

namespace gpuperf {
namespace {

using cupti::SassLocation;
using cupti::SassValue;
using testing::EventLog;
using testing::FakeDevice;
using testing::FakeWorkload;

std::size_t idx(SassCounter c) { return static_cast<std::size_t>(c); }

// One instruction's records: (counter, value) pairs, with every counter configured in SassCounter order.
void instr(std::vector<SassValue>& out, const std::string& fn, std::uint32_t pc,
           const std::map<SassCounter, std::uint64_t>& counts, std::uint32_t crc = 7) {
  for (const auto& [c, v] : counts) out.push_back(SassValue{crc, fn, pc, idx(c), v});
}

std::vector<SassCounter> all_counters() {
  std::vector<SassCounter> out;
  for (std::size_t i = 0; i < kSassCounters; ++i) out.push_back(static_cast<SassCounter>(i));
  return out;
}

// PCs 0x00-0x2f are line 10 of k.cu, 0x30-0x5f line 11, the rest line 12; function "nolines" has none.
SassLocation locate_k(std::uint32_t crc, const std::string& fn, std::uint32_t pc) {
  if (crc != 7) return {SassLocation::Kind::no_cubin, "", 0, "", 0};
  if (fn == "nolines") return {SassLocation::Kind::no_line_info, "", 0, "", 0};
  return {SassLocation::Kind::line, "/src/k.cu", pc < 0x30 ? 10u : pc < 0x60 ? 11u : 12u, "", 0};
}

SourceTextCache fake_source() {
  return SourceTextCache([](const std::string& path) -> std::vector<std::string> {
    if (path != "/src/k.cu") return {};
    std::vector<std::string> lines(12, "");
    lines[9] = "    float a = in[i * stride];  ";
    lines[10] = "\tout[i] = a;";
    lines[11] = "  __syncthreads();";
    return lines;
  });
}

const SourceLine& line_at(const SourceLines& s, std::int64_t line) {
  for (const auto& l : s.lines) {
    if (l.line == line) return l;
  }
  throw std::runtime_error("no line " + std::to_string(line));
}

TEST(SourceLineAggregate, SumsInstructionsPerLineAndSplitsLoadsFromStoresPerLaunch) {
  std::vector<SassValue> v;
  // Line 10: the address arithmetic and a strided load (8 sectors per request, ideal 1), 2 launches.
  instr(v, "k", 0x10, {{SassCounter::inst_executed, 200}, {SassCounter::thread_inst_executed, 6400}});
  instr(v, "k", 0x20,
        {{SassCounter::inst_executed, 100},
         {SassCounter::thread_inst_executed, 3200},
         {SassCounter::op_global_ld, 100},
         {SassCounter::sectors_global, 800},
         {SassCounter::sectors_global_ideal, 100}});
  // Line 11: a store, coalesced.
  instr(v, "k", 0x40,
        {{SassCounter::inst_executed, 100},
         {SassCounter::op_global_st, 100},
         {SassCounter::sectors_global, 400},
         {SassCounter::sectors_global_ideal, 400}});
  // Line 12: shared memory with 2-way conflicts, and a spill.
  instr(v, "k", 0x70,
        {{SassCounter::inst_executed, 50},
         {SassCounter::wavefronts_shared, 100},
         {SassCounter::wavefronts_shared_ideal, 50},
         {SassCounter::sectors_local, 6}});
  SourceTextCache texts = fake_source();
  const SourceLines s = aggregate_source_lines(v, all_counters(), 2, locate_k, texts);

  EXPECT_EQ(s.status, Status::ok);
  EXPECT_EQ(s.message, "");
  EXPECT_EQ(s.launches, 2);
  ASSERT_EQ(s.lines.size(), 3u);
  EXPECT_EQ(s.lines_total, 3);
  const SourceLine& load = s.lines[0];  // source order
  EXPECT_EQ(load.file, "/src/k.cu");
  EXPECT_EQ(load.line, 10);
  EXPECT_EQ(load.function, "k");
  EXPECT_EQ(load.sass_offset, 0x10);
  EXPECT_EQ(load.text, "float a = in[i * stride];");
  EXPECT_DOUBLE_EQ(load.inst_executed, 150);  // (200 + 100) / 2 launches
  EXPECT_DOUBLE_EQ(load.thread_inst_executed, 4800);
  EXPECT_DOUBLE_EQ(load.global_ld_requests, 50);
  EXPECT_DOUBLE_EQ(load.global_ld_sectors, 400);
  EXPECT_DOUBLE_EQ(load.global_ld_sectors_ideal, 50);
  EXPECT_DOUBLE_EQ(load.global_st_sectors, 0);

  const SourceLine& store = line_at(s, 11);
  EXPECT_EQ(store.text, "out[i] = a;");
  EXPECT_DOUBLE_EQ(store.global_st_requests, 50);
  EXPECT_DOUBLE_EQ(store.global_st_sectors, 200);
  EXPECT_DOUBLE_EQ(store.global_st_sectors_ideal, 200);
  EXPECT_DOUBLE_EQ(store.global_ld_sectors, 0);
  EXPECT_DOUBLE_EQ(store.global_ld_sectors_ideal, 0);

  const SourceLine& shared = line_at(s, 12);
  EXPECT_DOUBLE_EQ(shared.shared_wavefronts, 50);
  EXPECT_DOUBLE_EQ(shared.shared_wavefronts_ideal, 25);
  EXPECT_DOUBLE_EQ(shared.local_sectors, 3);

  // The lines' instructions add up to the kernel's (the GPU test checks this against smsp__inst_executed).
  double total = 0;
  for (const auto& l : s.lines) total += l.inst_executed;
  EXPECT_DOUBLE_EQ(total, (200 + 100 + 100 + 50) / 2.0);
}

TEST(SourceLineAggregate, WithoutLineInfoKeepsEachInstructionByFunctionAndOffsetAndSaysSoOnce) {
  std::vector<SassValue> v;
  instr(v, "nolines", 0x40, {{SassCounter::inst_executed, 10}});
  instr(v, "nolines", 0x10, {{SassCounter::inst_executed, 30}});
  instr(v, "k", 0x10, {{SassCounter::inst_executed, 5}});
  SourceTextCache texts = fake_source();
  const SourceLines s = aggregate_source_lines(v, all_counters(), 1, locate_k, texts);
  ASSERT_EQ(s.lines.size(), 3u);
  EXPECT_EQ(s.status, Status::ok);
  EXPECT_EQ(s.lines[0].function, "k");
  EXPECT_EQ(s.lines[1].function, "nolines");
  EXPECT_EQ(s.lines[1].file, "");
  EXPECT_EQ(s.lines[1].line, 0);
  EXPECT_EQ(s.lines[1].sass_offset, 0x10);
  EXPECT_EQ(s.lines[1].text, "");
  EXPECT_DOUBLE_EQ(s.lines[1].inst_executed, 30);
  EXPECT_EQ(s.lines[2].sass_offset, 0x40);
  EXPECT_EQ(s.message, "nolines: no line info (built without -lineinfo?): per SASS offset");
}

TEST(SourceLineAggregate, UntrackedModuleAndUnreadableSourceStillGiveCounters) {
  std::vector<SassValue> v;
  instr(v, "k", 0x10, {{SassCounter::inst_executed, 4}}, /*crc=*/99);  // no kept cubin
  instr(v, "k", 0x20, {{SassCounter::inst_executed, 0}});              // never executed: left out
  SourceTextCache texts([](const std::string&) { return std::vector<std::string>{}; });
  const SourceLines s = aggregate_source_lines(v, all_counters(), 1, locate_k, texts);
  ASSERT_EQ(s.lines.size(), 1u);
  EXPECT_EQ(s.lines[0].sass_offset, 0x10);
  EXPECT_NE(s.message.find("loaded before gpuperf followed module loads"), std::string::npos) << s.message;

  // A file that is not here (another machine's history): the line and number stay, the text is empty.
  std::vector<SassValue> w;
  instr(w, "k", 0x10, {{SassCounter::inst_executed, 4}});
  const SourceLines t = aggregate_source_lines(w, all_counters(), 1, locate_k, texts);
  ASSERT_EQ(t.lines.size(), 1u);
  EXPECT_EQ(t.lines[0].line, 10);
  EXPECT_EQ(t.lines[0].text, "");
}

TEST(SourceLineAggregate, AFileAwayFromItsBuildIsNamedFromItsRootWithTheTextTheBinaryCarries) {
  // Built under /nonexistent/ci-17, run here: the root the binary registered names the file, and the text it
  // carries (the built-in suite's) stands in for the file.
  add_source_root("/nonexistent/ci-17");
  add_embedded_source("kernels/away.cu", "__global__ void k(float* y) {\n  y[0] = 1.0f;  \n}\n");
  const LocateFn locate = [](std::uint32_t, const std::string&, std::uint32_t pc) {
    SassLocation at{SassLocation::Kind::line, "/nonexistent/ci-17/kernels/away.cu", 2, "", 0};
    if (pc >= 0x10) at.file = "/nonexistent/ci-17/kernels/other.cu";
    if (pc >= 0x20) at.inlined_at_file = "/nonexistent/ci-17/kernels/away.cu", at.inlined_at_line = 2;
    return at;
  };
  SourceTextCache texts;
  std::vector<SassValue> values = {{1, "k", 0x0, 0, 5}, {1, "k", 0x10, 0, 3}, {1, "k", 0x20, 0, 2}};
  const SourceLines s = aggregate_source_lines(values, {SassCounter::inst_executed}, 1, locate, texts);
  ASSERT_EQ(s.lines.size(), 3u);
  EXPECT_EQ(s.lines[0].file, "kernels/away.cu");
  EXPECT_EQ(s.lines[0].text, "y[0] = 1.0f;");
  EXPECT_EQ(s.lines[1].file, "kernels/other.cu");  // relative even with no text anywhere
  EXPECT_EQ(s.lines[1].text, "");
  EXPECT_EQ(s.lines[2].inlined_at_file, "kernels/away.cu");  // inlined there: a line of its own
  EXPECT_EQ(s.lines[2].inlined_at_line, 2);
  EXPECT_DOUBLE_EQ(s.lines[2].inst_executed, 2);
  EXPECT_EQ(s.message,
            "no source text for kernels/other.cu (not on this machine, not carried by the binary): its lines have "
            "none");
}

TEST(SourceLineAggregate, AFileInACheckoutIsNamedFromTheCheckoutsRootAndOneOutsideAsGiven) {
  namespace fs = std::filesystem;
  char tmpl[] = "/tmp/gpuperf-lines-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const fs::path root(tmpl);
  fs::create_directories(root / "repo" / ".git");
  fs::create_directories(root / "repo" / "kernels");
  fs::create_directories(root / "loose");
  std::ofstream(root / "repo" / "kernels" / "k.cu") << "line one\n  out[i] = in[i * stride];\n";
  std::ofstream(root / "loose" / "k.cu") << "x\n";
  SourceTextCache texts;
  const std::string in_repo = (root / "repo" / "kernels" / "k.cu").string();
  EXPECT_EQ(texts.shown_path(in_repo), "kernels/k.cu");
  EXPECT_EQ(texts.line(in_repo, 2), "out[i] = in[i * stride];");  // the text is read from the real path
  EXPECT_EQ(texts.shown_path((root / "loose" / "k.cu").string()), (root / "loose" / "k.cu").string());
  EXPECT_EQ(texts.shown_path("/no/such/dir/k.cu"), "/no/such/dir/k.cu");  // another machine's build

  // Through the aggregation: the stored line names the checkout-relative file.
  std::vector<SassValue> v;
  instr(v, "k", 0x10, {{SassCounter::inst_executed, 4}});
  const auto locate = [&](std::uint32_t, const std::string&, std::uint32_t) {
    return SassLocation{SassLocation::Kind::line, in_repo, 2u, "", 0};
  };
  const SourceLines s = aggregate_source_lines(v, all_counters(), 1, locate, texts);
  ASSERT_EQ(s.lines.size(), 1u);
  EXPECT_EQ(s.lines[0].file, "kernels/k.cu");
  EXPECT_EQ(s.lines[0].text, "out[i] = in[i * stride];");
  fs::remove_all(root);
}

TEST(SourceLineAggregate, MetricIndicesMapThroughTheConfiguredCounters) {
  // Only two counters configured (a chip lacking the others): metric 0 is sectors, 1 is the ideal.
  std::vector<SassValue> v{{7, "k", 0x10, 0, 16}, {7, "k", 0x10, 1, 4}, {7, "k", 0x10, 5, 1000}};
  SourceTextCache texts = fake_source();
  const SourceLines s =
      aggregate_source_lines(v, {SassCounter::sectors_global, SassCounter::sectors_global_ideal}, 1, locate_k, texts);
  ASSERT_EQ(s.lines.size(), 1u);
  EXPECT_DOUBLE_EQ(s.lines[0].global_ld_sectors, 16);
  EXPECT_DOUBLE_EQ(s.lines[0].global_ld_sectors_ideal, 4);
  EXPECT_DOUBLE_EQ(s.lines[0].inst_executed, 0);  // index 5 is not configured: ignored
}

// A SASS back end that serves, per flush, the records its `per_launch` function gives for each launch
// the workloads made since the last flush.
class FakeSass final : public cupti::SassMetricsBackend {
 public:
  explicit FakeSass(std::shared_ptr<EventLog> log) : log_(std::move(log)) {}
  std::vector<std::string> offered{sass_counter_names().begin(), sass_counter_names().end()};
  std::vector<std::string> configured;
  std::optional<std::pair<std::string, int>> fail;  // call name, CUPTI code
  std::string chip_name() const override { return "GH100"; }
  std::vector<std::string> chip_metrics() override { return offered; }
  void configure(const std::vector<std::string>& m) override {
    maybe_fail("configure");
    configured = m;
  }
  void enable() override {
    log_->events.push_back("sass_enable");
    maybe_fail("enable");
  }
  std::vector<SassValue> flush() override {
    std::size_t launches = 0;  // since the last flush
    for (const auto& e : log_->events) {
      if (e == "sass_flush") launches = 0;
      if (e.rfind("launch:", 0) == 0) ++launches;
    }
    log_->events.push_back("sass_flush");
    maybe_fail("flush");
    std::vector<SassValue> out;
    // Every launch: 10 instructions on line 10 (one metric: inst_executed, configured first).
    if (launches > 0) out.push_back(SassValue{7, "k", 0x10, 0, 10 * launches});
    return out;
  }
  void disable() override {
    log_->events.push_back("sass_disable");
    maybe_fail("disable");
  }
  SassLocation locate(std::uint32_t crc, const std::string& f, std::uint32_t pc) override {
    return locate_k(crc, f, pc);
  }

 private:
  void maybe_fail(const std::string& call) {
    if (fail && fail->first == call) {
      throw cupti::BackendError(cupti::classify_cupti_result(fail->second), call, fail->second,
                                call + ": CUPTI_ERROR " + std::to_string(fail->second));
    }
  }
  std::shared_ptr<EventLog> log_;
};

struct PassRig {
  std::shared_ptr<EventLog> log = std::make_shared<EventLog>();
  FakeSass* sass = nullptr;
  std::unique_ptr<SourceLineCollector> pass;
  Benchmark bench;
  std::vector<InstanceRef> refs;
  std::vector<std::unique_ptr<FakeWorkload>> workloads;
  std::vector<ProfileTarget> targets;

  explicit PassRig(std::size_t n, SourceLineOptions options = {}, std::function<void(FakeSass&)> setup = {}) {
    auto s = std::make_unique<FakeSass>(log);
    sass = s.get();
    if (setup) setup(*s);
    pass = make_source_line_collector(std::move(s), std::make_unique<FakeDevice>(log), options);
    bench.name = "memory/strided";
    refs.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      refs[i].benchmark = &bench;
      refs[i].params["stride"] = static_cast<std::int64_t>(i + 1);
      workloads.push_back(std::make_unique<FakeWorkload>(log, "w" + std::to_string(i), nullptr));
    }
    for (std::size_t i = 0; i < n; ++i) targets.push_back(ProfileTarget{&refs[i], workloads[i].get()});
    log->events.clear();
  }
};

TEST(SourceLinePass, EnablesOnceFlushesAfterEachInstanceAndDividesByItsLaunches) {
  SourceLineOptions o;
  o.launches = 2;
  PassRig rig(2, o);
  ASSERT_EQ(rig.sass->configured.size(), kSassCounters);
  EXPECT_EQ(rig.sass->configured[0], "smsp__sass_inst_executed");
  const auto out = rig.pass->collect_batch(rig.targets, nullptr);
  EXPECT_EQ(rig.log->joined(),
            "sass_enable launch:w0 launch:w0 sync sass_flush launch:w1 launch:w1 sync sass_flush sass_disable");
  ASSERT_EQ(out.size(), 2u);
  for (const auto& s : out) {
    EXPECT_EQ(s.status, Status::ok) << s.message;
    EXPECT_EQ(s.launches, 2);
    ASSERT_EQ(s.lines.size(), 1u);
    EXPECT_DOUBLE_EQ(s.lines[0].inst_executed, 10);  // 20 over 2 launches
  }
}

TEST(SourceLinePass, AMetricTheChipLacksIsNamedAndTheOthersAreCollected) {
  PassRig rig(1, {}, [](FakeSass& s) { s.offered.erase(s.offered.begin() + idx(SassCounter::sectors_local)); });
  EXPECT_EQ(rig.sass->configured.size(), kSassCounters - 1);
  const auto out = rig.pass->collect_batch(rig.targets, nullptr);
  EXPECT_EQ(out[0].status, Status::ok);
  // The fake's source file is on no machine: said once, before the missing metric.
  EXPECT_EQ(out[0].message,
            "no source text for /src/k.cu (not on this machine, not carried by the binary): its lines have none; "
            "not on GH100: smsp__sass_sectors_mem_local");
  EXPECT_DOUBLE_EQ(out[0].lines.at(0).inst_executed, 10);
}

TEST(SourceLinePass, AFileWithoutTextIsSaidOnceForTheWholeRun) {
  PassRig rig(2, {});
  const auto first = rig.pass->collect_batch(rig.targets, nullptr);
  const auto second = rig.pass->collect_batch(rig.targets, nullptr);
  ASSERT_EQ(first.size(), 2u);
  ASSERT_EQ(second.size(), 2u);
  EXPECT_NE(first[0].message.find("no source text for /src/k.cu"), std::string::npos) << first[0].message;
  EXPECT_EQ(first[1].message.find("no source text"), std::string::npos) << first[1].message;
  EXPECT_EQ(second[0].message.find("no source text"), std::string::npos) << second[0].message;
  EXPECT_TRUE(first[1].lines.at(0).text.empty());
}

TEST(SourceLinePass, UnavailableMarksEveryResultUnsupportedWithTheReasonAndLaunchesNothing) {
  auto log = std::make_shared<EventLog>();
  auto pass = make_source_line_collector(nullptr, std::make_unique<FakeDevice>(log), {},
                                         "cannot follow module loads (cuptiSubscribe: "
                                         "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)");
  Benchmark b;
  b.name = "x/y";
  InstanceRef ref;
  ref.benchmark = &b;
  FakeWorkload w(log, "w", nullptr);
  const auto out = pass->collect_batch({ProfileTarget{&ref, &w}}, nullptr);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, Status::unsupported);
  EXPECT_NE(out[0].message.find("MULTIPLE_SUBSCRIBERS"), std::string::npos);
  EXPECT_TRUE(out[0].lines.empty());
  EXPECT_EQ(log->joined(), "");
}

TEST(SourceLinePass, NoChipMetricAtAllIsUnsupported) {
  PassRig rig(1, {}, [](FakeSass& s) { s.offered.clear(); });
  EXPECT_NE(rig.pass->unavailable().find("none of the SASS metrics"), std::string::npos);
  EXPECT_EQ(rig.pass->collect_batch(rig.targets, nullptr)[0].status, Status::unsupported);
}

TEST(SourceLinePass, ChipWithoutSassMetricsAtEnableIsUnsupportedForTheRestOfTheProcess) {
  PassRig rig(2, {}, [](FakeSass& s) { s.fail = {{"enable", 27}}; });  // CUPTI_ERROR_NOT_SUPPORTED
  const auto out = rig.pass->collect_batch(rig.targets, nullptr);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].status, Status::unsupported);
  EXPECT_FALSE(rig.pass->unavailable().empty());
  rig.log->events.clear();
  EXPECT_EQ(rig.pass->collect_batch(rig.targets, nullptr)[0].status, Status::unsupported);
  EXPECT_EQ(rig.log->joined(), "");  // not tried again
}

TEST(SourceLinePass, AFailedFlushFailsTheRestOfTheGroupAndDisables) {
  PassRig rig(2, {}, [](FakeSass& s) { s.fail = {{"flush", 999}}; });
  const auto out = rig.pass->collect_batch(rig.targets, nullptr);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].status, Status::failed);
  EXPECT_NE(out[0].message.find("flush"), std::string::npos);
  EXPECT_EQ(rig.log->count("sass_disable"), 1u);
  EXPECT_TRUE(rig.pass->unavailable().empty());  // not an environment failure: the next group tries again
}

TEST(SourceLinePass, AFailedDisableKeepsTheCountersSaysSoAndEnablesNoMore) {
  PassRig rig(1, {}, [](FakeSass& s) { s.fail = {{"disable", 999}}; });
  const auto out = rig.pass->collect_batch(rig.targets, nullptr);
  EXPECT_EQ(out[0].status, Status::ok);
  EXPECT_DOUBLE_EQ(out[0].lines.at(0).inst_executed, 10);
  EXPECT_NE(out[0].message.find("cuptiSassMetricsDisable failed"), std::string::npos) << out[0].message;
  rig.log->events.clear();
  const auto next = rig.pass->collect_batch(rig.targets, nullptr);
  EXPECT_EQ(next[0].status, Status::unsupported);
  EXPECT_EQ(rig.log->joined(), "");  // no enable, no instrumented launch
}

TEST(SourceLinePass, AFailingLaunchFailsItsInstanceAndSkipsTheRest) {
  PassRig rig(3);
  rig.workloads[1]->throw_on_launch = true;
  const auto out = rig.pass->collect_batch(rig.targets, nullptr);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].status, Status::ok);
  EXPECT_EQ(out[1].status, Status::failed);
  EXPECT_NE(out[1].message.find("illegal memory access"), std::string::npos);
  EXPECT_EQ(out[2].status, Status::failed);
  EXPECT_EQ(rig.log->count("launch:w2"), 0u);
}

TEST(SourceLinePass, TheRunnerPutsEachInstancesLinesInItsResultAndAThrowingPassFailsThemAll) {
  PassRig rig(2);
  Result a, b;
  add_group_source_lines(
      rig.targets, nullptr,
      [&](const std::vector<ProfileTarget>& t, StreamHandle s) { return rig.pass->collect_batch(t, s); }, {&a, &b});
  EXPECT_EQ(a.source.status, Status::ok);
  EXPECT_EQ(b.source.lines.size(), 1u);
  add_group_source_lines(rig.targets, nullptr,
                         [](const std::vector<ProfileTarget>&, StreamHandle) -> std::vector<SourceLines> {
                           throw std::runtime_error("boom");
                         },
                         {&a, &b});
  EXPECT_EQ(b.source.status, Status::failed);
  EXPECT_EQ(b.source.message, "source-line pass failed: boom");
  EXPECT_TRUE(b.source.lines.empty());
}

}  // namespace
}  // namespace gpuperf
