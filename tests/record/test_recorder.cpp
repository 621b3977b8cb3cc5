// The recorder's checks before anything runs (profiler/record/recorder/recorder.hpp), without a GPU: each bad option
// is refused with InputError naming it, the program is never started, and the metrics a program's kernels
// cannot give are told through `note`.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "profiler/metric_eval.hpp"
#include "profiler/record/recorder/record_file.hpp"
#include "profiler/record/recorder/recorder.hpp"

namespace gpuperf::record {
namespace {

// The InputError's message, or "" when `f` throws nothing.
template <typename F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

RecordOptions options_for(std::vector<std::string> command) {
  RecordOptions o;
  o.command = std::move(command);
  return o;
}

TEST(Recorder, AcceptsAProgramOnThePathWithDefaults) { EXPECT_NO_THROW(check_record_options(options_for({"true"}))); }

TEST(Recorder, RefusesEachBadOptionNamingIt) {
  EXPECT_NE(input_error([] { check_record_options(options_for({})); }).find("no program given"), std::string::npos);

  RecordOptions o = options_for({"true"});
  o.select.max_samples = 0;
  EXPECT_NE(input_error([&] { check_record_options(o); }).find("--max-samples must be at least 1"), std::string::npos);

  o = options_for({"/no/such/program"});
  EXPECT_NE(input_error([&] { check_record_options(o); }).find("does not exist"), std::string::npos);

  o = options_for({"true"});
  o.select.kernel_regex = "(";
  EXPECT_NE(input_error([&] { check_record_options(o); }).find("not a valid regular expression"), std::string::npos);
  o = options_for({"true"});
  o.select.nvtx_include = "[";
  EXPECT_NE(input_error([&] { check_record_options(o); }).find("not a valid regular expression"), std::string::npos);

  o = options_for({"true"});
  o.metrics = "default";
  EXPECT_NO_THROW(check_record_options(o));
  o.profile_launches = 0;
  EXPECT_NE(input_error([&] { check_record_options(o); }).find("--profile-launches must be at least 1"),
            std::string::npos);
  o.profile_launches = 0;
  o.metrics = "none";  // --profile-launches matters only with --metrics
  EXPECT_NO_THROW(check_record_options(o));
}

TEST(Recorder, MetricsOfTheKernelFunctionAreToldAndAloneRefused) {
  RecordOptions o = options_for({"true"});
  o.metrics = "registers,local_bytes";
  std::vector<std::string> notes;
  o.note = [&](const std::string& n) { notes.push_back(n); };
  const std::string error = input_error([&] { check_record_options(o); });
  EXPECT_NE(error.find("--metrics 'registers,local_bytes' names no hardware metric"), std::string::npos) << error;
  EXPECT_TRUE(notes.empty());  // checking says nothing; recording says what it leaves out

  // record_program refuses the same before the program runs (it would create the file), after the note.
  const auto marker = std::filesystem::temp_directory_path() / "gpuperf-recorder-test-ran";
  std::filesystem::remove(marker);
  o.command = {"touch", marker.string()};
  EXPECT_NE(input_error([&] { record_program(o); }).find("names no hardware metric"), std::string::npos);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("not recorded for a program's kernels"), std::string::npos);
  EXPECT_NE(notes[0].find("registers, local_bytes"), std::string::npos) << notes[0];
  EXPECT_FALSE(std::filesystem::exists(marker));
}

// The ends of a program as the record files tell them (one hand-written file per end).
ProcessRecord process(const std::string& text) { return parse_process_text(text, "process-1.txt"); }

TEST(RecorderEnds, EveryEndIsToldApart) {
  const std::string lib = "/x/libgpuperf_inject.so";
  // No process file: no CUDA call.
  EXPECT_NE(nothing_recorded_reason(0, Flushed{}, 0, lib).find("made no CUDA call"), std::string::npos);
  // A process that ended normally (Z) without a K line: no kernel.
  const Flushed none = flushed_of({process("P 1 0 1000000000 app\nF 1500000000\nZ\n")});
  EXPECT_TRUE(none.complete);
  EXPECT_EQ(nothing_recorded_reason(1, none, 0, lib), "it launched no kernel");
  // Killed before the first flush: no F line, no Z.
  const Flushed early = flushed_of({process("P 1 0 1000000000 app\nN 1 k\n")});
  EXPECT_FALSE(early.complete);
  EXPECT_LT(early.last_flush_s, 0);
  const std::string killed_early = nothing_recorded_reason(1, early, -9, lib);
  EXPECT_NE(killed_early.find("killed (signal 9) before anything was flushed"), std::string::npos) << killed_early;
  EXPECT_EQ(killed_early.find("launched no kernel"), std::string::npos);
  // Killed after flushes that held no launch.
  const Flushed idle = flushed_of({process("P 1 0 1000000000 app\nF 3000000000\n")});
  EXPECT_NE(nothing_recorded_reason(1, idle, -9, lib).find("no kernel launch was flushed up to 2.00 s"),
            std::string::npos);
  // Killed with launches kept up to the last flush: the run's note.
  const Flushed kept = flushed_of(
      {process("P 1 0 1000000000 app\nN 1 k\nK 0 1 7 1 10 30 1 1 1 32 1 1 1\nK 0 1 7 2 40 60 1 1 1 32 1 1 1\n"
               "F 12800000000\nK 0 1 7 3 7"),
       process("P 2 1 2000000000 child\nN 1 k\nK 0 1 7 1 10 30 1 1 1 32 1 1 1\nF 5000000000\nZ\n")});
  EXPECT_FALSE(kept.complete);
  EXPECT_EQ(kept.launches, 3u);
  EXPECT_NEAR(kept.last_flush_s, 11.8, 1e-9);  // from the first process's start
  EXPECT_EQ(incomplete_message(kept, -9),
            "incomplete: the program ended (signal 9) before its last flush; 3 launches kept, flushed up to 11.80 s "
            "after it started; later ones are lost");
  // _exit() without a flush is no signal.
  EXPECT_NE(nothing_recorded_reason(1, early, 3, lib).find("ended (exit 3) without flushing"), std::string::npos);
}

TEST(RecorderEnds, TheMetricsSummarySaysWhatIsLeftUnprofiledAndWhy) {
  KernelTotals t;
  t.identities = 35;
  t.identities_with_counters = 35;
  EXPECT_EQ(describe_profiled(t, {}, 3),
            "counters for 35 of 35 identities (the first 3 launches of each are profiled)");
  t.identities_with_counters = 30;
  t.identities_graph_only = 2;
  const std::string s = describe_profiled(t, {process("P 1 0 5 x\nB 200\nZ\n")}, 3);
  EXPECT_NE(s.find("5 left unprofiled: 2 ran only in CUDA graph replays"), std::string::npos) << s;
  EXPECT_NE(s.find("the budget of 200 profiled launches was spent"), std::string::npos) << s;
}

TEST(RecorderEnds, PartialCountersCountAsCountersAndAreToldApart) {
  KernelTotals t;
  t.identities = 10;
  t.identities_with_counters = 6;
  t.identities_partial_counters = 3;
  const std::string s = describe_profiled(t, {process("P 1 0 5 x\nT 60000\nZ\n")}, 3);
  EXPECT_NE(s.find("counters for 9 of 10 identities (the first 3 launches of each are profiled), 3 of them partial "
                   "(their profiled launches did not cover every metric group); 1 left unprofiled: the time budget"),
            std::string::npos)
      << s;
}

// Which metrics the partial identities lack, grouped by the metrics lacked, with why (issue 55: "77 of them
// partial" said neither).
TEST(RecorderEnds, TheSummaryNamesTheMetricsPartialIdentitiesLack) {
  gpuperf::Run run;
  for (const char* kernel : {"app/gemm", "app/copy", "app/full"}) {
    Result r;
    r.instance.name = kernel;
    r.metrics.push_back(single_value("dram_throughput", 10));
    if (std::string(kernel) != "app/full") {
      r.metrics.push_back(
          failed_measurement(find_metric("sm_throughput")->info, Status::skipped, "partial counters: ..."));
      r.metrics.push_back(
          failed_measurement(find_metric("memory_throughput")->info, Status::skipped, "partial counters: ..."));
    }
    run.results.push_back(r);
  }
  const std::string s = describe_lacking({run});
  EXPECT_NE(s.find("; partial identities lack sm_throughput, memory_throughput (2: app/gemm, ...): each profiled "
                   "launch collects one group"),
            std::string::npos)
      << s;
  EXPECT_EQ(describe_lacking({}), "");
}

// The set the program chose at its first context (its C line) decides what the recorder stores: today's names, the
// TriageCompute ones (GH100), or those less the DRAMC one (GB100 refuses it).
TEST(Recorder, TheStoredMetricsFollowTheSetTheProgramChose) {
  RecordOptions o = options_for({"true"});
  o.metrics = "default";
  const auto today = plan_record_metrics(o, false);
  const auto triage = plan_triage_metrics(o);
  ASSERT_TRUE(today && triage);
  const auto names = [](const MetricPlan& p) {
    std::vector<std::string> out;
    for (const auto& r : p.requests) out.push_back(r.name);
    return out;
  };
  const auto has = [](const std::vector<std::string>& v, const char* n) {
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  const auto c_line = [](const std::vector<std::string>& perfworks) {
    std::string line = "P 1 0 5 x\nC";
    for (const auto& p : perfworks) line += " " + p;
    return process(line + "\nZ\n");
  };
  std::vector<std::string> warnings;
  EXPECT_TRUE(has(names(recorded_plan({c_line(today->perfworks)}, *today, triage, warnings)), "sm_throughput"));
  const std::vector<std::string> gh100 = names(recorded_plan({c_line(triage->perfworks)}, *today, triage, warnings));
  EXPECT_TRUE(has(gh100, "sol_sm_triage") && has(gh100, "sol_dramc_triage"));
  EXPECT_FALSE(has(gh100, "sm_throughput") || has(gh100, "memory_throughput"));
  std::vector<std::string> without_dramc;
  for (const auto& p : triage->perfworks) {
    if (p.find("dramc__") == std::string::npos) without_dramc.push_back(p);
  }
  const std::vector<std::string> gb100 = names(recorded_plan({c_line(without_dramc)}, *today, triage, warnings));
  EXPECT_TRUE(has(gb100, "sol_lts_triage"));
  EXPECT_FALSE(has(gb100, "sol_dramc_triage"));
  EXPECT_TRUE(warnings.empty());
  // Two chips in one program: the first process's set is stored, the other is told.
  recorded_plan({c_line(triage->perfworks), c_line(today->perfworks)}, *today, triage, warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("profiled another metric set"), std::string::npos);
}

// Kernels the selection kept out of profiling inside the program (e lines) are named, each once.
TEST(RecorderEnds, TheSummaryNamesTheKernelsTheSelectionKeptOutOfProfiling) {
  const std::string s = describe_excluded(
      {process("P 1 0 5 x\ne _Z4copyPfS_\ne _Z6reducePf\nZ\n"), process("P 2 0 5 x\ne _Z4copyPfS_\nZ\n")});
  EXPECT_NE(s.find("kept launches of 2 kernel(s) out of profiling, traced only: copy, reduce"), std::string::npos) << s;
  EXPECT_EQ(describe_excluded({process("P 1 0 5 x\nZ\n")}), "");
}

TEST(RecorderEnds, RanksOfADistributedJobAreReplayedOnePassALaunchAndSaySo) {
  KernelTotals t;
  t.identities = 5;
  t.identities_communication = 1;
  t.identities_with_counters = 4;
  // Each rank's Y line: sm__throughput needs more than one pass; the others are in four one-pass groups.
  const char* rank = "C a b c d sm__throughput\nY 4\nH 0 0\nH 1 1\nH 2 2\nH 3 3\nZ\n";
  const std::string s =
      describe_profiled(t, {process(std::string("P 1 0 5 x\n") + rank), process(std::string("P 2 0 5 x\n") + rank)}, 3);
  EXPECT_NE(s.find("counters for 4 of 5 identities (the first 3 launches of each are profiled, 4 where one pass a "
                   "launch is replayed: one a metric group); 2 process(es) replayed one pass a launch (a rank of a "
                   "distributed job, or --profile-replay one-pass: nothing restored, so no peer's write is lost and "
                   "each launch starts from the emptied L2): not collected there, needing more passes: "
                   "sm__throughput; 1 left unprofiled: 1 are communication kernels"),
            std::string::npos)
      << s;
  EXPECT_EQ(s.find("--no-source-lines"), std::string::npos) << s;  // nothing partial, no lines: no hint
  // Partial identities in ranks that instrumented source lines: --no-source-lines keeps their sessions.
  t.identities_partial_counters = 2;
  const std::string lines = describe_profiled(
      t, {process(std::string("P 1 0 5 x\n") + rank), process(std::string("P 2 0 5 x\n") + rank)}, 3, true);
  EXPECT_NE(lines.find("needing more passes: sm__throughput (with source lines a one-pass process begins the "
                       "profiler's session for each profiled launch; --no-source-lines lets it keep the session"),
            std::string::npos)
      << lines;
  EXPECT_EQ(describe_profiled(t, {process("P 1 0 5 x\nZ\n")}, 3, true).find("--no-source-lines"), std::string::npos);
  t.identities_partial_counters = 0;
  t.identities_with_counters = 0;
  // A library before one-pass replay did not range-profile ranks at all (U distributed).
  const std::string old =
      describe_profiled(t, {process("P 1 0 5 x\nU distributed\nZ\n"), process("P 2 0 5 x\nU distributed\nZ\n")}, 3);
  EXPECT_NE(old.find("5 left unprofiled: 1 are communication kernels"), std::string::npos) << old;
  EXPECT_NE(old.find("2 process(es) are ranks of a distributed job, where kernel replay is not used (a replay of "
                     "several passes restores memory that peers write into, and a collective then waits forever; "
                     "--profile-replay kernel replays anyway)"),
            std::string::npos)
      << old;
  const std::string one = describe_profiled(t, {process("P 1 0 5 x\nU communication\nZ\n")}, 3);
  EXPECT_NE(one.find("1 process(es) launched communication kernels, where kernel replay is not used"),
            std::string::npos)
      << one;
}

TEST(RecorderEnds, LaunchesWhoseCountersWereLostAreCountedWithTheFirstReason) {
  KernelTotals t;
  t.identities = 2;
  t.identities_with_counters = 2;
  const std::string s = describe_profiled(
      t, {process("P 1 0 5 x\nx 4 1 decode failed\nx 7 0 later\nZ\n"), process("P 2 0 5 x\nx 3 0 other\nZ\n")}, 3);
  EXPECT_NE(s.find("counters for 2 of 2 identities (the first 3 launches of each are profiled); 3 profiled "
                   "launch(es) lost their counters (decode failed), each one's group given back to a later launch "
                   "of its identity (once an identity)"),
            std::string::npos)
      << s;
  EXPECT_EQ(describe_profiled(t, {process("P 1 0 5 x\nZ\n")}, 3).find("lost"), std::string::npos);
}

TEST(RecorderEnds, TheMetricsSummarySaysWhatProfilingTookAndTheTimeBudget) {
  KernelTotals t;
  t.identities = 3;
  t.identities_with_counters = 2;
  // Two identities profiled (W lines): _Z4gemmv twice (0.5 s + 0.7 s) in range "step", _Z3addv once (0.1 s);
  // the third identity came after the time budget of 1 s was spent.
  const std::string s = describe_profiled(
      t,
      {process("P 1 0 5 x\nN 1 _Z4gemmv\nN 2 _Z3addv\nR 1 step\nK 0 1 7 1 10 30 8 1 1 128 1 1 1\nE 1 1\n"
               "K 0 1 7 2 40 60 8 1 1 128 1 1 1\nE 2 1\nK 0 1 7 3 70 90 1 1 1 32 1 1 2\n"
               "K 0 1 7 4 95 99 2 1 1 32 1 1 2\nW 1 500000000\nW 2 700000000\nW 3 100000000\nT 1000\nZ\n")},
      3);
  EXPECT_NE(s.find("1 left unprofiled: the time budget of 1.00 s of profiling was spent (--profile-seconds)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("profiling took 1.30 s in 3 launches, the slowest identity gemm [step] 8x1x1 128x1x1: 2 "
                   "launches, 1.20 s"),
            std::string::npos)
      << s;
  // Without W lines (an older library) nothing is said about time.
  EXPECT_EQ(describe_profiled(t, {process("P 1 0 5 x\nZ\n")}, 3).find("profiling took"), std::string::npos);
}

TEST(RecorderEnds, OwnTimeIsSummedOverProcessesAndSplitByThread) {
  EXPECT_EQ(describe_own_work({process("P 1 0 5 x\nZ\n")}), "");
  const std::string s =
      describe_own_work({process("P 1 0 5 x\nO nvtx program 400 200 300000\nO write cupti 1 4000 600000\n"
                                 "O request program 2 0 10000\nO write program 1 217 50000\nZ\n"),
                         process("P 2 1 5 y\nO nvtx program 200 100 100000\nO write cupti 1 3000 500000\n"
                                 "O write gpuperf 3 0 20000\nO external program 600 300 2000000\nZ\n")});
  EXPECT_EQ(s,
            "inside the program: 0.460 ms on its threads (0.400 ms in 600 NVTX callbacks, 0.010 ms in 2 buffer "
            "requests, 0.050 ms writing 217 records (1 buffers)); 1.120 ms on other threads (1.100 ms writing "
            "7,000 records (2 buffers) on CUPTI's thread, 0.020 ms writing 0 records (3 buffers) on gpuperf's "
            "flush thread); besides, CUPTI's push and pop of the NVTX paths' external ids took 2.000 ms in 600 "
            "of those callbacks (CUPTI's cost, which the bare tracer pays too)");
}

TEST(RecorderEnds, PeriodicFlushIsCuptisAndKeepsTheLongestCall) {
  // flush lines: CUPTI's part of the periodic flush, summed, their items (the longest call) taken at the most.
  const std::string s =
      describe_own_work({process("P 1 0 5 x\nO write gpuperf 2 900 40000\nO flush gpuperf 4 2500000 4000000\nZ\n"),
                         process("P 2 1 5 y\nO flush gpuperf 3 1500000 3000000\nZ\n")});
  EXPECT_EQ(s,
            "inside the program: 0.000 ms on its threads; 0.040 ms on other threads (0.040 ms writing 900 records "
            "(2 buffers) on gpuperf's flush thread); CUPTI's part of the periodic flush took 7.000 ms in 7 calls on "
            "gpuperf's flush thread (the longest 2.500 ms)");
  // Alone (a process whose flushes wrote nothing), it is still said.
  EXPECT_NE(
      describe_own_work({process("P 1 0 5 x\nO flush gpuperf 1 10 10\nZ\n")}).find("periodic flush took 0.000 ms in 1"),
      std::string::npos);
}

TEST(RecorderEnds, TheMetricsSummaryCountsCommunicationKernelsAndTheWatchdog) {
  KernelTotals t;
  t.identities = 10;
  t.identities_with_counters = 7;
  t.identities_communication = 3;
  const std::string s = describe_profiled(t, {process("P 1 0 5 x\nZ\n")}, 3);
  EXPECT_NE(s.find("3 left unprofiled: 3 are communication kernels (never profiled: a replay would wait for peers "
                   "that have left the collective)"),
            std::string::npos)
      << s;
  t.identities_communication = 1;
  const std::string g =
      describe_profiled(t, {process("P 42 0 5 x\nG 812 30004 _ZN2at6native4gemmEPf 8 1 1 128 1 1 0\nZ\n")}, 3);
  EXPECT_NE(g.find("3 left unprofiled: 1 are communication kernels"), std::string::npos) << g;
  EXPECT_NE(g.find("profiling was given up after 30.00 s in launch 812 of gemm 8x1x1 128x1x1 (process 42; "
                   "--profile-watchdog-ms): nothing was profiled after it"),
            std::string::npos)
      << g;
}

TEST(RecorderEnds, LaunchesLeftUnprofiledWhileACollectiveRanAreCounted) {
  KernelTotals t;
  t.identities = 4;
  t.identities_with_counters = 3;
  const std::string s =
      describe_profiled(t, {process("P 1 0 5 x\nV 17 10000\nZ\n"), process("P 2 0 5 x\nV 4 10000\nV 9 10000\nZ\n")}, 3);
  EXPECT_NE(s.find("1 left unprofiled: 3 launch(es) were not profiled because a communication kernel was still "
                   "running after 10.00 s (GPUPERF_RECORD_COMMUNICATION_WAIT_MS)"),
            std::string::npos)
      << s;
  t.identities_with_counters = 4;  // their identities got counters from later launches: still said
  EXPECT_NE(describe_profiled(t, {process("P 1 0 5 x\nV 17 10000\nZ\n")}, 3).find("1 launch(es) were not profiled"),
            std::string::npos);
  EXPECT_THROW(process("P 1 0 5 x\nV 17\n"), InputError);
}

TEST(RecorderRank, EachGpusRunTakesTheRankOfTheProcessesThatLaunchedOnIt) {
  // torchrun's two ranks, one GPU each, and the launcher (no CUDA, no file).
  const std::vector<ProcessRecord> job = {
      process("P 10 1 5 python3\nA 0 0 2\nN 1 k\nK 0 1 7 1 10 20 1 1 1 32 1 1 1\nZ\n"),
      process("P 11 1 5 python3\nA 1 1 2\nN 1 k\nK 1 1 7 1 10 20 1 1 1 32 1 1 1\nZ\n")};
  gpuperf::Run r0, r1, none;
  fill_rank(r0, job, 0);
  fill_rank(r1, job, 1);
  EXPECT_EQ(r0.rank, 0);
  EXPECT_EQ(r0.local_rank, 0);
  EXPECT_EQ(r0.world_size, 2);
  EXPECT_EQ(r1.rank, 1);
  EXPECT_EQ(r1.local_rank, 1);
  EXPECT_EQ(r1.world_size, 2);
  fill_rank(none, job, 2);  // no process launched there
  EXPECT_FALSE(none.rank.has_value());
  // Two ranks' processes on one GPU: the run is of neither; a process of no job leaves the run without one.
  const std::vector<ProcessRecord> shared = {
      process("P 10 1 5 a\nA 0 0 2\nN 1 k\nK 0 1 7 1 10 20 1 1 1 32 1 1 1\nZ\n"),
      process("P 11 1 5 b\nA 1 1 2\nN 1 k\nK 0 1 7 1 10 20 1 1 1 32 1 1 1\nZ\n")};
  gpuperf::Run both;
  fill_rank(both, shared, 0);
  EXPECT_FALSE(both.rank.has_value() || both.local_rank.has_value() || both.world_size.has_value());
  gpuperf::Run plain;
  fill_rank(plain, {process("P 10 1 5 a\nN 1 k\nK 0 1 7 1 10 20 1 1 1 32 1 1 1\nZ\n")}, 0);
  EXPECT_FALSE(plain.rank.has_value());
}

TEST(Recorder, ACommunicationKernelSubstringMustBeOneLine) {
  RecordOptions o = options_for({"true"});
  o.communication_kernels = {"my_allreduce", "peer<float, 4>"};
  EXPECT_NO_THROW(check_record_options(o));
  o.communication_kernels = {"a\nb"};
  EXPECT_NE(input_error([&] { check_record_options(o); }).find("--communication-kernel 'a\nb'"), std::string::npos);
  o.communication_kernels = {""};
  EXPECT_NE(input_error([&] { check_record_options(o); }).find("expected a non-empty substring"), std::string::npos);
}

}  // namespace
}  // namespace gpuperf::record
