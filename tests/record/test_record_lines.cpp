// Source lines of `record --metrics` without a GPU: hand-written record files with the injection library's
// S, L, I and J lines (profiler/record/recorder/source_records.hpp) through the parser and the aggregation into each
// identity's Result::source, why an identity has none, bad and partial lines, and two recorded runs stored in
// an SQLite file whose `gpuperf compare` names the line that lost coalescing.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/source_roots.hpp"
#include "db/store.hpp"
#include "profiler/metric_catalog.hpp"
#include "profiler/metric_plan.hpp"
#include "profiler/record/recorder/aggregate.hpp"
#include "profiler/record/recorder/record_file.hpp"
#include "profiler/record/recorder/recorder.hpp"
#include "tests/cli/cli_runner.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::record {
namespace {

using testing::TempDir;

// A kernel's source, written where the line table says it is (outside any checkout: shown as given).
std::string write_source(const TempDir& dir) {
  const std::string path = dir.file("copy.cu");
  testing::write_bytes(path,
                       "__global__ void copy(float* out, const float* in, int stride) {\n"
                       "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                       "    float v = in[i * stride];   \n"
                       "  out[i] = v;\n"
                       "}\n");
  return path;
}

// One process: five timed launches of copy() (`duration_ns` each), then its instrumented one (correlation 6, 15 us: not
// a duration sample), whose load line (3) reads `load_sectors` sectors for 250 requests (ideal 1000, 4 a request), its
// store line (4) is ideal, and one instruction of a helper without line info.
std::string process_file(const std::string& source, int pid, double load_sectors, int duration_ns = 1000) {
  std::string text = "P " + std::to_string(pid) + " 1 1763800000000000000 /tmp/app\nS 0 ok\nN 1 _Z4copyPfPKfi\n";
  for (int i = 1; i <= 5; ++i) {
    text += "K 0 1 7 " + std::to_string(i) + " " + std::to_string(i * 10000) + " " +
            std::to_string(i * 10000 + duration_ns) + " 64 1 1 128 1 1 1\n";
  }
  text += "K 0 1 7 6 90000 105000 64 1 1 128 1 1 1\n";
  text += "J 1 _Z4copyPfPKfi\nJ 2 " + source + "\n";
  text += "L 6 1 2 2 16 500 16000 0 0 0 0 0 0 0 0 0\n";
  text += "L 6 1 2 3 64 250 8000 250 0 " + std::to_string(static_cast<long>(load_sectors)) + " 1000 0 0 0 0 0\n";
  text += "L 6 1 2 4 96 250 8000 0 250 0 0 1000 1000 0 0 0\n";
  text += "J 3 _Z6helperv\nL 6 3 0 0 512 10 320 0 0 0 0 0 0 0 0 0\n";
  text += "S 6 ok _Z6helperv: no line info (built without -lineinfo?): per SASS offset\nI 6 5000000\nZ\n";
  return text;
}

Result only_result(const std::vector<ProcessRecord>& processes, KernelTotals& totals) {
  SelectOptions o;
  o.source_lines = true;
  const auto out = aggregate_launches(processes, "app", o, totals);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(out.at(0).size(), 1u);
  return out.at(0).at(0);
}

TEST(RecordLines, AnInstrumentedLaunchGivesItsIdentityTheLinesRunWouldStore) {
  TempDir dir;
  const std::string source = write_source(dir);
  const ProcessRecord p = parse_process_text(process_file(source, 9, 8000), "f");
  ASSERT_NE(p.launches[5].source, nullptr);
  EXPECT_EQ(p.launches[0].source, nullptr);
  KernelTotals totals;
  const Result r = only_result({p}, totals);
  EXPECT_EQ(totals.identities_with_lines, 1u);
  // The instrumented launch counts as a launch but is no duration sample, nor GPU time.
  EXPECT_EQ(r.find("duration")->samples, (std::vector<double>(5, 1000.0)));
  EXPECT_DOUBLE_EQ(r.find("launches")->samples.at(0), 6.0);
  EXPECT_DOUBLE_EQ(r.find("gpu_time_total")->samples.at(0), 5000.0);

  const SourceLines& s = r.source;
  EXPECT_EQ(s.status, Status::ok);
  EXPECT_EQ(s.launches, 1);
  EXPECT_EQ(s.lines_total, 4);
  ASSERT_EQ(s.lines.size(), 4u);
  const SourceLine& load = s.lines[1];
  EXPECT_EQ(load.file, source);  // outside a checkout: as the line table gives it
  EXPECT_EQ(load.line, 3);
  EXPECT_EQ(load.function, "_Z4copyPfPKfi");
  EXPECT_EQ(load.text, "float v = in[i * stride];");  // read here, trimmed
  EXPECT_EQ(load.sass_offset, 64);
  EXPECT_DOUBLE_EQ(load.global_ld_requests, 250);
  EXPECT_DOUBLE_EQ(load.global_ld_sectors, 8000);
  EXPECT_DOUBLE_EQ(load.global_ld_sectors_ideal, 1000);
  EXPECT_DOUBLE_EQ(s.lines[2].global_st_sectors, 1000);
  const SourceLine& helper = s.lines[3];
  EXPECT_TRUE(helper.file.empty());
  EXPECT_EQ(helper.line, 0);
  EXPECT_EQ(helper.sass_offset, 512);
  EXPECT_EQ(helper.text, "");
  // Said once, as run says it.
  EXPECT_EQ(s.message, "_Z6helperv: no line info (built without -lineinfo?): per SASS offset");
}

TEST(RecordLines, AProgramBuiltElsewhereNamesItsLinesRelativeToTheSourceRootGiven) {
  // What `record --source-root /ci-42/app` registers in the recorder (cli/record_run.cpp): the program was built
  // at /ci-42/app, and its files are not on this machine.
  add_source_root("/nonexistent/ci-42/app");
  KernelTotals totals;
  const Result r =
      only_result({parse_process_text(process_file("/nonexistent/ci-42/app/src/copy.cu", 9, 8000), "f")}, totals);
  ASSERT_EQ(r.source.lines.size(), 4u);
  EXPECT_EQ(r.source.lines[1].file, "src/copy.cu");
  EXPECT_EQ(r.source.lines[1].line, 3);
  EXPECT_EQ(r.source.lines[1].text, "");  // not here: the findings take the history's (line_history.hpp)
  EXPECT_NE(r.source.message.find("src/copy.cu"), std::string::npos) << r.source.message;  // said once
}

TEST(RecordLines, AnInlinedHelpersLineKeepsItsCallSite) {
  TempDir dir;
  const std::string source = write_source(dir);
  std::string text = process_file(source, 9, 8000);
  // Two more lines of the instrumented launch: the helper's line 2 inlined at the kernel's line 3 (file id 2),
  // twice from the same call site (summed), once from line 4 (its own line).
  const std::string extra =
      "L 6 1 2 2 128 7 224 0 0 0 0 0 0 0 0 0 2 3\nL 6 1 2 2 144 3 96 0 0 0 0 0 0 0 0 0 2 3\n"
      "L 6 1 2 2 160 5 160 0 0 0 0 0 0 0 0 0 2 4\n";
  text.insert(text.find("J 3 "), extra);
  KernelTotals totals;
  const Result r = only_result({parse_process_text(text, "f")}, totals);
  std::vector<const SourceLine*> inlined;
  for (const SourceLine& l : r.source.lines) {
    if (!l.inlined_at_file.empty()) inlined.push_back(&l);
  }
  ASSERT_EQ(inlined.size(), 2u);
  EXPECT_EQ(inlined[0]->file, source);
  EXPECT_EQ(inlined[0]->line, 2);
  EXPECT_EQ(inlined[0]->inlined_at_file, source);
  EXPECT_EQ(inlined[0]->inlined_at_line, 3);
  EXPECT_DOUBLE_EQ(inlined[0]->inst_executed, 10);
  EXPECT_EQ(inlined[0]->text, "int i = blockIdx.x * blockDim.x + threadIdx.x;");
  EXPECT_EQ(inlined[1]->inlined_at_line, 4);
  EXPECT_DOUBLE_EQ(inlined[1]->inst_executed, 5);
  EXPECT_EQ(r.source.lines_total, 6);
}

TEST(RecordLines, InstrumentedLaunchesOfSeveralProcessesAreAveragedPerLine) {
  TempDir dir;
  const std::string source = write_source(dir);
  std::vector<ProcessRecord> processes = {parse_process_text(process_file(source, 9, 8000), "a"),
                                          parse_process_text(process_file(source, 10, 4000), "b")};
  KernelTotals totals;
  const Result r = only_result(processes, totals);
  EXPECT_EQ(r.source.launches, 2);
  ASSERT_EQ(r.source.lines.size(), 4u);
  EXPECT_DOUBLE_EQ(r.source.lines[1].global_ld_sectors, 6000);  // (8000 + 4000) / 2
  EXPECT_DOUBLE_EQ(r.source.lines[1].global_ld_requests, 250);
  EXPECT_DOUBLE_EQ(r.find("launches")->samples.at(0), 12.0);
}

TEST(RecordLines, AnIdentityWithoutAnInstrumentedLaunchSaysWhy) {
  const MetricPlan plan = plan_metrics(resolve_metric_requests({"gld_efficiency"}, nullptr));
  // alpha: launched twice, both range-profiled; an NCCL kernel; gamma: only in graph replays; delta: the budget
  // ran out (names that do not demangle: "a" would be `signed char`).
  const std::string text = "P 9 1 0 app\nS 0 ok\nC " + plan.perfworks[0] +
                           "\nN 1 alpha\nN 2 ncclDevKernel_AllReduce_Sum_f32_RING_LL\nN 3 gamma\nN 4 delta\n"
                           "K 0 1 7 1 0 0 64 1 1 128 1 1 1\nK 0 1 7 2 0 0 64 1 1 128 1 1 1\nM 1 100\nM 2 100\n"
                           "K 0 1 7 3 10 20 8 1 1 32 1 1 2\nK 0 1 7 4 30 40 8 1 1 32 1 1 3 5\n"
                           "K 0 1 7 5 50 60 8 1 1 32 1 1 4\nK 0 1 7 6 70 80 8 1 1 32 1 1 4\nZ\n";
  SelectOptions o;
  o.metrics = &plan;
  o.source_lines = true;
  KernelTotals totals;
  const auto results = aggregate_launches({parse_process_text(text, "f")}, "app", o, totals).at(0);
  std::map<std::string, SourceLines> by_name;
  for (const Result& r : results) by_name[r.instance.name] = r.source;
  ASSERT_EQ(by_name.size(), 4u);
  for (const auto& [name, s] : by_name) EXPECT_EQ(s.status, Status::skipped) << name;
  EXPECT_EQ(
      by_name["app/alpha"].message,
      "each of its 2 launches was range-profiled (--profile-launches): none was left for its instrumented launch");
  EXPECT_EQ(by_name["app/ncclDevKernel_AllReduce_Sum_f32_RING_LL"].message,
            "a communication kernel: never instrumented (it waits for its peers)");
  EXPECT_NE(by_name["app/gamma"].message.find("CUDA graph"), std::string::npos);
  EXPECT_NE(by_name["app/delta"].message.find("budget"), std::string::npos);
  EXPECT_EQ(totals.identities_with_lines, 0u);

  // No SASS metrics here: every identity's lines are unsupported with the library's reason.
  const std::string unsupported =
      "P 9 1 0 app\nS 0 unsupported CUPTI SASS metrics: not supported on GA100\nN 1 a\n"
      "K 0 1 7 1 10 20 8 1 1 32 1 1 1\nZ\n";
  const Result u = aggregate_launches({parse_process_text(unsupported, "f")}, "app", o, totals).at(0).at(0);
  EXPECT_EQ(u.source.status, Status::unsupported);
  EXPECT_EQ(u.source.message, "CUPTI SASS metrics: not supported on GA100");
  // Another tool held CUPTI: the library never started lines, and its X line is the reason.
  const std::string busy =
      "P 9 1 0 app\nN 1 a\nK 0 1 7 1 10 20 8 1 1 32 1 1 1\nX NVTX ranges and hardware metrics are not recorded: "
      "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED\nZ\n";
  const Result b = aggregate_launches({parse_process_text(busy, "f")}, "app", o, totals).at(0).at(0);
  EXPECT_EQ(b.source.status, Status::unsupported);
  EXPECT_NE(b.source.message.find("did not start source lines: NVTX ranges and hardware metrics are not recorded"),
            std::string::npos);
  // Without source lines asked (record without --metrics, or --no-source-lines) nothing is said.
  EXPECT_EQ(
      aggregate_launches({parse_process_text(busy, "f")}, "app", SelectOptions{}, totals).at(0).at(0).source.status,
      Status::skipped);
}

TEST(RecordLines, AFailedOrCutOffInstrumentedLaunchIsFailedWithItsReason) {
  const std::string failed =
      "P 9 1 0 app\nS 0 ok\nN 1 a\nK 0 1 7 1 10 20 8 1 1 32 1 1 1\nK 0 1 7 2 30 4000 8 1 1 32 1 1 1\n"
      "S 2 failed CUPTI returned no SASS records for the instrumented launch\nI 2 700000\nZ\n";
  SelectOptions o;
  o.source_lines = true;
  KernelTotals totals;
  const Result f = aggregate_launches({parse_process_text(failed, "f")}, "app", o, totals).at(0).at(0);
  EXPECT_EQ(f.source.status, Status::failed);
  EXPECT_EQ(f.source.message, "CUPTI returned no SASS records for the instrumented launch");
  EXPECT_EQ(f.find("duration")->samples, (std::vector<double>{10}));  // the instrumented one is no sample

  // Killed while writing its lines: no I line, so its lines are dropped and the launch is failed.
  const std::string killed =
      "P 9 1 0 app\nS 0 ok\nN 1 a\nK 0 1 7 1 10 20 8 1 1 32 1 1 1\nK 0 1 7 2 30 4000 8 1 1 32 1 1 1\n"
      "J 1 a\nL 2 1 0 0 16 1 32 0 0 0 0 0 0 0 0 0\nL 2 1 0 0 3";
  const ProcessRecord p = parse_process_text(killed, "f");
  EXPECT_FALSE(p.complete);
  EXPECT_EQ(p.source->unfinished, 1u);
  const Result k = aggregate_launches({p}, "app", o, totals).at(0).at(0);
  EXPECT_EQ(k.source.status, Status::failed);
  EXPECT_TRUE(k.source.lines.empty());
  EXPECT_NE(k.source.message.find("cut off"), std::string::npos);

  // Its counters were to be read at the next launch, and the process ended first: only the provisional S line.
  const std::string unread =
      "P 9 1 0 app\nS 0 ok\nN 1 a\nK 0 1 7 2 30 4000 8 1 1 32 1 1 1\nS 2 failed not read yet\nZ\n";
  const Result u = aggregate_launches({parse_process_text(unread, "f")}, "app", o, totals).at(0).at(0);
  EXPECT_EQ(u.source.status, Status::failed);
  EXPECT_NE(u.source.message.find("cut off"), std::string::npos);
  EXPECT_TRUE(u.find("duration")->samples.empty());  // it ran instrumented: no sample
}

TEST(RecordLines, ALaunchInstrumentedWithKernelTracingPausedIsNamedByItsILine) {
  // No K line for correlation 7: its I line carries device, grid, block, NVTX range and function.
  const std::string text =
      "P 9 1 0 app\nS 0 ok\nR 1 step\nN 1 _Z4copyPfPKfi\nK 0 1 7 5 100 300 64 1 1 128 1 1 1\nE 5 1\n"
      "J 1 _Z4copyPfPKfi\nL 7 1 0 0 16 8 256 0 0 0 0 0 0 0 0 0\nS 7 ok\nI 7 900000 0 64 1 1 128 1 1 1 1\nZ\n";
  const ProcessRecord p = parse_process_text(text, "f");
  ASSERT_EQ(p.launches.size(), 2u);
  EXPECT_EQ(p.launches[1].name, "_Z4copyPfPKfi");
  EXPECT_EQ(p.launches[1].nvtx_path, "step");
  SelectOptions o;
  o.source_lines = true;
  KernelTotals totals;
  const auto results = aggregate_launches({p}, "app", o, totals).at(0);
  ASSERT_EQ(results.size(), 1u);  // one identity: the traced launch and the instrumented one
  EXPECT_DOUBLE_EQ(results[0].find("launches")->samples.at(0), 2.0);
  EXPECT_EQ(results[0].find("duration")->samples, (std::vector<double>{200}));
  EXPECT_EQ(results[0].source.status, Status::ok);
  EXPECT_DOUBLE_EQ(results[0].source.lines.at(0).inst_executed, 8);
  EXPECT_THROW(parse_process_text("P 9 1 0 app\nI 7 9 0 64 1 1 128 1 1 1 4\n", "f"), InputError);  // no J 4
  EXPECT_THROW(parse_process_text("P 9 1 0 app\nJ 4 k\nI 7 9 0 64 1\n", "f"), InputError);
}

TEST(RecordLines, AnInstrumentedLaunchWhoseRecordHasNoEndIsNotAnUnfinishedKernel) {
  // Tracing paused while it ran ("quiet"): CUPTI hands over its K line with a start and no end. It is the
  // instrumented launch (its I line), not a kernel still running at the end: no warning, no duration.
  const std::string text =
      "P 9 1 0 app\nS 0 ok\nN 1 _Z4copyPfPKfi\nK 0 1 7 5 100 300 64 1 1 128 1 1 1\n"
      "K 0 1 7 7 400 0 64 1 1 128 1 1 1\nJ 1 _Z4copyPfPKfi\nL 7 1 0 0 16 8 256 0 0 0 0 0 0 0 0 0\nS 7 ok\n"
      "I 7 900000\nZ\n";
  const ProcessRecord p = parse_process_text(text, "f");
  ASSERT_EQ(p.launches.size(), 2u);
  EXPECT_FALSE(p.launches[1].unfinished);
  SelectOptions o;
  o.source_lines = true;
  KernelTotals totals;
  const auto results = aggregate_launches({p}, "app", o, totals).at(0);
  EXPECT_EQ(totals.launches_unfinished, 0u);
  EXPECT_EQ(results.at(0).find("duration")->samples, (std::vector<double>{200}));
  EXPECT_EQ(results.at(0).source.status, Status::ok);
}

TEST(RecordLines, MalformedSourceRecordsNameTheFileAndLine) {
  const std::string head = "P 9 1 0 app\nJ 1 kern\n";
  auto error_of = [&](const std::string& line) {
    try {
      parse_process_text(head + line + "\nZ\n", "process-9.txt");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("L 2 1 0 0 16 1 2 3 4 5 6 7 8 9 10").find("process-9.txt:3: malformed source line: expected 11"),
            std::string::npos);
  EXPECT_NE(error_of("L 2 1 0 0 16 1 2 3 4 5 6 7 8 9 10 11 12").find("more than 11"), std::string::npos);
  EXPECT_NE(error_of("L 2 1 0 0 16 1 2 3 -4 5 6 7 8 9 10 11").find("negative"), std::string::npos);
  EXPECT_NE(error_of("L 2 7 0 0 16 1 2 3 4 5 6 7 8 9 10 11").find("function id 7 before a J line"), std::string::npos);
  EXPECT_NE(error_of("L 2 1 9 12 16 1 2 3 4 5 6 7 8 9 10 11").find("file id 9"), std::string::npos);
  EXPECT_NE(error_of("L 2 1 0 12 16 1 2 3 4 5 6 7 8 9 10 11").find("a line without one"), std::string::npos);
  EXPECT_NE(error_of("S 2 maybe why").find("malformed source status line"), std::string::npos);
  EXPECT_NE(error_of("I 2").find("malformed instrumented launch line"), std::string::npos);
  EXPECT_NE(error_of("J x kern").find("malformed source string line"), std::string::npos);
  EXPECT_NE(error_of("L 2 1 0 0 16 1 2 3 4 5 6 7 8 9 10 11 1 0").find("more than 11"), std::string::npos);
  EXPECT_NE(error_of("L 2 1 0 0 16 1 2 3 4 5 6 7 8 9 10 11 5 3").find("file id 5"), std::string::npos);
  EXPECT_EQ(error_of("L 2 1 0 0 16 1 2 3 4 5 6 7 8 9 10 11\nS 2 ok\nI 2 5"), "no error");
  EXPECT_EQ(error_of("L 2 1 0 0 16 1 2 3 4 5 6 7 8 9 10 11 1 7\nS 2 ok\nI 2 5"), "no error");
}

TEST(RecordLines, RecordSaysHowManyIdentitiesHaveLinesAndWhatAnInstrumentedLaunchCost) {
  TempDir dir;
  const std::string source = write_source(dir);
  const std::string other =
      "P 11 1 1763800000000000000 /tmp/app\nS 0 ok\nN 1 a\nK 0 1 7 1 10 20 8 1 1 32 1 1 1\n"
      "K 0 1 7 2 30 40 8 1 1 32 1 1 1\nS 2 failed cuCtxSynchronize: an illegal memory access\n"
      "I 2 3000000\nZ\n";
  const std::vector<ProcessRecord> processes = {parse_process_text(process_file(source, 9, 8000), "a"),
                                                parse_process_text(other, "b")};
  SelectOptions o;
  o.source_lines = true;
  KernelTotals totals;
  gpuperf::Run run;
  run.results = aggregate_launches(processes, "app", o, totals).at(0);
  EXPECT_EQ(describe_source_lines({run}, totals, processes),
            "lines for 1 of 2 identities; 1 without: 1 cuCtxSynchronize: an illegal memory access; 2 instrumented "
            "launches took 0.01 s, 4.0 ms a launch (median), the slowest 5.0 ms");
}

// Two recorded runs of one program, the second after a commit that strided the load: stored in an SQLite
// file as `record` stores them, `gpuperf compare` names the line with its text and its sectors per request.
TEST(RecordLines, TwoStoredRecordingsCompareNamingTheLineThatLostCoalescing) {
  TempDir dir;
  const std::string source = write_source(dir);
  auto recorded = [&](const std::string& uuid, const std::string& at, double sectors, int duration_ns) {
    const std::string text = process_file(source, 9, sectors, duration_ns);
    SelectOptions o;
    o.source_lines = true;
    KernelTotals totals;
    gpuperf::Run run;
    run.uuid = uuid;
    run.started_at = at;
    run.finished_at = at;
    run.commit = uuid.substr(0, 8) + "00000000";
    run.branch = "main";
    run.label = "record";
    run.tool_version = "0.1.0";
    run.command = "/tmp/app";
    run.exit_status = 0;
    run.machine = testing::h200();
    run.results = aggregate_launches({parse_process_text(text, "f")}, "app", o, totals).at(0);
    return run;
  };
  const std::string a = "40400001-0000-4000-8000-000000000001", b = "40400002-0000-4000-8000-000000000002";
  const std::string db = dir.file("gp.db");
  {
    db::Store store(db);
    store.insert_run(recorded(a, "2026-11-20T01:00:00Z", 1000, 1000));
    store.insert_run(recorded(b, "2026-11-21T01:00:00Z", 8000, 2000));
  }
  const testing::CliResult r =
      testing::run_gpuperf({"--db", db, "compare", a, b, "--format", "json"}, dir.path().string());
  EXPECT_EQ(r.code, 1) << r.err << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json* row = nullptr;
  for (const auto& x : j["rows"]) {
    if (x["metric"] == "duration") row = &x;
  }
  ASSERT_NE(row, nullptr) << r.out;
  ASSERT_TRUE(row->contains("lines")) << row->dump();
  const nlohmann::json& line = (*row)["lines"][0];
  EXPECT_EQ(line["file"], source);
  EXPECT_EQ(line["line"], 3);
  EXPECT_EQ(line["text"], "float v = in[i * stride];");
  EXPECT_EQ(line["counters"][0]["counter"], "global_ld_sectors_per_request");
  EXPECT_EQ(line["counters"][0]["before"], 4.0);
  EXPECT_EQ(line["counters"][0]["after"], 32.0);
  EXPECT_EQ(line["counters"][0]["ideal"], 4.0);
  const testing::CliResult text = testing::run_gpuperf({"--db", db, "compare", a, b}, dir.path().string());
  EXPECT_NE(
      text.out.find(source + ":3  float v = in[i * stride];  global load sectors per request 4.0 -> 32.0 (ideal 4.0)"),
      std::string::npos)
      << text.out;
}

}  // namespace
}  // namespace gpuperf::record
