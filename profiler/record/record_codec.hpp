// The record file's codec: every line kind of record_file.hpp as a struct of its fields, one encode() that the
// injection library writes it with (inject*.cpp) and one decode() that the recorder reads it with (record_file.cpp,
// source_records.cpp, pm_attribution.cpp). Nothing else spells a line. Plain C++, no CUDA (record_codec.cpp, the
// source lines' kinds in record_codec_source.cpp): compiled into both binaries and tested round-trip per kind
// (tests/record/test_record_codec.cpp).
//
// encode(x) gives the line without its '\n'; append_line(out, x) appends the same to `out` (the K line's way: one
// buffer for every record, no allocation). decode(line, x) takes the whole line, kind first, and returns nullptr,
// or what is malformed in the words the recorder has always said it (it names the file and the line). decode
// checks what one line says; what a line means against the others (values against the C line, ids against J
// lines) is the recorder's.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "profiler/record/pm_records.hpp"

namespace gpuperf::record {

// P <pid> <ppid> <unix time ns> <argv0>
struct ProcessLine {
  std::uint32_t pid = 0, ppid = 0;
  std::uint64_t started_ns = 0;
  std::string argv0;  // may hold spaces
};
// N <name id> <mangled kernel name>
struct NameLine {
  std::uint64_t id = 0;
  std::string name;
};
// R <range id> <NVTX range path>
struct RangeLine {
  std::uint64_t id = 0;
  std::string path;
};
// K <device> <context> <stream> <correlation> <start ns> <end ns> <grid> <block> <name id> [<graph>]
struct KernelLine {
  std::uint32_t device = 0, context = 0, stream = 0, correlation = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t grid[3] = {1, 1, 1};
  std::uint32_t block[3] = {1, 1, 1};
  std::uint64_t name_id = 0;
  std::uint32_t graph = 0;  // 0: outside graphs, the field is absent
};
// E <correlation> <range id>
struct CorrelationLine {
  std::uint32_t correlation = 0;
  std::uint64_t range = 0;
};
// C <perfworks name>...
struct MetricsLine {
  std::vector<std::string> names;
};
// M <correlation> <value>...  (values with 17 significant digits)
struct ValuesLine {
  std::uint32_t correlation = 0;
  std::vector<double> values;
};
// H <group> <metric index>...
struct GroupLine {
  std::size_t group = 0;
  std::vector<std::size_t> indices;
};
// Q <correlation> <group> <value>...
struct GroupValuesLine {
  std::uint32_t correlation = 0;
  std::size_t group = 0;
  std::vector<double> values;
};
// D <count>
struct DroppedLine {
  std::uint64_t count = 0;
};
// F <unix time ns>
struct FlushLine {
  std::uint64_t unix_ns = 0;
};
// B <budget>
struct BudgetLine {
  std::uint64_t budget = 0;
};
// T <budget ms>
struct TimeBudgetLine {
  std::uint64_t ms = 0;
};
// U communication|distributed
struct UnreplayedLine {
  std::string why;
};
// Y [<metric index>...]
struct OnePassLine {
  std::vector<std::size_t> not_collected;
};
// W <correlation> <ns>
struct ProfileTimeLine {
  std::uint32_t correlation = 0;
  std::uint64_t ns = 0;
};
// A <rank> <local rank> <world size>, each a number or "-"
struct RankLine {
  std::optional<int> rank, local_rank, world_size;
};
// V <correlation> <ms>: a launch not profiled, a collective still running after waiting ms
struct CommunicationLine {
  std::uint32_t correlation = 0;
  std::uint64_t wait_ms = 0;
};
// G <correlation> <ms> <identity>: a profiled launch the watchdog gave up.
struct GivenUp {
  std::uint32_t correlation = 0;
  std::uint64_t ms = 0;
  std::string identity;  // "<mangled name> <gx> <gy> <gz> <bx> <by> <bz> <NVTX range id>"
};
// O <work> <thread> <calls> <items> <ns>: time the injection library spent in its own code, by what it did and on
// which thread (a reader ignores fields past the fifth: a newer library's).
struct OwnWork {
  std::string work;    // "nvtx", "write", "request", "external", "flush", or a kind a newer library writes
  std::string thread;  // "program", "cupti", "gpuperf", or a newer one
  std::uint64_t calls = 0;
  std::uint64_t items = 0;  // nvtx: range pushes; write: records; request: 0; flush: the longest call's ns
  std::uint64_t ns = 0;
};
// X <message>
struct ErrorLine {
  std::string message;
};
// e <mangled name>: a kernel the launch selection kept out of profiling
struct ExcludedLine {
  std::string kernel;
};
// x <correlation> <group> <why>: a profiled launch's counters lost, its group given back
struct LostCountersLine {
  std::uint32_t correlation = 0;
  std::size_t group = 0;
  std::string why;
};
// c <fingerprint> <mangled name>
struct FingerprintLine {
  std::string fingerprint;
  std::string name;
};
// l <path>
struct LibraryLine {
  std::string path;
};
// S <correlation> ok|failed|unsupported [<message>] (source_records.hpp). A launch's line (correlation > 0) always
// has the space before its message, even an empty one; the process's (0) has it only with a message ("S 0 ok").
struct SourceStatusLine {
  std::uint32_t correlation = 0;
  Status status = Status::ok;  // ok, failed or unsupported
  std::string message;
};
// J <id> <text>: a function name or source path (id > 0)
struct SourceStringLine {
  std::uint64_t id = 0;
  std::string text;
};
// L <correlation> <function id> <file id> <line> <sass offset> <11 counters> [<call-site file id> <line>]
struct SourceLineLine {
  std::uint32_t correlation = 0;
  std::uint64_t function_id = 0, file_id = 0;  // file id 0: no line info
  std::int64_t line = 0, sass_offset = 0;
  std::array<double, 11> counters{};     // in SourceLine's order, inst_executed ... local_sectors
  std::uint64_t inlined_at_file_id = 0;  // 0: not inlined code, the two fields are absent
  std::int64_t inlined_at_line = 0;
};
// I <correlation> <ns> [<device> <gx> <gy> <gz> <bx> <by> <bz> <range id> <function id>]
struct InstrumentedLine {
  struct Identity {  // when kernel tracing was paused for the launch (no K line)
    std::uint32_t device = 0;
    std::uint32_t grid[3] = {1, 1, 1};
    std::uint32_t block[3] = {1, 1, 1};
    std::uint64_t range = 0;
    std::uint64_t function_id = 0;
  };
  std::uint32_t correlation = 0;  // > 0
  std::uint64_t ns = 0;
  std::optional<Identity> identity;
};
// p <perfworks name>...
struct PmMetricsLine {
  std::vector<std::string> metrics;
};
// w: PmWindowRecord (pm_records.hpp), its fields in order, overflow and image full as 0|1.
// s <start ns> <end ns> <value>...: PmSample (values with 6 significant digits).
// Z
struct EndLine {};

// The kind of a line: its first character after any spaces; 0 for an empty line.
char line_kind(std::string_view line);

// The table of line kinds: each kind's character (kLineKind<Type>) and its codec.
template <typename Line>
inline constexpr char kLineKind = 0;
#define GPUPERF_RECORD_LINE(kind, Type)                 \
  template <>                                           \
  inline constexpr char kLineKind<Type> = kind;         \
  void append_line(std::string& out, const Type& line); \
  const char* decode(std::string_view text, Type& out);
GPUPERF_RECORD_LINE('P', ProcessLine)
GPUPERF_RECORD_LINE('N', NameLine)
GPUPERF_RECORD_LINE('R', RangeLine)
GPUPERF_RECORD_LINE('K', KernelLine)
GPUPERF_RECORD_LINE('E', CorrelationLine)
GPUPERF_RECORD_LINE('C', MetricsLine)
GPUPERF_RECORD_LINE('M', ValuesLine)
GPUPERF_RECORD_LINE('H', GroupLine)
GPUPERF_RECORD_LINE('Q', GroupValuesLine)
GPUPERF_RECORD_LINE('D', DroppedLine)
GPUPERF_RECORD_LINE('F', FlushLine)
GPUPERF_RECORD_LINE('B', BudgetLine)
GPUPERF_RECORD_LINE('T', TimeBudgetLine)
GPUPERF_RECORD_LINE('U', UnreplayedLine)
GPUPERF_RECORD_LINE('Y', OnePassLine)
GPUPERF_RECORD_LINE('W', ProfileTimeLine)
GPUPERF_RECORD_LINE('A', RankLine)
GPUPERF_RECORD_LINE('V', CommunicationLine)
GPUPERF_RECORD_LINE('G', GivenUp)
GPUPERF_RECORD_LINE('O', OwnWork)
GPUPERF_RECORD_LINE('X', ErrorLine)
GPUPERF_RECORD_LINE('e', ExcludedLine)
GPUPERF_RECORD_LINE('x', LostCountersLine)
GPUPERF_RECORD_LINE('c', FingerprintLine)
GPUPERF_RECORD_LINE('l', LibraryLine)
GPUPERF_RECORD_LINE('S', SourceStatusLine)
GPUPERF_RECORD_LINE('J', SourceStringLine)
GPUPERF_RECORD_LINE('L', SourceLineLine)
GPUPERF_RECORD_LINE('I', InstrumentedLine)
GPUPERF_RECORD_LINE('p', PmMetricsLine)
GPUPERF_RECORD_LINE('w', PmWindowRecord)
GPUPERF_RECORD_LINE('s', PmSample)
GPUPERF_RECORD_LINE('Z', EndLine)
#undef GPUPERF_RECORD_LINE

template <typename Line>
std::string encode(const Line& line) {
  std::string out;
  append_line(out, line);
  return out;
}

}  // namespace gpuperf::record
