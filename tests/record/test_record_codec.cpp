// The record file's codec (profiler/record/record_codec.hpp): each line kind written as the injection library has
// always written it (the recorder's fixtures hold such lines), read back into the same fields, and malformed lines
// refused with the recorder's words.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "profiler/record/record_codec.hpp"

namespace gpuperf::record {
namespace {

// `text` decoded as a Line: no complaint, and encoded back to the same bytes.
template <typename Line>
Line round_trip(const std::string& text) {
  Line out;
  const char* why = decode(text, out);
  EXPECT_EQ(why, nullptr) << text << ": " << (why != nullptr ? why : "");
  EXPECT_EQ(encode(out), text);
  EXPECT_EQ(line_kind(text), kLineKind<Line>);
  return out;
}

template <typename Line>
std::string refused(const std::string& text) {
  Line out;
  const char* why = decode(text, out);
  return why != nullptr ? why : "";
}

// `line` decoded by its kind and encoded again; "?" for a kind the codec does not have or a line it refuses.
template <typename Line>
std::string again(std::string_view line) {
  Line out;
  return decode(line, out) == nullptr ? encode(out) : "?";
}
std::string reencoded(std::string_view line) {
  switch (line_kind(line)) {
    case 'P': return again<ProcessLine>(line);
    case 'N': return again<NameLine>(line);
    case 'R': return again<RangeLine>(line);
    case 'K': return again<KernelLine>(line);
    case 'E': return again<CorrelationLine>(line);
    case 'C': return again<MetricsLine>(line);
    case 'M': return again<ValuesLine>(line);
    case 'H': return again<GroupLine>(line);
    case 'Q': return again<GroupValuesLine>(line);
    case 'D': return again<DroppedLine>(line);
    case 'F': return again<FlushLine>(line);
    case 'B': return again<BudgetLine>(line);
    case 'T': return again<TimeBudgetLine>(line);
    case 'U': return again<UnreplayedLine>(line);
    case 'Y': return again<OnePassLine>(line);
    case 'W': return again<ProfileTimeLine>(line);
    case 'A': return again<RankLine>(line);
    case 'V': return again<CommunicationLine>(line);
    case 'G': return again<GivenUp>(line);
    case 'O': return again<OwnWork>(line);
    case 'X': return again<ErrorLine>(line);
    case 'e': return again<ExcludedLine>(line);
    case 'x': return again<LostCountersLine>(line);
    case 'c': return again<FingerprintLine>(line);
    case 'l': return again<LibraryLine>(line);
    case 'S': return again<SourceStatusLine>(line);
    case 'J': return again<SourceStringLine>(line);
    case 'L': return again<SourceLineLine>(line);
    case 'I': return again<InstrumentedLine>(line);
    case 'p': return again<PmMetricsLine>(line);
    case 'w': return again<PmWindowRecord>(line);
    case 's': return again<PmSample>(line);
    case 'Z': return again<EndLine>(line);
    default: return "?";
  }
}

// A file the library wrote on an H200 (PyTorch, --metrics): every line read and written again is the same bytes.
TEST(RecordCodec, ARecordedFileIsWrittenBackByteForByte) {
  std::ifstream in(std::string(RECORD_FIXTURES) + "/warmup_steps_skip5_h200.txt");
  ASSERT_TRUE(in.good());
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    EXPECT_EQ(reencoded(line), line);
    ++lines;
  }
  EXPECT_GT(lines, 50);
}

TEST(RecordCodec, ProcessAndNames) {
  EXPECT_EQ(encode(ProcessLine{41, 7, 1700000000123456789ull, "/usr/bin/python3 train.py"}),
            "P 41 7 1700000000123456789 /usr/bin/python3 train.py");
  const ProcessLine p = round_trip<ProcessLine>("P 41 7 1700000000123456789 /usr/bin/python3 train.py");
  EXPECT_EQ(p.pid, 41u);
  EXPECT_EQ(p.ppid, 7u);
  EXPECT_EQ(p.started_ns, 1700000000123456789ull);
  EXPECT_EQ(p.argv0, "/usr/bin/python3 train.py");  // spaces kept

  const NameLine n = round_trip<NameLine>("N 3 _Z6kernelPfi");
  EXPECT_EQ(n.id, 3u);
  EXPECT_EQ(n.name, "_Z6kernelPfi");
  EXPECT_EQ(encode(NameLine{3, "_Z6kernelPfi"}), "N 3 _Z6kernelPfi");

  const RangeLine r = round_trip<RangeLine>("R 2 train step/forward pass");
  EXPECT_EQ(r.id, 2u);
  EXPECT_EQ(r.path, "train step/forward pass");
  EXPECT_EQ(encode(RangeLine{2, "train step/forward pass"}), "R 2 train step/forward pass");
}

TEST(RecordCodec, Kernel) {
  KernelLine k;
  k.device = 1;
  k.context = 2;
  k.stream = 13;
  k.correlation = 77;
  k.start_ns = 1000;
  k.end_ns = 2500;
  k.grid[0] = 128;
  k.block[0] = 256;
  k.name_id = 4;
  EXPECT_EQ(encode(k), "K 1 2 13 77 1000 2500 128 1 1 256 1 1 4");  // no graph field outside graphs
  const KernelLine d = round_trip<KernelLine>(encode(k));
  EXPECT_EQ(d.device, 1u);
  EXPECT_EQ(d.context, 2u);
  EXPECT_EQ(d.stream, 13u);
  EXPECT_EQ(d.correlation, 77u);
  EXPECT_EQ(d.start_ns, 1000u);
  EXPECT_EQ(d.end_ns, 2500u);
  EXPECT_EQ(d.grid[0], 128u);
  EXPECT_EQ(d.grid[2], 1u);
  EXPECT_EQ(d.block[0], 256u);
  EXPECT_EQ(d.name_id, 4u);
  EXPECT_EQ(d.graph, 0u);
  k.graph = 9;
  EXPECT_EQ(encode(k), "K 1 2 13 77 1000 2500 128 1 1 256 1 1 4 9");
  EXPECT_EQ(round_trip<KernelLine>(encode(k)).graph, 9u);

  EXPECT_EQ(refused<KernelLine>("K 1 2 3"), "malformed kernel line");
  EXPECT_EQ(refused<KernelLine>("K 1 2 13 77 1000 2500 128 1 1 256 1 1 4 9 10"), "malformed kernel line");
}

TEST(RecordCodec, CorrelationDroppedFlush) {
  const CorrelationLine e = round_trip<CorrelationLine>("E 77 2");
  EXPECT_EQ(e.correlation, 77u);
  EXPECT_EQ(e.range, 2u);
  EXPECT_EQ(encode(CorrelationLine{77, 2}), "E 77 2");
  EXPECT_EQ(round_trip<DroppedLine>("D 12").count, 12u);
  EXPECT_EQ(encode(DroppedLine{12}), "D 12");
  EXPECT_EQ(round_trip<FlushLine>("F 1700000001000000000").unix_ns, 1700000001000000000ull);
  EXPECT_EQ(encode(FlushLine{5}), "F 5");
  EXPECT_EQ(refused<FlushLine>("F 5 6"), "malformed flush line");
  EXPECT_EQ(refused<CorrelationLine>("E 77"), "malformed correlation line");
}

TEST(RecordCodec, Rank) {
  RankLine a;
  a.rank = 3;
  a.world_size = 8;
  EXPECT_EQ(encode(a), "A 3 - 8");
  const RankLine d = round_trip<RankLine>("A 3 - 8");
  EXPECT_EQ(d.rank, 3);
  EXPECT_FALSE(d.local_rank.has_value());
  EXPECT_EQ(d.world_size, 8);
  EXPECT_EQ(refused<RankLine>("A 3 x 8"), "malformed rank line");
  EXPECT_EQ(refused<RankLine>("A 3 -1 8"), "malformed rank line");
  EXPECT_EQ(refused<RankLine>("A 3 1"), "malformed rank line");
}

TEST(RecordCodec, Metrics) {
  const MetricsLine c =
      round_trip<MetricsLine>("C dram__bytes_read.sum sm__throughput.avg.pct_of_peak_sustained_elapsed");
  EXPECT_EQ(c.names,
            (std::vector<std::string>{"dram__bytes_read.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed"}));
  EXPECT_EQ(encode(c), "C dram__bytes_read.sum sm__throughput.avg.pct_of_peak_sustained_elapsed");

  // Values with 17 significant digits, as the library's stream wrote them.
  EXPECT_EQ(encode(ValuesLine{77, {1024, 0.1, 87.5}}), "M 77 1024 0.10000000000000001 87.5");
  const ValuesLine m = round_trip<ValuesLine>("M 77 1024 0.10000000000000001 87.5");
  EXPECT_EQ(m.correlation, 77u);
  EXPECT_EQ(m.values, (std::vector<double>{1024, 0.1, 87.5}));
  EXPECT_EQ(refused<ValuesLine>("M x"), "malformed metrics line");
  EXPECT_EQ(refused<ValuesLine>("M 77 1 abc"), "metric values do not match the C line");

  const GroupLine h = round_trip<GroupLine>("H 1 0 2");
  EXPECT_EQ(h.group, 1u);
  EXPECT_EQ(h.indices, (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(encode(GroupLine{1, {0, 2}}), "H 1 0 2");
  EXPECT_EQ(refused<GroupLine>("H 1"),
            "malformed metric group line (groups are numbered 0, 1, ... in order, each with its metrics)");

  EXPECT_EQ(encode(GroupValuesLine{77, 1, {2.5, 3}}), "Q 77 1 2.5 3");
  const GroupValuesLine q = round_trip<GroupValuesLine>("Q 77 1 2.5 3");
  EXPECT_EQ(q.correlation, 77u);
  EXPECT_EQ(q.group, 1u);
  EXPECT_EQ(q.values, (std::vector<double>{2.5, 3}));
  EXPECT_EQ(refused<GroupValuesLine>("Q 77"), "malformed group metrics line");

  EXPECT_EQ(round_trip<OnePassLine>("Y 1 3").not_collected, (std::vector<std::size_t>{1, 3}));
  EXPECT_EQ(encode(OnePassLine{}), "Y");  // every metric collected
  EXPECT_TRUE(round_trip<OnePassLine>("Y").not_collected.empty());

  const ProfileTimeLine w = round_trip<ProfileTimeLine>("W 77 150000000");
  EXPECT_EQ(w.correlation, 77u);
  EXPECT_EQ(w.ns, 150000000u);
  EXPECT_EQ(encode(ProfileTimeLine{77, 150000000}), "W 77 150000000");
}

TEST(RecordCodec, BudgetsAndOutcomes) {
  EXPECT_EQ(round_trip<BudgetLine>("B 1000").budget, 1000u);
  EXPECT_EQ(encode(BudgetLine{1000}), "B 1000");
  EXPECT_EQ(round_trip<TimeBudgetLine>("T 60000").ms, 60000u);
  EXPECT_EQ(encode(TimeBudgetLine{60000}), "T 60000");
  EXPECT_EQ(round_trip<UnreplayedLine>("U communication").why, "communication");
  EXPECT_EQ(round_trip<UnreplayedLine>("U distributed").why, "distributed");  // an older library's
  EXPECT_EQ(refused<UnreplayedLine>("U other"), "malformed unreplayed line (U distributed|communication)");

  const CommunicationLine v = round_trip<CommunicationLine>("V 80 250");
  EXPECT_EQ(v.correlation, 80u);
  EXPECT_EQ(v.wait_ms, 250u);
  EXPECT_EQ(encode(CommunicationLine{80, 250}), "V 80 250");

  const GivenUp g = round_trip<GivenUp>("G 6 201 k2 1 1 1 32 1 1 0");
  EXPECT_EQ(g.correlation, 6u);
  EXPECT_EQ(g.ms, 201u);
  EXPECT_EQ(g.identity, "k2 1 1 1 32 1 1 0");
  EXPECT_EQ(encode(GivenUp{6, 201, "k2 1 1 1 32 1 1 0"}), "G 6 201 k2 1 1 1 32 1 1 0");

  const LostCountersLine x = round_trip<LostCountersLine>("x 81 2 CUPTI_ERROR_UNKNOWN: the range was lost");
  EXPECT_EQ(x.correlation, 81u);
  EXPECT_EQ(x.group, 2u);
  EXPECT_EQ(x.why, "CUPTI_ERROR_UNKNOWN: the range was lost");
  EXPECT_EQ(refused<LostCountersLine>("x 81 2"), "malformed lost-counters line (x <correlation> <group> <why>)");

  EXPECT_EQ(round_trip<ExcludedLine>("e _Z4skipv").kernel, "_Z4skipv");
  EXPECT_EQ(encode(ExcludedLine{"_Z4skipv"}), "e _Z4skipv");
  EXPECT_EQ(round_trip<ErrorLine>("X another profiler is attached").message, "another profiler is attached");
  EXPECT_EQ(encode(ErrorLine{"another profiler is attached"}), "X another profiler is attached");
}

TEST(RecordCodec, LibraryOwnLines) {
  const OwnWork o = round_trip<OwnWork>("O write cupti 12 48000 350000");
  EXPECT_EQ(o.work, "write");
  EXPECT_EQ(o.thread, "cupti");
  EXPECT_EQ(o.calls, 12u);
  EXPECT_EQ(o.items, 48000u);
  EXPECT_EQ(o.ns, 350000u);
  EXPECT_EQ(encode(OwnWork{"write", "cupti", 12, 48000, 350000}), "O write cupti 12 48000 350000");
  OwnWork newer;  // a newer library's fields past the fifth are ignored
  EXPECT_EQ(decode("O nvtx program 1 2 3 4 5", newer), nullptr);
  EXPECT_EQ(newer.ns, 3u);
  EXPECT_EQ(refused<OwnWork>("O nvtx program 1"), "malformed own-time line");

  const FingerprintLine c = round_trip<FingerprintLine>("c 9f2c61a0d3e4b5c6 _Z6kernelPfi");
  EXPECT_EQ(c.fingerprint, "9f2c61a0d3e4b5c6");
  EXPECT_EQ(c.name, "_Z6kernelPfi");
  EXPECT_EQ(refused<FingerprintLine>("c 9f2c"), "malformed fingerprint line (c <fingerprint> <name>)");

  EXPECT_EQ(round_trip<LibraryLine>("l /usr/lib/libcublas.so.13").path, "/usr/lib/libcublas.so.13");
  EXPECT_EQ(encode(LibraryLine{"/usr/lib/libcublas.so.13"}), "l /usr/lib/libcublas.so.13");
  EXPECT_EQ(encode(EndLine{}), "Z");
  round_trip<EndLine>("Z");
}

TEST(RecordCodec, SourceLines) {
  const SourceStatusLine started = round_trip<SourceStatusLine>("S 0 ok");
  EXPECT_EQ(started.correlation, 0u);
  EXPECT_EQ(started.status, Status::ok);
  EXPECT_EQ(started.message, "");
  EXPECT_EQ(encode(SourceStatusLine{0, Status::ok, ""}), "S 0 ok");
  const SourceStatusLine off = round_trip<SourceStatusLine>("S 0 unsupported CUPTI SASS metrics: no device");
  EXPECT_EQ(off.status, Status::unsupported);
  EXPECT_EQ(off.message, "CUPTI SASS metrics: no device");
  // A launch's line keeps the space before an empty message.
  EXPECT_EQ(encode(SourceStatusLine{5, Status::ok, ""}), "S 5 ok ");
  EXPECT_EQ(round_trip<SourceStatusLine>("S 5 ok ").message, "");
  const SourceStatusLine failed = round_trip<SourceStatusLine>("S 5 failed not read yet");
  EXPECT_EQ(failed.correlation, 5u);
  EXPECT_EQ(failed.status, Status::failed);
  EXPECT_EQ(failed.message, "not read yet");
  EXPECT_EQ(refused<SourceStatusLine>("S 5 fine"), "malformed source status line");

  const SourceStringLine j = round_trip<SourceStringLine>("J 2 /src/my kernels/add.cu");
  EXPECT_EQ(j.id, 2u);
  EXPECT_EQ(j.text, "/src/my kernels/add.cu");
  EXPECT_EQ(refused<SourceStringLine>("J 0 x"), "malformed source string line");

  SourceLineLine l;
  l.correlation = 5;
  l.function_id = 1;
  l.file_id = 2;
  l.line = 14;
  l.sass_offset = 96;
  l.counters = {32, 1024, 4, 0, 16, 16, 0, 0, 0.5, 0, 0};
  EXPECT_EQ(encode(l), "L 5 1 2 14 96 32 1024 4 0 16 16 0 0 0.5 0 0");  // whole counts as integers
  l.inlined_at_file_id = 3;
  l.inlined_at_line = 40;
  EXPECT_EQ(encode(l), "L 5 1 2 14 96 32 1024 4 0 16 16 0 0 0.5 0 0 3 40");
  const SourceLineLine d = round_trip<SourceLineLine>(encode(l));
  EXPECT_EQ(d.correlation, 5u);
  EXPECT_EQ(d.function_id, 1u);
  EXPECT_EQ(d.file_id, 2u);
  EXPECT_EQ(d.line, 14);
  EXPECT_EQ(d.sass_offset, 96);
  EXPECT_EQ(d.counters, l.counters);
  EXPECT_EQ(d.inlined_at_file_id, 3u);
  EXPECT_EQ(d.inlined_at_line, 40);
  EXPECT_EQ(refused<SourceLineLine>("L 5 1 2 14 96 32 1024"), "malformed source line: expected 11 counters");
  EXPECT_EQ(refused<SourceLineLine>("L 5 1 2 14 96 32 1024 4 0 16 16 0 0 -1 0 0"),
            "malformed source line: a counter is negative or not finite");
  EXPECT_EQ(refused<SourceLineLine>("L 5 1 2 14 96 32 1024 4 0 16 16 0 0 0 0 0 3"),
            "malformed source line: more than 11 counters, and not an inlined call site's file id and line");

  const InstrumentedLine plain = round_trip<InstrumentedLine>("I 5 2400000");
  EXPECT_EQ(plain.correlation, 5u);
  EXPECT_EQ(plain.ns, 2400000u);
  EXPECT_FALSE(plain.identity.has_value());
  InstrumentedLine quiet{5, 2400000, InstrumentedLine::Identity{0, {64, 1, 1}, {128, 1, 1}, 2, 1}};
  EXPECT_EQ(encode(quiet), "I 5 2400000 0 64 1 1 128 1 1 2 1");
  const InstrumentedLine q = round_trip<InstrumentedLine>("I 5 2400000 0 64 1 1 128 1 1 2 1");
  ASSERT_TRUE(q.identity.has_value());
  EXPECT_EQ(q.identity->grid[0], 64u);
  EXPECT_EQ(q.identity->block[0], 128u);
  EXPECT_EQ(q.identity->range, 2u);
  EXPECT_EQ(q.identity->function_id, 1u);
  EXPECT_EQ(refused<InstrumentedLine>("I 0 5"), "malformed instrumented launch line");
  EXPECT_EQ(refused<InstrumentedLine>("I 5 2400000 0 64"), "malformed instrumented launch line");
}

TEST(RecordCodec, PmSampling) {
  EXPECT_EQ(round_trip<PmMetricsLine>("p gpu__time_duration.sum dram__throughput.avg.pct_of_peak_sustained_elapsed")
                .metrics.size(),
            2u);
  EXPECT_EQ(encode(PmMetricsLine{{"a", "b"}}), "p a b");

  PmWindowRecord w;
  w.device = 1;
  w.interval_ns = 1000;
  w.start_ns = 5000;
  w.stop_ns = 9000;
  w.samples = 4;
  w.invalid = 1;
  w.image_full = true;
  w.setup_ns = 7;
  w.decode_ns = 8;
  w.evaluate_ns = 9;
  w.launches = 3;
  EXPECT_EQ(encode(w), "w 1 1000 5000 9000 4 1 0 1 7 8 9 3");
  const PmWindowRecord d = round_trip<PmWindowRecord>("w 1 1000 5000 9000 4 1 0 1 7 8 9 3");
  EXPECT_EQ(d.device, 1u);
  EXPECT_EQ(d.start_ns, 5000u);
  EXPECT_EQ(d.stop_ns, 9000u);
  EXPECT_FALSE(d.overflow);
  EXPECT_TRUE(d.image_full);
  EXPECT_EQ(d.launches, 3u);
  EXPECT_EQ(refused<PmWindowRecord>("w 1 1000 9000 5000 4 1 0 1 7 8 9 3"), "malformed PM window line");

  // Values with 6 significant digits.
  EXPECT_EQ(encode(PmSample{1000, 2000, {12.5, 1.0 / 3}}), "s 1000 2000 12.5 0.333333");
  const PmSample s = round_trip<PmSample>("s 1000 2000 12.5 0.333333");
  EXPECT_EQ(s.start_ns, 1000u);
  EXPECT_EQ(s.end_ns, 2000u);
  EXPECT_EQ(s.values, (std::vector<double>{12.5, 0.333333}));
  EXPECT_EQ(refused<PmSample>("s 2000 1000 1"), "malformed PM sample line");
  EXPECT_EQ(refused<PmSample>("s 1000 2000 x"), "PM sample values do not match the p line");
}

TEST(RecordCodec, EveryKindHasItsCharacter) {
  const std::string kinds =
      std::string{kLineKind<ProcessLine>,     kLineKind<NameLine>,         kLineKind<RangeLine>,
                  kLineKind<KernelLine>,      kLineKind<CorrelationLine>,  kLineKind<MetricsLine>,
                  kLineKind<ValuesLine>,      kLineKind<GroupLine>,        kLineKind<GroupValuesLine>,
                  kLineKind<DroppedLine>,     kLineKind<FlushLine>,        kLineKind<BudgetLine>,
                  kLineKind<TimeBudgetLine>,  kLineKind<UnreplayedLine>,   kLineKind<OnePassLine>,
                  kLineKind<ProfileTimeLine>, kLineKind<RankLine>,         kLineKind<CommunicationLine>,
                  kLineKind<GivenUp>,         kLineKind<OwnWork>,          kLineKind<ErrorLine>,
                  kLineKind<ExcludedLine>,    kLineKind<LostCountersLine>, kLineKind<FingerprintLine>,
                  kLineKind<LibraryLine>,     kLineKind<SourceStatusLine>, kLineKind<SourceStringLine>,
                  kLineKind<SourceLineLine>,  kLineKind<InstrumentedLine>, kLineKind<PmMetricsLine>,
                  kLineKind<PmWindowRecord>,  kLineKind<PmSample>,         kLineKind<EndLine>};
  EXPECT_EQ(kinds, "PNRKECMHQDFBTUYWAVGOXexclSJLIpwsZ");  // each once, as record_file.hpp lists them
}

}  // namespace
}  // namespace gpuperf::record
