// `gpuperf record`'s host side without a GPU: the record files the injection library writes, kernel
// identity and naming, the selection options, the aggregation into results, and running a program.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "core/errors.hpp"
#include "profiler/metric_catalog.hpp"
#include "profiler/metric_plan.hpp"
#include "profiler/record/recorder/aggregate.hpp"
#include "profiler/record/recorder/launch.hpp"
#include "profiler/record/recorder/record_file.hpp"

namespace gpuperf::record {
namespace {

// A process file as the injection library writes it: two kernels, one inside nested NVTX ranges.
const char* kFile =
    "P 4242 4241 1763800000000000000 /usr/bin/python3\n"
    "R 1 phase1\n"
    "R 2 phase1/inner\n"
    "N 1 _ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_\n"
    "K 0 1 7 10 1000 3000 128 1 1 256 1 1 1\n"
    "E 10 1\n"
    "N 2 add_one\n"
    "K 0 1 7 11 4000 4500 256 1 1 256 1 1 2\n"
    "E 11 2\n"
    "K 0 1 7 12 5000 7000 128 1 1 256 1 1 1\n"
    "K 1 2 9 13 1000 1200 256 1 1 256 1 1 2\n"
    "D 3\n"
    "Z\n";

TEST(RecordFile, ParsesLaunchesWithNamesAndNvtxPaths) {
  const ProcessRecord p = parse_process_text(kFile, "process-4242.txt");
  EXPECT_EQ(p.pid, 4242u);
  EXPECT_EQ(p.ppid, 4241u);
  EXPECT_EQ(p.argv0, "/usr/bin/python3");
  EXPECT_TRUE(p.complete);
  EXPECT_EQ(p.dropped, 3u);
  ASSERT_EQ(p.launches.size(), 4u);
  EXPECT_EQ(p.launches[0].nvtx_path, "phase1");
  EXPECT_EQ(p.launches[1].nvtx_path, "phase1/inner");
  EXPECT_EQ(p.launches[1].name, "add_one");
  EXPECT_EQ(p.launches[2].nvtx_path, "");  // no correlation line: outside any range
  EXPECT_EQ(p.launches[0].end_ns - p.launches[0].start_ns, 2000u);
  EXPECT_EQ(p.launches[3].device, 1u);
  EXPECT_EQ(p.launches[0].grid[0], 128u);
}

TEST(RecordFile, AKilledProcessKeepsWhatItFlushedAndIsIncomplete) {
  std::string text = kFile;
  text = text.substr(0, text.find("K 1 2 9"));  // the last full lines before the kill
  text += "K 1 2 9 13 10";                      // a half-written line
  const ProcessRecord p = parse_process_text(text, "process-1.txt");
  EXPECT_FALSE(p.complete);
  EXPECT_EQ(p.launches.size(), 3u);
}

TEST(RecordFile, FlushLinesTellWhenAKilledProcessLastWroteItsRecords) {
  // The library writes an F line after each buffer, also from its periodic flush: a SIGKILL leaves the
  // launches up to the last one.
  const std::string text =
      "P 5 1 1000000000000 app\nN 1 k\nK 0 1 7 1 10 30 1 1 1 32 1 1 1\nF 1000500000000\n"
      "K 0 1 7 2 40 60 1 1 1 32 1 1 1\nK 0 1 7 3 70 90 1 1 1 32 1 1 1\nF 1002250000000\nK 0 1 7 4 1";
  const ProcessRecord p = parse_process_text(text, "process-5.txt");
  EXPECT_FALSE(p.complete);
  EXPECT_EQ(p.started_ns, 1000000000000u);
  EXPECT_EQ(p.last_flush_ns, 1002250000000u);
  EXPECT_EQ(p.launches.size(), 3u);
  EXPECT_THROW(parse_process_text("P 1 0 5 x\nF soon\n", "f"), InputError);
  EXPECT_THROW(parse_process_text("P 1 0 5 x\nF 5 6\n", "f"), InputError);
}

TEST(RecordFile, AKernelLineMayNameTheGraphWhoseLaunchRanIt) {
  const ProcessRecord p = parse_process_text(
      "P 1 0 5 x\nN 1 k\nK 0 1 7 1 10 30 1 1 1 32 1 1 1\nK 0 1 7 2 40 60 1 1 1 32 1 1 1 12\nB 200\nZ\n", "f");
  ASSERT_EQ(p.launches.size(), 2u);
  EXPECT_EQ(p.launches[0].graph, 0u);
  EXPECT_EQ(p.launches[1].graph, 12u);
  EXPECT_EQ(p.profile_budget_spent, 200u);
  EXPECT_THROW(parse_process_text("P 1 0 5 x\nN 1 k\nK 0 1 7 2 40 60 1 1 1 32 1 1 1 12 13\n", "f"), InputError);
  EXPECT_THROW(parse_process_text("P 1 0 5 x\nN 1 k\nK 0 1 7 2 40 60 1 1 1 32 1 1 1 g\n", "f"), InputError);
}

TEST(RecordFile, OwnTimeLinesAreKeptAsWrittenAndNewerKindsTolerated) {
  const ProcessRecord p = parse_process_text(
      "P 1 0 5 x\nO nvtx program 600 300 412000\nO write cupti 2 7217 1100000\n"
      "O spin future 1 2 3 extra fields\nZ\n",
      "f");
  ASSERT_EQ(p.own_work.size(), 3u);
  EXPECT_EQ(p.own_work[0].work, "nvtx");
  EXPECT_EQ(p.own_work[0].thread, "program");
  EXPECT_EQ(p.own_work[0].calls, 600u);
  EXPECT_EQ(p.own_work[0].items, 300u);
  EXPECT_EQ(p.own_work[0].ns, 412000u);
  EXPECT_EQ(p.own_work[1].items, 7217u);
  EXPECT_EQ(p.own_work[2].work, "spin");  // a kind this reader does not know, its extra fields ignored
  EXPECT_EQ(p.own_work[2].ns, 3u);
  EXPECT_TRUE(p.complete);
  // A file without O lines (an older library, a killed process) has none.
  EXPECT_TRUE(parse_process_text("P 1 0 5 x\nZ\n", "f").own_work.empty());
  EXPECT_THROW(parse_process_text("P 1 0 5 x\nO nvtx program 6\n", "f"), InputError);
  EXPECT_THROW(parse_process_text("P 1 0 5 x\nO nvtx program many 1 2\n", "f"), InputError);
}

TEST(RecordFile, ProfileTimesJoinTheirLaunchAndTheTimeBudgetIsKept) {
  const ProcessRecord p = parse_process_text(
      "P 1 0 5 x\nC a b\nN 1 k\nK 0 1 7 1 10 30 1 1 1 32 1 1 1\nK 0 1 7 2 40 60 1 1 1 32 1 1 1\n"
      "M 2 1.5 2\nW 2 400000000\nT 60000\nZ\n",
      "f");
  ASSERT_EQ(p.launches.size(), 2u);
  EXPECT_EQ(p.launches[0].profile_ns, 0u);
  EXPECT_EQ(p.launches[1].profile_ns, 400000000u);
  EXPECT_EQ(p.profile_time_budget_ms, 60000u);
  EXPECT_THROW(parse_process_text("P 1 0 5 x\nW 2\n", "f"), InputError);
  EXPECT_THROW(parse_process_text("P 1 0 5 x\nT 6 7\n", "f"), InputError);
}

TEST(RecordFile, MalformedLinesNameTheFileAndLine) {
  try {
    parse_process_text("P 1 0 5 x\nK 0 1 7 oops\n", "process-1.txt");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("process-1.txt:2: malformed kernel line"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_process_text("P 1 0 5 x\nQ what\n", "f"), InputError);
  EXPECT_THROW(parse_process_text("K 0 1 7 1 5 4 1 1 1 1 1 1 1\n", "f"), InputError);  // ends before it starts
  EXPECT_THROW(parse_process_text("K 0 1 7 1 4 5 1 1 1 1 1 1 9\n", "f"), InputError);  // name 9 never named
  // Every field whole and in range: no trailing junk, no sign, nothing missing.
  for (const char* line : {"K 0 1 7 1 4 5 1 1 1 1 1 1 1x\n", "K 0 1 7 -1 4 5 1 1 1 1 1 1 1\n",
                           "K 0 1 7 1 4 5 1 1 1 1 1 1\n", "K 0 1 7 1 4 5 1 1 1 1 1 99999999999 1\n"}) {
    try {
      parse_process_text(std::string("P 1 0 5 x\nN 1 k\n") + line, "process-1.txt");
      ADD_FAILURE() << "accepted " << line;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("process-1.txt:3: malformed kernel line"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_process_text("P 1 0 5 x\nC a b\nM 4 1.5 two\n", "f"), InputError);  // not a number
  EXPECT_THROW(parse_process_text("P 1 0 5 x\nC a b\nM 4 1.5\n", "f"), InputError);      // one short
}

// What a test compares of two parses of the same file.
std::string summary(const ProcessRecord& p) {
  std::string out =
      std::to_string(p.pid) + " " + p.argv0 + " " + (p.complete ? "Z" : "-") + " " + std::to_string(p.dropped) + "\n";
  for (const auto& l : p.launches) {
    out += std::string(l.name) + " " + std::string(l.nvtx_path) + " " + std::to_string(l.correlation) + " " +
           std::to_string(l.end_ns - l.start_ns) + " " + std::to_string(l.device) + "\n";
  }
  return out;
}

TEST(RecordFile, AFileReadInPiecesCutAnywhereParsesAsAWhole) {
  const std::string whole = summary(parse_process_text(kFile, "f"));
  const std::string text = kFile;
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {  // two pieces, the line cut at every byte
    ProcessParser parser("f");
    parser.feed(std::string_view(text).substr(0, cut));
    parser.feed(std::string_view(text).substr(cut));
    ASSERT_EQ(summary(parser.finish()), whole) << "cut at byte " << cut;
  }
  ProcessParser bytewise("f");
  for (char c : text) bytewise.feed(std::string_view(&c, 1));
  EXPECT_EQ(summary(bytewise.finish()), whole);
  // Line numbers in errors count across pieces.
  ProcessParser bad("process-9.txt");
  bad.feed("P 9 1 0 x\nN 1 k\nK 0 1 7 1 4 5 1 1");
  try {
    bad.feed(" 1 1 1 1 1\nK 0 1 7 oops\n");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("process-9.txt:4: malformed kernel line"), std::string::npos) << e.what();
  }
}

TEST(RecordFile, AFolderIsFollowedAsItsFilesGrowAndNewOnesAppear) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpuperf-follow-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string text = kFile;
  const std::size_t half = text.find("K 0 1 7 12") + 4;  // in the middle of a kernel line
  { std::ofstream(dir / "process-4242.txt") << text.substr(0, half); }
  RecordDirReader reader(dir.string());
  reader.poll();
  {
    std::ofstream(dir / "process-4242.txt", std::ios::app) << text.substr(half);
    std::ofstream(dir / "process-77.txt") << "P 77 4242 0 child\nN 1 k\nK 0 1 7 1 10 30 1 1 1 32 1 1 1\n";
  }
  reader.poll();
  { std::ofstream(dir / "process-77.txt", std::ios::app) << "K 0 1 7 2 40 45 1 1 1 32 1 1 1\nZ\n"; }
  const auto processes = reader.finish();
  std::filesystem::remove_all(dir);
  ASSERT_EQ(processes.size(), 2u);
  EXPECT_EQ(processes[0].pid, 77u);
  EXPECT_EQ(processes[0].launches.size(), 2u);
  EXPECT_TRUE(processes[0].complete);
  EXPECT_EQ(summary(processes[1]), summary(parse_process_text(kFile, "f")));
}

TEST(RecordFile, ReadsEveryProcessFileOfAFolder) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpuperf-record-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "process-20.txt") << "P 20 1 0 child\nZ\n";
  std::ofstream(dir / "process-3.txt") << kFile;
  std::ofstream(dir / "unrelated.txt") << "not a record\n";
  const auto processes = read_record_dir(dir.string());
  std::filesystem::remove_all(dir);
  ASSERT_EQ(processes.size(), 2u);
  EXPECT_EQ(processes[0].pid, 20u);  // by pid
  EXPECT_EQ(processes[1].pid, 4242u);
}

TEST(RecordFile, XlaProgramIdsLeaveNvtxPathsSoTwoRunsShareIdentities) {
  // Two runs of one JAX program number their compiled programs differently.
  EXPECT_EQ(stable_nvtx_path("XlaCompileBackend:#module=jit_step,program_id=1989#/Thunk:#hlo_op=fusion.1#"),
            "XlaCompileBackend:#module=jit_step#/Thunk:#hlo_op=fusion.1#");
  EXPECT_EQ(stable_nvtx_path("XlaCompileBackend:#module=jit_step,program_id=2005#/Thunk:#hlo_op=fusion.1#"),
            stable_nvtx_path("XlaCompileBackend:#module=jit_step,program_id=1989#/Thunk:#hlo_op=fusion.1#"));
  EXPECT_EQ(stable_nvtx_path("X:#program_id=3,module=m#"), "X:#module=m#");
  EXPECT_EQ(stable_nvtx_path("a:#module=m,program_id=12,b=2#/c"), "a:#module=m,b=2#/c");
  // Not a field, or not a number: kept.
  for (const char* kept : {"phase1/inner", "my program_id=4", "x:#module=m,program_id=#", "x:#program_id=4a#",
                           "program_id=4", "#module=m,program_id=7"}) {
    EXPECT_EQ(stable_nvtx_path(kept), kept);
  }
  // Applied where the record file names its ranges.
  ProcessParser parser("process-1.txt");
  parser.feed(
      "P 1 0 1 /usr/bin/python3\nR 1 XlaModule:#module=jit_f,program_id=77#\nN 1 k\n"
      "K 0 1 7 10 1000 3000 1 1 1 32 1 1 1\nE 10 1\nZ\n");
  ProcessRecord p = parser.finish();
  ASSERT_EQ(p.launches.size(), 1u);
  EXPECT_EQ(p.launches[0].nvtx_path, "XlaModule:#module=jit_f#");
}

TEST(KernelName, DemangledKeepsTemplateArgumentsAndDropsTheParameterList) {
  const std::string mangled = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_";
  EXPECT_EQ(kernel_name(mangled, KernelNaming::demangled),
            "at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >");
  EXPECT_EQ(kernel_name(mangled, KernelNaming::function), "vectorized_elementwise_kernel");
  EXPECT_EQ(kernel_name(mangled, KernelNaming::mangled), mangled);
  EXPECT_EQ(kernel_name("add_one", KernelNaming::demangled), "add_one");  // extern "C": as it is
  EXPECT_EQ(kernel_name("_Z4spinILi4EEvPfi", KernelNaming::demangled), "spin<4>");
  EXPECT_EQ(kernel_name("_Z4spinILi4EEvPfi", KernelNaming::function), "spin");
  EXPECT_EQ(kernel_naming_from_string("function"), KernelNaming::function);
  EXPECT_THROW(kernel_naming_from_string("short"), InputError);
}

TEST(ProgramFamily, BaseNameWithOnlySafeCharacters) {
  EXPECT_EQ(program_family("/usr/bin/python3"), "python3");
  EXPECT_EQ(program_family("./my app[1]"), "my_app_1_");
  EXPECT_EQ(program_family("bench/"), "program");
}

std::vector<ProcessRecord> sample() { return {parse_process_text(kFile, "f")}; }

std::string param(const Result& r, const char* name) {
  auto it = r.instance.params.find(name);
  return it == r.instance.params.end() ? std::string("-") : std::get<std::string>(it->second);
}

TEST(Aggregate, OneInstancePerIdentityAndDeviceWithCountsTotalsAndShares) {
  KernelTotals totals;
  const auto by_device = aggregate_launches(sample(), "python3", SelectOptions{}, totals);
  EXPECT_EQ(totals.launches_seen, 4u);
  EXPECT_EQ(totals.launches_kept, 4u);
  // The fill kernel in phase1 and outside any range are two identities: the NVTX path is part of it.
  EXPECT_EQ(totals.identities, 4u);
  ASSERT_EQ(by_device.size(), 2u);  // one run per GPU
  const auto& d0 = by_device.at(0);
  ASSERT_EQ(d0.size(), 3u);
  const std::string fill = "python3/at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >";
  EXPECT_EQ(d0[0].instance.name, fill);  // 2000 ns each, ahead of add_one's 500 ns
  EXPECT_EQ(d0[1].instance.name, fill);
  EXPECT_EQ(param(d0[0], "nvtx"), "phase1");
  EXPECT_EQ(param(d0[1], "nvtx"), "-");
  const Result& add = d0[2];
  EXPECT_EQ(add.instance.name, "python3/add_one");
  EXPECT_EQ(param(add, "nvtx"), "phase1/inner");
  EXPECT_EQ(param(add, "grid"), "256x1x1");
  EXPECT_EQ(param(add, "block"), "256x1x1");
  EXPECT_EQ(add.instance.display_name(), "python3/add_one[block=256x1x1,grid=256x1x1,nvtx=phase1/inner]");
  EXPECT_DOUBLE_EQ(add.find("duration")->samples.at(0), 500.0);
  EXPECT_DOUBLE_EQ(add.find("launches")->samples.at(0), 1.0);
  EXPECT_DOUBLE_EQ(add.find("gpu_time_total")->samples.at(0), 500.0);
  EXPECT_DOUBLE_EQ(add.find("gpu_time_share")->samples.at(0), 100.0 * 500 / 4500);  // of device 0's 4500 ns
  EXPECT_DOUBLE_EQ(by_device.at(1)[0].find("gpu_time_share")->samples.at(0), 100.0);
}

// n launches of one kernel, 100 ns apart, durations 1000 + i ns.
std::vector<ProcessRecord> repeated(int n) {
  std::string text = "P 7 1 0 app\nN 1 _Z4spinILi4EEvPfi\nN 2 other\n";
  for (int i = 0; i < n; ++i) {
    const int start = i * 10000;
    text += "K 0 1 7 " + std::to_string(i + 1) + " " + std::to_string(start) + " " + std::to_string(start + 1000 + i) +
            " 64 1 1 128 1 1 1\n";
  }
  text += "K 0 1 7 999 900000 900050 1 1 1 32 1 1 2\nZ\n";
  return {parse_process_text(text, "f")};
}

TEST(Aggregate, SamplesAreCappedButCountsAndTotalsCoverEveryLaunch) {
  SelectOptions o;
  o.max_samples = 3;
  KernelTotals totals;
  const auto d0 = aggregate_launches(repeated(10), "app", o, totals).at(0);
  const Result& spin = d0.at(0);
  EXPECT_EQ(spin.instance.name, "app/spin<4>");
  EXPECT_EQ(spin.find("duration")->samples, (std::vector<double>{1000, 1001, 1002}));  // the first ones
  EXPECT_DOUBLE_EQ(spin.find("launches")->samples.at(0), 10.0);
  EXPECT_DOUBLE_EQ(spin.find("gpu_time_total")->samples.at(0), 10 * 1000 + 45);
}

TEST(Aggregate, KernelRegexNvtxIncludeLaunchSkipAndCountSelectLikeNcu) {
  KernelTotals totals;
  SelectOptions o;
  o.kernel_regex = "^spin";
  o.launch_skip = 2;
  o.launch_count = 5;
  const auto d0 = aggregate_launches(repeated(10), "app", o, totals).at(0);
  ASSERT_EQ(d0.size(), 1u);  // `other` does not match
  EXPECT_EQ(d0[0].find("duration")->samples, (std::vector<double>{1002, 1003, 1004, 1005, 1006}));
  EXPECT_EQ(totals.launches_seen, 11u);
  EXPECT_EQ(totals.launches_kept, 5u);

  SelectOptions nvtx;
  nvtx.nvtx_include = "inner$";
  const auto only_inner = aggregate_launches(sample(), "app", nvtx, totals);
  ASSERT_EQ(only_inner.size(), 1u);
  ASSERT_EQ(only_inner.at(0).size(), 1u);
  EXPECT_EQ(only_inner.at(0)[0].instance.name, "app/add_one");

  SelectOptions function;
  function.naming = KernelNaming::function;
  EXPECT_EQ(aggregate_launches(repeated(1), "app", function, totals).at(0)[0].instance.name, "app/spin");

  SelectOptions bad;
  bad.nvtx_include = "([";
  EXPECT_THROW(aggregate_launches({}, "app", bad, totals), InputError);
  EXPECT_THROW(aggregate_launches({}, "a/b", SelectOptions{}, totals), InputError);
}

TEST(Aggregate, KernelsWhoseNamesShortenAlikeShareTheirIdentity) {
  // spin<4> and spin<2> are both "spin" with --kernel-name function: one identity, every launch counted.
  const std::string text =
      "P 7 1 0 app\nN 1 _Z4spinILi4EEvPfi\nN 2 _Z4spinILi2EEvPfi\n"
      "K 0 1 7 1 0 100 64 1 1 128 1 1 1\nK 0 1 7 2 200 250 64 1 1 128 1 1 2\nK 0 1 7 3 300 400 64 1 1 128 1 1 1\nZ\n";
  SelectOptions function;
  function.naming = KernelNaming::function;
  KernelTotals totals;
  const auto d0 = aggregate_launches({parse_process_text(text, "f")}, "app", function, totals).at(0);
  ASSERT_EQ(d0.size(), 1u);
  EXPECT_EQ(d0[0].instance.name, "app/spin");
  EXPECT_EQ(d0[0].find("duration")->samples, (std::vector<double>{100, 50, 100}));
  EXPECT_DOUBLE_EQ(d0[0].find("launches")->samples.at(0), 3.0);
  EXPECT_EQ(aggregate_launches({parse_process_text(text, "f")}, "app", SelectOptions{}, totals).at(0).size(), 2u);
}

TEST(Aggregate, ALongProgramsLaunchesAreCountedExactlyPerIdentity) {
  // 30,000 launches of three kernels, the first in two NVTX ranges by turns, as a busy program writes them.
  std::string text = "P 7 1 0 app\nN 1 _Z4spinILi4EEvPfi\nN 2 add_one\nN 3 _Z5stagePKfPf\nR 1 a\nR 2 a/b\n";
  std::uint64_t t = 0;
  for (int i = 0; i < 30000; ++i) {
    const int kernel = 1 + i % 3;
    text += "K 0 1 7 " + std::to_string(i + 1) + " " + std::to_string(t) + " " + std::to_string(t + 100 * kernel) +
            " 64 1 1 128 1 1 " + std::to_string(kernel) + "\n";
    if (kernel == 1) text += "E " + std::to_string(i + 1) + " " + std::to_string(1 + (i / 3) % 2) + "\n";
    t += 1000;
  }
  text += "Z\n";
  KernelTotals totals;
  const auto d0 = aggregate_launches({parse_process_text(text, "f")}, "app", SelectOptions{}, totals).at(0);
  EXPECT_EQ(totals.launches_kept, 30000u);
  ASSERT_EQ(d0.size(), 4u);  // stage, add_one, spin<4> in a, spin<4> in a/b: by GPU time
  EXPECT_EQ(d0[0].instance.name, "app/stage");
  EXPECT_DOUBLE_EQ(d0[0].find("launches")->samples.at(0), 10000.0);
  EXPECT_DOUBLE_EQ(d0[0].find("gpu_time_total")->samples.at(0), 10000.0 * 300);
  EXPECT_EQ(d0[1].instance.name, "app/add_one");
  EXPECT_DOUBLE_EQ(d0[1].find("launches")->samples.at(0), 10000.0);
  EXPECT_EQ(d0[2].instance.name, "app/spin<4>");
  EXPECT_EQ(d0[3].instance.name, "app/spin<4>");
  EXPECT_DOUBLE_EQ(d0[2].find("launches")->samples.at(0), 5000.0);
  EXPECT_DOUBLE_EQ(d0[3].find("launches")->samples.at(0), 5000.0);
  EXPECT_NE(param(d0[2], "nvtx"), param(d0[3], "nvtx"));
  EXPECT_EQ(d0[0].find("duration")->samples.size(), 1000u);  // capped at --max-samples' default
}

TEST(Aggregate, ProfiledLaunchesGiveTheirIdentityHardwareMetrics) {
  const MetricPlan plan =
      plan_metrics(resolve_metric_requests({"gld_efficiency", "shared_load_transactions"}, nullptr));
  ASSERT_EQ(plan.perfworks.size(), 2u);
  std::string text = "P 9 1 0 app\nN 1 _Z4spinILi4EEvPfi\nC " + plan.perfworks[0] + " " + plan.perfworks[1] + "\n";
  for (int i = 1; i <= 4; ++i) {
    text += "K 0 1 7 " + std::to_string(i) + " " + std::to_string(i * 10000) + " " + std::to_string(i * 10000 + 500) +
            " 64 1 1 128 1 1 1\n";
  }
  text += "M 1 50 1000\nM 2 50 1010\nZ\n";  // the first two launches were profiled
  const auto processes = std::vector<ProcessRecord>{parse_process_text(text, "f")};
  ASSERT_EQ(processes[0].metric_names.size(), 2u);
  EXPECT_EQ(processes[0].launches[0].metrics, (std::vector<double>{50, 1000}));
  EXPECT_TRUE(processes[0].launches[2].metrics.empty());
  SelectOptions o;
  o.metrics = &plan;
  KernelTotals totals;
  const Result r = aggregate_launches(processes, "app", o, totals).at(0).at(0);
  const Measurement* gld = r.find("gld_efficiency");
  const Measurement* shared = r.find("shared_load_transactions");
  ASSERT_NE(gld, nullptr);
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(gld->samples, (std::vector<double>{50, 50}));
  EXPECT_EQ(shared->samples, (std::vector<double>{1000, 1010}));
  EXPECT_DOUBLE_EQ(shared->summary.median, 1005);
  EXPECT_DOUBLE_EQ(r.find("launches")->samples.at(0), 4.0);  // every launch counts, profiled or not
  // Without the plan (record without --metrics) the values are not read.
  EXPECT_EQ(aggregate_launches(processes, "app", SelectOptions{}, totals).at(0).at(0).find("gld_efficiency"), nullptr);
  EXPECT_THROW(parse_process_text("P 1 0 0 x\nC a b\nM 3 1\n", "f"), InputError);  // values do not match C
}

TEST(Launch, ResolvesProgramsLikeAShellAndRefusesWhatCannotRun) {
  EXPECT_EQ(resolve_program("/bin/sh"), "/bin/sh");
  const std::string sh = resolve_program("sh");
  EXPECT_EQ(sh.substr(sh.size() - 3), "/sh");
  EXPECT_THROW(resolve_program("/no/such/program"), InputError);
  EXPECT_THROW(resolve_program("gpuperf-no-such-program-on-path"), InputError);
  const auto plain = std::filesystem::temp_directory_path() / ("gpuperf-not-executable-" + std::to_string(getpid()));
  std::ofstream(plain) << "echo hi\n";
  std::filesystem::permissions(plain, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  EXPECT_THROW(resolve_program(plain.string()), InputError);  // not executable
  std::filesystem::remove(plain);
  EXPECT_THROW(resolve_program(""), InputError);
}

TEST(Launch, RunsTheProgramWithTheRecordingEnvironmentAndReportsHowItEnded) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpuperf-launch-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "env.txt").string();
  ProgramEnd end =
      run_program({"sh", "-c", "echo \"$CUDA_INJECTION64_PATH|$GPUPERF_RECORD_CONFIG\" > " + out + "; exit 3"},
                  dir.string(), "/opt/inject.so");
  EXPECT_EQ(end.exit_status, 3);
  std::string line;
  std::getline(std::ifstream(out), line);
  EXPECT_EQ(line, "/opt/inject.so|dir=" + dir.string());  // the config's first line
  end = run_program({"sh", "-c", "kill -TERM $$"}, dir.string(), "/opt/inject.so");
  EXPECT_EQ(end.exit_status, -15);
  std::filesystem::remove_all(dir);
}

TEST(Launch, GpuperfsOwnWorkRunsWhileTheProgramRunsAndItsFailureWaitsForTheProgram) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpuperf-overlap-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string go = (dir / "go").string(), done = (dir / "done").string();
  // The program waits for a file only the callback creates: it ends only if the two ran at the same time.
  const std::vector<std::string> program = {"sh", "-c",
                                            "i=0; while [ ! -e " + go +
                                                " ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done; "
                                                "[ -e " +
                                                go + " ] && touch " + done};
  ProgramEnd end = run_program(program, dir.string(), "/opt/inject.so", true, {}, [&] { std::ofstream(go) << "1"; });
  EXPECT_EQ(end.exit_status, 0);
  EXPECT_TRUE(std::filesystem::exists(done));
  // Called again and again while the program runs (every 10 ms or so), not once.
  int calls = 0;
  end = run_program({"sh", "-c", "sleep 0.2"}, dir.string(), "/opt/inject.so", true, {}, [&] { ++calls; });
  EXPECT_EQ(end.exit_status, 0);
  EXPECT_GE(calls, 5);
  EXPECT_LE(calls, 100);

  std::filesystem::remove(go);
  std::filesystem::remove(done);
  try {
    run_program(program, dir.string(), "/opt/inject.so", true, {}, [&] {
      std::ofstream(go) << "1";
      throw EnvironmentError("cannot describe the GPU");
    });
    ADD_FAILURE() << "no error";
  } catch (const EnvironmentError& e) {
    EXPECT_STREQ(e.what(), "cannot describe the GPU");
    EXPECT_TRUE(std::filesystem::exists(done));  // rethrown only once the program had ended
  }
  std::filesystem::remove_all(dir);
}

TEST(Launch, AnotherInjectedToolIsNamed) {
  setenv("CUDA_INJECTION64_PATH", "/opt/nvidia/nsight-systems/target-linux-x64/libToolsInjection64.so", 1);
  try {
    check_no_other_injection();
    ADD_FAILURE() << "no error";
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find("Nsight Systems"), std::string::npos) << e.what();
  }
  unsetenv("CUDA_INJECTION64_PATH");
  EXPECT_NO_THROW(check_no_other_injection());
}

TEST(Aggregate, AProfiledLaunchCountsButGivesNoDuration) {
  // Kernel replay hands the profiled launch's record back with no timestamps (seen on an H100).
  const std::string text =
      "P 9 1 0 app\nN 1 alpha_kernel\nN 2 beta_kernel\nK 0 1 7 1 0 0 64 1 1 128 1 1 1\nK 0 1 7 2 100 300 64 1 1 128 1 "
      "1 1\n"
      "K 0 1 7 3 0 0 8 1 1 32 1 1 2\nW 1 300000000\nW 3 300000000\nZ\n";  // their profiling times
  KernelTotals totals;
  const auto out = aggregate_launches({parse_process_text(text, "f")}, "app", SelectOptions{}, totals);
  const std::vector<Result>& d0 = out.at(0);
  ASSERT_EQ(d0.size(), 2u);
  EXPECT_EQ(d0[0].instance.name, "app/alpha_kernel");
  EXPECT_EQ(d0[0].find("duration")->samples, (std::vector<double>{200}));
  EXPECT_DOUBLE_EQ(d0[0].find("launches")->samples.at(0), 2.0);
  EXPECT_DOUBLE_EQ(d0[0].find("gpu_time_total")->samples.at(0), 200.0);
  EXPECT_EQ(d0[1].find("duration")->status, Status::skipped);  // its one launch was profiled
  EXPECT_NE(d0[1].find("duration")->message.find("was profiled"), std::string::npos);
  EXPECT_EQ(totals.launches_unfinished, 0u);
  EXPECT_DOUBLE_EQ(d0[1].find("launches")->samples.at(0), 1.0);
}

TEST(Aggregate, LaunchSkipCountsProfiledLaunchesInTheOrderTheProcessMadeThem) {
  // bench/record/programs/warmup_steps.py on an H200 (record --metrics default --kernel-regex sgemm --launch-skip 5
  // --launch-count 3): 5 warm-up matmuls, then 3 steps', each followed by a ReLU; the library profiled the 6th to
  // 8th matmul (correlations 12, 14, 16), whose records kernel replay hands back with no timestamps. Ordered by
  // start time, those three came first, were skipped, and the stored identity had none of the counters.
  const MetricPlan plan = plan_metrics(resolve_metric_requests({"gld_efficiency"}, nullptr));
  std::string text =
      "P 577 575 0 python3\nN 1 randn_kernel\nN 2 cutlass_80_simt_sgemm_256x128_8x4_nn_align1\n"
      "N 3 relu_kernel\nC " +
      plan.perfworks[0] + "\nK 0 1 7 1 100 110 1 1 1 1 1 1 1\n";
  for (int i = 0; i < 8; ++i) {
    const int gemm = 2 + 2 * i, start = 1000 + 1000 * i;
    const bool profiled = i >= 5;
    text += "K 0 1 7 " + std::to_string(gemm) + " " +
            (profiled ? "0 0" : std::to_string(start) + " " + std::to_string(start + 340)) + " 64 1 1 256 1 1 2\n";
    text += "K 0 1 7 " + std::to_string(gemm + 1) + " " + std::to_string(start + 500) + " " +
            std::to_string(start + 507) + " 64 1 1 128 1 1 3\n";
  }
  text += "M 12 50\nM 14 51\nM 16 52\nZ\n";
  SelectOptions o;
  o.metrics = &plan;
  o.kernel_regex = "sgemm";
  o.launch_skip = 5;
  o.launch_count = 3;
  KernelTotals totals;
  const auto d0 = aggregate_launches({parse_process_text(text, "f")}, "app", o, totals).at(0);
  ASSERT_EQ(d0.size(), 1u);
  EXPECT_DOUBLE_EQ(d0[0].find("launches")->samples.at(0), 3.0);
  const Measurement* gld = d0[0].find("gld_efficiency");
  ASSERT_NE(gld, nullptr);
  EXPECT_EQ(gld->status, Status::ok) << gld->message;
  EXPECT_EQ(gld->samples.size(), 3u);
  EXPECT_EQ(d0[0].find("duration")->status, Status::skipped);  // each of its launches was profiled
  EXPECT_EQ(totals.launches_kept, 3u);
}

TEST(Aggregate, LaunchSkipOnTheWarmUpProgramsRecordFromAnH200KeepsItsProfiledSteps) {
  // The injection library's record file of that run (tests/record/fixtures/warmup_steps_skip5_h200.txt: NVIDIA H200,
  // driver 580.159.04, 2026-11-29, its code-fingerprint and library lines left out). The library profiled the 3
  // steps' matmuls; the storage's skip and count must keep those same launches: the step identity, 3 launches, each
  // profiled (so no duration). Before, it stored the warm-up identity, unprofiled.
  std::ifstream in(std::string(RECORD_FIXTURES) + "/warmup_steps_skip5_h200.txt");
  ASSERT_TRUE(in) << "missing fixture";
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  SelectOptions o;
  o.kernel_regex = "gemm|nvjet|xmma|cutlass";
  o.launch_skip = 5;
  o.launch_count = 3;
  KernelTotals totals;
  const auto d0 = aggregate_launches({parse_process_text(text, "f")}, "python3", o, totals).at(0);
  ASSERT_EQ(d0.size(), 1u);
  EXPECT_EQ(std::get<std::string>(d0[0].instance.params.at("nvtx")), "step");
  EXPECT_DOUBLE_EQ(d0[0].find("launches")->samples.at(0), 3.0);
  EXPECT_EQ(d0[0].find("duration")->status, Status::skipped);
  EXPECT_EQ(totals.launches_seen, 17u);
  EXPECT_EQ(totals.launches_kept, 3u);
}

TEST(Aggregate, IdentitiesWithCountersAndThoseOnlyGraphsRanAreCounted) {
  const MetricPlan plan = plan_metrics(resolve_metric_requests({"gld_efficiency"}, nullptr));
  // Kernel 1 at two shapes, both profiled; kernel 2 only from a graph's replays (never profiled).
  const std::string text = "P 9 1 0 app\nN 1 a\nN 2 b\nC " + plan.perfworks[0] +
                           "\nK 0 1 7 1 10 20 64 1 1 128 1 1 1\nK 0 1 7 2 30 40 32 1 1 128 1 1 1\n"
                           "K 0 1 7 3 50 60 8 1 1 32 1 1 2 4\nK 0 1 7 3 70 80 8 1 1 32 1 1 2 4\nM 1 100\nM 2 50\nZ\n";
  const auto processes = std::vector<ProcessRecord>{parse_process_text(text, "f")};
  SelectOptions o;
  o.metrics = &plan;
  KernelTotals totals;
  aggregate_launches(processes, "app", o, totals);
  EXPECT_EQ(totals.identities, 3u);
  EXPECT_EQ(totals.identities_with_counters, 2u);
  EXPECT_EQ(totals.identities_graph_only, 1u);
}

TEST(RecordFile, TheRankLineGivesTheProcessesPlaceInItsJob) {
  const ProcessRecord p = parse_process_text("P 9 1 0 app\nA 3 1 4\nZ\n", "f");
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.local_rank, 1);
  EXPECT_EQ(p.world_size, 4);
  const ProcessRecord partial = parse_process_text("P 9 1 0 app\nA - 0 -\nZ\n", "f");
  EXPECT_FALSE(partial.rank.has_value());
  EXPECT_EQ(partial.local_rank, 0);
  EXPECT_FALSE(partial.world_size.has_value());
  const ProcessRecord none = parse_process_text("P 9 1 0 app\nZ\n", "f");
  EXPECT_FALSE(none.rank.has_value() || none.local_rank.has_value() || none.world_size.has_value());
  for (const char* bad : {"A 1 2\n", "A 1 2 3 4\n", "A x 0 1\n", "A -1 0 1\n", "A 1.5 0 1\n"}) {
    try {
      parse_process_text(std::string("P 9 1 0 app\n") + bad, "process-9.txt");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("process-9.txt:2: malformed rank line"), std::string::npos) << e.what();
    }
  }
}

TEST(RecordFile, AGivenUpLaunchKeepsNoValuesAndAnUnfinishedKernelNoDuration) {
  const MetricPlan plan = plan_metrics(resolve_metric_requests({"gld_efficiency"}, nullptr));
  // Launch 2 was given up by the watchdog after 30 s and returned later (its M and W lines came after G);
  // launch 4 was still running when the killed program's last flush ran (end 0).
  const std::string text = "P 9 1 0 app\nN 1 _Z4gemmPf\nN 2 wait_forever\nC " + plan.perfworks[0] +
                           "\nK 0 1 7 1 0 0 8 1 1 128 1 1 1\nM 1 100\nW 1 200000000\n"
                           "G 2 30001 _Z4gemmPf 8 1 1 128 1 1 0\nK 0 1 7 2 0 0 8 1 1 128 1 1 1\nM 2 50\nW 2 "
                           "31000000000\nK 0 1 7 3 10 20 8 1 1 128 1 1 1\nK 0 1 7 4 500 0 1 1 1 32 1 1 2\n";
  const ProcessRecord p = parse_process_text(text, "f");
  ASSERT_EQ(p.given_up.size(), 1u);
  EXPECT_EQ(p.given_up[0].correlation, 2u);
  EXPECT_EQ(p.given_up[0].ms, 30001u);
  EXPECT_EQ(p.given_up[0].identity, "_Z4gemmPf 8 1 1 128 1 1 0");
  ASSERT_EQ(p.launches.size(), 4u);
  EXPECT_EQ(p.launches[0].metrics, (std::vector<double>{100}));
  EXPECT_EQ(p.launches[0].profile_ns, 200000000u);
  EXPECT_TRUE(p.launches[1].metrics.empty());
  EXPECT_EQ(p.launches[1].profile_ns, 0u);
  EXPECT_FALSE(p.launches[0].unfinished);  // profiled: no timestamps, but its W line
  EXPECT_FALSE(p.launches[1].unfinished);  // given up
  EXPECT_FALSE(p.launches[2].unfinished);
  EXPECT_TRUE(p.launches[3].unfinished);
  // A running kernel's record may also come with no timestamp at all: without a W line it is unfinished.
  const ProcessRecord plain = parse_process_text("P 9 1 0 app\nN 1 k\nK 0 1 7 4 0 0 1 1 1 32 1 1 1\nZ\n", "f");
  EXPECT_TRUE(plain.launches.at(0).unfinished);
  // An end before a start that is not 0 is still malformed.
  EXPECT_THROW(parse_process_text("P 9 1 0 app\nN 1 k\nK 0 1 7 4 500 400 1 1 1 32 1 1 1\n", "f"), InputError);

  SelectOptions o;
  o.metrics = &plan;
  KernelTotals totals;
  const auto out = aggregate_launches({p}, "app", o, totals);
  EXPECT_EQ(totals.identities_with_counters, 1u);  // gemm, from launch 1 alone
  EXPECT_EQ(totals.launches_unfinished, 1u);
  const Result* hung = nullptr;
  for (const Result& r : out.at(0)) {
    if (r.instance.name == "app/wait_forever") hung = &r;
  }
  ASSERT_NE(hung, nullptr);
  EXPECT_DOUBLE_EQ(hung->find("launches")->samples.at(0), 1.0);
  EXPECT_EQ(hung->find("duration")->status, Status::skipped);
  EXPECT_NE(hung->find("duration")->message.find("had not finished"), std::string::npos);
  EXPECT_DOUBLE_EQ(hung->find("gpu_time_total")->samples.at(0), 0.0);
}

TEST(Aggregate, CommunicationIdentitiesAreCountedAsNeverProfiled) {
  const MetricPlan plan = plan_metrics(resolve_metric_requests({"gld_efficiency"}, nullptr));
  // NCCL's kernel and the program's own peer_exchange (named by --communication-kernel) have no counters;
  // gemm has; add has none for another reason (the budget).
  const std::string text =
      "P 9 1 0 app\nN 1 _Z4gemmPf\nN 2 ncclDevKernel_AllReduce_Sum_f32_RING_LL\n"
      "N 3 _Z13peer_exchangePf\nN 4 _Z3addPf\nC " +
      plan.perfworks[0] +
      "\nK 0 1 7 1 10 20 8 1 1 128 1 1 1\nM 1 100\nK 0 1 7 2 30 40 2 1 1 64 1 1 2\n"
      "K 0 1 7 3 50 60 2 1 1 64 1 1 3\nK 0 1 7 4 70 80 2 1 1 64 1 1 4\nB 1\nZ\n";
  const std::vector<ProcessRecord> processes{parse_process_text(text, "f")};
  SelectOptions o;
  o.metrics = &plan;
  KernelTotals totals;
  aggregate_launches(processes, "app", o, totals);
  EXPECT_EQ(totals.identities, 4u);
  EXPECT_EQ(totals.identities_with_counters, 1u);
  EXPECT_EQ(totals.identities_communication, 1u);  // NCCL's alone: peer_exchange was not named
  o.communication_kernels = {"peer_exchange"};
  aggregate_launches(processes, "app", o, totals);
  EXPECT_EQ(totals.identities_communication, 2u);
  o.metrics = nullptr;  // without --metrics nothing is said of profiling
  aggregate_launches(processes, "app", o, totals);
  EXPECT_EQ(totals.identities_communication, 0u);
}

// --metrics split over an identity's profiled launches: each Q line holds one group's values (its H line names
// them), and the identity's counters combine its launches.
TEST(Aggregate, GroupLinesCombinePerIdentityAndAPartialIdentitySaysSo) {
  const MetricPlan plan = plan_metrics(resolve_metric_requests({"gld_efficiency", "dram_bytes_read"}, nullptr));
  ASSERT_EQ(plan.perfworks.size(), 2u);
  // Identity 1 (kern_a, 64x1x1): two profiled launches, one of each group: complete. Identity 2 (kern_a,
  // 32x1x1): one profiled launch, group 0 only: partial. Identity 3 (kern_b): an M line (every metric).
  const std::string text = "P 9 1 0 app\nN 1 kern_a\nN 2 kern_b\nC " + plan.perfworks[0] + " " + plan.perfworks[1] +
                           "\nH 0 0\nH 1 1\n"
                           "K 0 1 7 1 0 0 64 1 1 128 1 1 1\nK 0 1 7 2 0 0 64 1 1 128 1 1 1\n"
                           "K 0 1 7 3 0 0 32 1 1 128 1 1 1\nK 0 1 7 4 0 0 8 1 1 32 1 1 2\n"
                           "Q 1 0 75\nQ 2 1 4096\nQ 3 0 50\nM 4 25 1024\nZ\n";
  const ProcessRecord p = parse_process_text(text, "f");
  ASSERT_EQ(p.metric_groups.size(), 2u);
  EXPECT_EQ(p.launches[0].metrics_present, (std::vector<bool>{true, false}));
  EXPECT_TRUE(std::isnan(p.launches[0].metrics[1]));
  EXPECT_TRUE(p.launches[3].metrics_present.empty());  // an M line: every metric
  SelectOptions o;
  o.metrics = &plan;
  KernelTotals totals;
  const auto out = aggregate_launches({p}, "app", o, totals);
  EXPECT_EQ(totals.identities, 3u);
  EXPECT_EQ(totals.identities_with_counters, 2u);
  EXPECT_EQ(totals.identities_partial_counters, 1u);
  std::map<std::string, const Result*> by_grid;
  for (const Result& r : out.at(0))
    by_grid[r.instance.name + " " + std::get<std::string>(r.instance.params.at("grid"))] = &r;
  const Result& whole = *by_grid.at("app/kern_a 64x1x1");
  EXPECT_EQ(whole.find("gld_efficiency")->samples, (std::vector<double>{75}));
  EXPECT_EQ(whole.find("dram_bytes_read")->samples, (std::vector<double>{4096}));
  const Result& partial = *by_grid.at("app/kern_a 32x1x1");
  EXPECT_EQ(partial.find("gld_efficiency")->status, Status::ok);
  EXPECT_EQ(partial.find("gld_efficiency")->samples, (std::vector<double>{50}));
  const Measurement* missing = partial.find("dram_bytes_read");
  ASSERT_NE(missing, nullptr);
  EXPECT_EQ(missing->status, Status::skipped);  // absent, never a made-up value
  EXPECT_TRUE(missing->samples.empty());
  EXPECT_NE(missing->message.find("partial counters"), std::string::npos) << missing->message;
  EXPECT_NE(missing->message.find("1 of 2 counters"), std::string::npos) << missing->message;
  const Result& m = *by_grid.at("app/kern_b 8x1x1");
  EXPECT_EQ(m.find("dram_bytes_read")->samples, (std::vector<double>{1024}));
}

TEST(Aggregate, EveryCompleteRoundOfGroupsIsOneSample) {
  const MetricPlan plan = plan_metrics(resolve_metric_requests({"gld_efficiency", "dram_bytes_read"}, nullptr));
  // Five launches of one identity over two groups: rounds 0 and 1 are complete, the fifth (group 0) is left over.
  const std::string text = "P 9 1 0 app\nN 1 kern_a\nC " + plan.perfworks[0] + " " + plan.perfworks[1] +
                           "\nH 0 0\nH 1 1\n"
                           "K 0 1 7 1 0 0 1 1 1 1 1 1 1\nK 0 1 7 2 0 0 1 1 1 1 1 1 1\nK 0 1 7 3 0 0 1 1 1 1 1 1 1\n"
                           "K 0 1 7 4 0 0 1 1 1 1 1 1 1\nK 0 1 7 5 0 0 1 1 1 1 1 1 1\n"
                           "Q 1 0 10\nQ 2 1 100\nQ 3 0 20\nQ 4 1 200\nQ 5 0 30\nZ\n";
  SelectOptions o;
  o.metrics = &plan;
  KernelTotals totals;
  const auto out = aggregate_launches({parse_process_text(text, "f")}, "app", o, totals);
  EXPECT_EQ(totals.identities_with_counters, 1u);
  EXPECT_EQ(totals.identities_partial_counters, 0u);
  EXPECT_EQ(out.at(0).at(0).find("gld_efficiency")->samples, (std::vector<double>{10, 20}));
  EXPECT_EQ(out.at(0).at(0).find("dram_bytes_read")->samples, (std::vector<double>{100, 200}));
}

// A rank of a distributed job (its Y line): one pass a launch, each launch one of the one-pass groups; a metric
// that needs more passes is never collected there, which neither makes the identity partial nor gets a value.
TEST(Aggregate, ARankOfADistributedJobCombinesOnePassGroupsAndSkipsWhatNeedsMorePasses) {
  const MetricPlan plan =
      plan_metrics(resolve_metric_requests({"gld_efficiency", "dram_bytes_read", "sm_throughput"}, nullptr));
  ASSERT_EQ(plan.perfworks.size(), 3u);
  const auto index = [&](const std::string& name) {
    return std::to_string(std::find(plan.perfworks.begin(), plan.perfworks.end(), name) - plan.perfworks.begin());
  };
  const std::string gld = index(find_metric("gld_efficiency")->perfworks.at(0));
  const std::string dram = index("dram__bytes_read.sum");
  const std::string sm = index(find_metric("sm_throughput")->perfworks.at(0));
  // kern_a: two profiled launches, one of each group (complete); kern_b: one (group 0 only, partial).
  const std::string text = "P 9 1 0 app\nA 1 1 2\nN 1 kern_a\nN 2 kern_b\nC " + plan.perfworks[0] + " " +
                           plan.perfworks[1] + " " + plan.perfworks[2] + "\nY " + sm + "\nH 0 " + dram + "\nH 1 " +
                           gld +
                           "\nK 0 1 7 1 0 0 64 1 1 128 1 1 1\nK 0 1 7 2 0 0 64 1 1 128 1 1 1\n"
                           "K 0 1 7 3 0 0 8 1 1 32 1 1 2\nQ 1 0 4096\nQ 2 1 75\nQ 3 0 1024\nZ\n";
  const ProcessRecord p = parse_process_text(text, "f");
  EXPECT_TRUE(p.one_pass);
  std::vector<bool> never(3, false);
  never[std::stoul(sm)] = true;
  EXPECT_EQ(p.not_collected, never);
  SelectOptions o;
  o.metrics = &plan;
  KernelTotals totals;
  const auto out = aggregate_launches({p}, "app", o, totals);
  EXPECT_EQ(totals.identities_with_counters, 1u);
  EXPECT_EQ(totals.identities_partial_counters, 1u);
  std::map<std::string, const Result*> by_name;
  for (const Result& r : out.at(0)) by_name[r.instance.name] = &r;
  const Result& a = *by_name.at("app/kern_a");
  EXPECT_EQ(a.find("gld_efficiency")->samples, (std::vector<double>{75}));
  EXPECT_EQ(a.find("dram_bytes_read")->samples, (std::vector<double>{4096}));
  for (const Result* r : {&a, by_name.at("app/kern_b")}) {
    const Measurement* s = r->find("sm_throughput");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->status, Status::skipped);
    EXPECT_TRUE(s->samples.empty());
    EXPECT_NE(s->message.find("not collected where a launch is replayed one pass (a rank of a distributed job"),
              std::string::npos)
        << s->message;
  }
  const Result& b = *by_name.at("app/kern_b");
  EXPECT_EQ(b.find("dram_bytes_read")->samples, (std::vector<double>{1024}));
  EXPECT_EQ(b.find("gld_efficiency")->status, Status::skipped);
  EXPECT_NE(b.find("gld_efficiency")->message.find("collected 1 of 2 counters"), std::string::npos)
      << b.find("gld_efficiency")->message;
}

TEST(Aggregate, ALaunchWhoseCountersWereLostLeavesItsGroupToALaterLaunch) {
  const MetricPlan plan = plan_metrics(resolve_metric_requests({"gld_efficiency", "dram_bytes_read"}, nullptr));
  ASSERT_EQ(plan.perfworks.size(), 2u);
  // kern_a: launch 1 collected group 0; launch 2's counters of group 1 were lost (an x line, no Q line); launch 3
  // collected group 1 again, so kern_a is complete. A second x line in the same process keeps the first's reason.
  const std::string text = "P 9 1 0 app\nN 1 kern_a\nC " + plan.perfworks[0] + " " + plan.perfworks[1] +
                           "\nH 0 0\nH 1 1\nK 0 1 7 1 0 0 64 1 1 128 1 1 1\nK 0 1 7 2 0 0 64 1 1 128 1 1 1\n"
                           "K 0 1 7 3 0 0 64 1 1 128 1 1 1\nQ 1 0 11\nx 2 1 cuptiRangeProfilerDecodeData: "
                           "CUPTI_ERROR_UNKNOWN\nW 2 60000000\nQ 3 1 22\nx 9 0 later\nZ\n";
  const ProcessRecord p = parse_process_text(text, "f");
  EXPECT_EQ(p.lost_counters, 2u);
  EXPECT_EQ(p.lost_first, "cuptiRangeProfilerDecodeData: CUPTI_ERROR_UNKNOWN");
  EXPECT_TRUE(p.errors.empty());  // not an error: the group was collected again
  SelectOptions o;
  o.metrics = &plan;
  KernelTotals totals;
  const auto out = aggregate_launches({p}, "app", o, totals);
  EXPECT_EQ(totals.identities_with_counters, 1u);
  EXPECT_EQ(totals.identities_partial_counters, 0u);
  ASSERT_EQ(out.at(0).size(), 1u);
  const Result& a = out.at(0).at(0);
  ASSERT_EQ(plan.perfworks[1], "dram__bytes_read.sum");  // group 1
  EXPECT_EQ(a.find("gld_efficiency")->samples, (std::vector<double>{11}));
  EXPECT_EQ(a.find("dram_bytes_read")->samples, (std::vector<double>{22}));
  for (const char* bad : {"x 2 1\n", "x 2\n", "x a 1 why\n"}) {
    EXPECT_THROW(parse_process_text(std::string("P 9 1 0 app\n") + bad, "f"), InputError) << bad;
  }
}

TEST(RecordFile, MalformedGroupLinesAreRefusedWithTheirLine) {
  const std::string head = "P 9 1 0 app\nC x y\n";
  const auto error = [&](const std::string& rest) {
    try {
      parse_process_text(head + rest, "f");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("H 0 2\n").find("f:3: metric group names a metric the C line does not have"), std::string::npos);
  EXPECT_NE(error("H 1 0\n").find("f:3: malformed metric group line"), std::string::npos);  // not numbered in order
  EXPECT_NE(error("H 0\n").find("f:3: malformed metric group line"), std::string::npos);    // no metric
  EXPECT_NE(error("Q 1 0 5\n").find("f:3: group metrics line of a group no H line defined"), std::string::npos);
  EXPECT_NE(error("H 0 0 1\nQ 1 0 5\n").find("f:4: group metric values do not match the H line"), std::string::npos);
  EXPECT_NE(error("H 0 0\nQ 1 0 5 6\n").find("f:4: group metric values do not match the H line"), std::string::npos);
  EXPECT_EQ(error("H 0 0 1\nQ 1 0 5 6\nZ\n"), "no error");
  // The U line: why launches were not range-profiled (a rank of a distributed job, or after communication).
  EXPECT_EQ(parse_process_text(head + "U distributed\nZ\n", "f").unreplayed, "distributed");
  EXPECT_EQ(parse_process_text(head + "U communication\nZ\n", "f").unreplayed, "communication");
  EXPECT_EQ(parse_process_text(head + "Z\n", "f").unreplayed, "");
  EXPECT_NE(error("U\n").find("f:3: malformed unreplayed line"), std::string::npos);
  EXPECT_NE(error("U sometimes\n").find("f:3: malformed unreplayed line"), std::string::npos);
  EXPECT_NE(error("U distributed 2\n").find("f:3: malformed unreplayed line"), std::string::npos);
  // The Y line: a one-pass rank, and the C line's metrics it could not collect.
  EXPECT_EQ(parse_process_text(head + "Y\nZ\n", "f").not_collected, (std::vector<bool>{false, false}));
  EXPECT_EQ(parse_process_text(head + "Y 1\nZ\n", "f").not_collected, (std::vector<bool>{false, true}));
  EXPECT_FALSE(parse_process_text(head + "Z\n", "f").one_pass);
  EXPECT_NE(error("Y 2\n").find("f:3: one-pass line names a metric the C line does not have"), std::string::npos);
  EXPECT_NE(error("Y x\n").find("f:3: malformed one-pass line"), std::string::npos);
  EXPECT_NE(error("Z\n").find("no error"), std::string::npos);
  try {
    parse_process_text("P 9 1 0 app\nY 0\n", "g");
    ADD_FAILURE() << "a Y line before the C line was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("g:2: one-pass line before the metrics line"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuperf::record
