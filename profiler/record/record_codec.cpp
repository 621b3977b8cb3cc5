#include "profiler/record/record_codec.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <type_traits>

#include "profiler/record/line_fields.hpp"

namespace gpuperf::record {
namespace {

// ---- writing: each field after one space ----

// Decimal digits (std::to_chars: the K line is written once per launch, and snprintf costs more than the rest).
template <typename T>
void put(std::string& out, T v) {
  char text[24];
  out += ' ';
  out.append(text, static_cast<std::size_t>(std::to_chars(text, text + sizeof text, v).ptr - text));
}
void put_text(std::string& out, const std::string& text) {
  out += ' ';
  out += text;
}
// A value as printf's %.<digits>g writes it (the M and Q lines: 17 digits, the s line: 6).
void put_g(std::string& out, double v, int digits) {
  char text[40];
  std::snprintf(text, sizeof text, " %.*g", digits, v);
  out += text;
}
// A source-line counter: a whole count as an integer, else the shortest round trip.
void put_counter(std::string& out, double v) {
  if (v == static_cast<double>(static_cast<unsigned long long>(v)) && v < 1e19) {
    put(out, static_cast<unsigned long long>(v));
  } else {
    put_g(out, v, 17);
  }
}
// The line's kind, from the table (record_codec.hpp).
template <typename Line>
void start(std::string& out, const Line&) {
  out += kLineKind<Line>;
}

// ---- reading ----

// The fields after the kind (its first character after any spaces).
LineFields after_kind(std::string_view line) {
  LineFields f(line);
  char kind = 0;
  f.next_char(kind);
  return f;
}
// The source lines' fields: everything after the line's first character.
LineFields after_first(std::string_view line) {
  return LineFields(line.size() > 1 ? line.substr(1) : std::string_view());
}

// The rest of the line after `fields` space-separated fields, the kind counted (names and paths may hold spaces).
std::string rest_after(std::string_view line, int fields) {
  std::size_t pos = 0;
  for (int i = 0; i < fields; ++i) {
    pos = line.find(' ', pos);
    if (pos == std::string_view::npos) return "";
    ++pos;
  }
  return std::string(line.substr(pos));
}

template <typename T>
void words_or_numbers(LineFields& f, std::vector<T>& out) {
  T v{};
  if constexpr (std::is_same_v<T, std::string>) {
    while (f.next_word(v)) out.push_back(v);
  } else {
    while (f.next(v)) out.push_back(v);
  }
}

const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::unsupported: return "unsupported";
    default: return "failed";
  }
}
bool status_of(const std::string& w, Status& out) {
  for (Status s : {Status::ok, Status::failed, Status::unsupported}) {
    if (w == status_name(s)) {
      out = s;
      return true;
    }
  }
  return false;
}

}  // namespace

char line_kind(std::string_view line) {
  LineFields f(line);
  char kind = 0;
  f.next_char(kind);
  return kind;
}

// Every kind's encode() is its append_line() into a fresh string.
#define GPUPERF_RECORD_ENCODE(Type)      \
  std::string encode(const Type& line) { \
    std::string out;                     \
    append_line(out, line);              \
    return out;                          \
  }
GPUPERF_RECORD_ENCODE(ProcessLine)
GPUPERF_RECORD_ENCODE(NameLine)
GPUPERF_RECORD_ENCODE(RangeLine)
GPUPERF_RECORD_ENCODE(KernelLine)
GPUPERF_RECORD_ENCODE(CorrelationLine)
GPUPERF_RECORD_ENCODE(MetricsLine)
GPUPERF_RECORD_ENCODE(ValuesLine)
GPUPERF_RECORD_ENCODE(GroupLine)
GPUPERF_RECORD_ENCODE(GroupValuesLine)
GPUPERF_RECORD_ENCODE(DroppedLine)
GPUPERF_RECORD_ENCODE(FlushLine)
GPUPERF_RECORD_ENCODE(BudgetLine)
GPUPERF_RECORD_ENCODE(TimeBudgetLine)
GPUPERF_RECORD_ENCODE(UnreplayedLine)
GPUPERF_RECORD_ENCODE(OnePassLine)
GPUPERF_RECORD_ENCODE(ProfileTimeLine)
GPUPERF_RECORD_ENCODE(RankLine)
GPUPERF_RECORD_ENCODE(CommunicationLine)
GPUPERF_RECORD_ENCODE(GivenUp)
GPUPERF_RECORD_ENCODE(OwnWork)
GPUPERF_RECORD_ENCODE(ErrorLine)
GPUPERF_RECORD_ENCODE(ExcludedLine)
GPUPERF_RECORD_ENCODE(LostCountersLine)
GPUPERF_RECORD_ENCODE(FingerprintLine)
GPUPERF_RECORD_ENCODE(LibraryLine)
GPUPERF_RECORD_ENCODE(SourceStatusLine)
GPUPERF_RECORD_ENCODE(SourceStringLine)
GPUPERF_RECORD_ENCODE(SourceLineLine)
GPUPERF_RECORD_ENCODE(InstrumentedLine)
GPUPERF_RECORD_ENCODE(PmMetricsLine)
GPUPERF_RECORD_ENCODE(PmWindowRecord)
GPUPERF_RECORD_ENCODE(PmSample)
GPUPERF_RECORD_ENCODE(EndLine)
#undef GPUPERF_RECORD_ENCODE

// ---- the process and its launches: P N R K E D F ----

void append_line(std::string& out, const ProcessLine& l) {
  start(out, l);
  put(out, l.pid);
  put(out, l.ppid);
  put(out, l.started_ns);
  put_text(out, l.argv0);
}
const char* decode(std::string_view text, ProcessLine& out) {
  LineFields f = after_kind(text);
  if (!(f.next(out.pid) && f.next(out.ppid) && f.next(out.started_ns))) return "malformed process line";
  out.argv0 = rest_after(text, 4);
  return nullptr;
}

void append_line(std::string& out, const NameLine& l) {
  start(out, l);
  put(out, l.id);
  put_text(out, l.name);
}
const char* decode(std::string_view text, NameLine& out) {
  LineFields f = after_kind(text);
  if (!f.next(out.id)) return "malformed name line";
  out.name = rest_after(text, 2);
  return nullptr;
}

void append_line(std::string& out, const RangeLine& l) {
  start(out, l);
  put(out, l.id);
  put_text(out, l.path);
}
const char* decode(std::string_view text, RangeLine& out) {
  LineFields f = after_kind(text);
  if (!f.next(out.id)) return "malformed range line";
  out.path = rest_after(text, 2);
  return nullptr;
}

void append_line(std::string& out, const KernelLine& l) {
  start(out, l);
  for (std::uint64_t v :
       {std::uint64_t{l.device}, std::uint64_t{l.context}, std::uint64_t{l.stream}, std::uint64_t{l.correlation},
        l.start_ns, l.end_ns, std::uint64_t{l.grid[0]}, std::uint64_t{l.grid[1]}, std::uint64_t{l.grid[2]},
        std::uint64_t{l.block[0]}, std::uint64_t{l.block[1]}, std::uint64_t{l.block[2]}, l.name_id}) {
    put(out, v);
  }
  if (l.graph != 0) put(out, l.graph);
}
const char* decode(std::string_view text, KernelLine& out) {
  LineFields f = after_kind(text);
  if (!(f.next(out.device) && f.next(out.context) && f.next(out.stream) && f.next(out.correlation) &&
        f.next(out.start_ns) && f.next(out.end_ns) && f.next(out.grid[0]) && f.next(out.grid[1]) &&
        f.next(out.grid[2]) && f.next(out.block[0]) && f.next(out.block[1]) && f.next(out.block[2]) &&
        f.next(out.name_id))) {
    return "malformed kernel line";
  }
  if (!f.at_end() && !(f.next(out.graph) && f.at_end())) return "malformed kernel line";
  return nullptr;
}

void append_line(std::string& out, const CorrelationLine& l) {
  start(out, l);
  put(out, l.correlation);
  put(out, l.range);
}
const char* decode(std::string_view text, CorrelationLine& out) {
  LineFields f = after_kind(text);
  return f.next(out.correlation) && f.next(out.range) ? nullptr : "malformed correlation line";
}

void append_line(std::string& out, const DroppedLine& l) {
  start(out, l);
  put(out, l.count);
}
const char* decode(std::string_view text, DroppedLine& out) {
  LineFields f = after_kind(text);
  return f.next(out.count) ? nullptr : "malformed dropped-records line";
}

void append_line(std::string& out, const FlushLine& l) {
  start(out, l);
  put(out, l.unix_ns);
}
const char* decode(std::string_view text, FlushLine& out) {
  LineFields f = after_kind(text);
  return f.next(out.unix_ns) && f.at_end() ? nullptr : "malformed flush line";
}

void append_line(std::string& out, const RankLine& l) {
  start(out, l);
  for (const std::optional<int>* v : {&l.rank, &l.local_rank, &l.world_size}) {
    if (v->has_value()) {
      put(out, **v);
    } else {
      out += " -";
    }
  }
}
const char* decode(std::string_view text, RankLine& out) {
  LineFields f = after_kind(text);
  for (std::optional<int>* field : {&out.rank, &out.local_rank, &out.world_size}) {
    std::string word;
    int v = 0;
    if (!f.next_word(word)) return "malformed rank line";
    if (word == "-") continue;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
    if (ec != std::errc() || end != word.data() + word.size() || v < 0) return "malformed rank line";
    *field = v;
  }
  return f.at_end() ? nullptr : "malformed rank line";
}

// ---- hardware metrics: C M H Q B T U Y W V G x e ----

void append_line(std::string& out, const MetricsLine& l) {
  start(out, l);
  for (const std::string& n : l.names) put_text(out, n);
}
const char* decode(std::string_view text, MetricsLine& out) {
  LineFields f = after_kind(text);
  words_or_numbers(f, out.names);
  return nullptr;
}

void append_line(std::string& out, const ValuesLine& l) {
  start(out, l);
  put(out, l.correlation);
  for (double v : l.values) put_g(out, v, 17);
}
const char* decode(std::string_view text, ValuesLine& out) {
  LineFields f = after_kind(text);
  if (!f.next(out.correlation)) return "malformed metrics line";
  words_or_numbers(f, out.values);
  return f.at_end() ? nullptr : "metric values do not match the C line";
}

void append_line(std::string& out, const GroupLine& l) {
  start(out, l);
  put(out, l.group);
  for (std::size_t i : l.indices) put(out, i);
}
const char* decode(std::string_view text, GroupLine& out) {
  LineFields f = after_kind(text);
  if (!f.next(out.group)) return "malformed metric group line";
  words_or_numbers(f, out.indices);
  if (!f.at_end() || out.indices.empty()) {
    return "malformed metric group line (groups are numbered 0, 1, ... in order, each with its metrics)";
  }
  return nullptr;
}

void append_line(std::string& out, const GroupValuesLine& l) {
  start(out, l);
  put(out, l.correlation);
  put(out, l.group);
  for (double v : l.values) put_g(out, v, 17);
}
const char* decode(std::string_view text, GroupValuesLine& out) {
  LineFields f = after_kind(text);
  if (!(f.next(out.correlation) && f.next(out.group))) return "malformed group metrics line";
  words_or_numbers(f, out.values);
  return f.at_end() ? nullptr : "group metric values do not match the H line";
}

void append_line(std::string& out, const BudgetLine& l) {
  start(out, l);
  put(out, l.budget);
}
const char* decode(std::string_view text, BudgetLine& out) {
  LineFields f = after_kind(text);
  return f.next(out.budget) && f.at_end() ? nullptr : "malformed budget line";
}

void append_line(std::string& out, const TimeBudgetLine& l) {
  start(out, l);
  put(out, l.ms);
}
const char* decode(std::string_view text, TimeBudgetLine& out) {
  LineFields f = after_kind(text);
  return f.next(out.ms) && f.at_end() ? nullptr : "malformed time budget line";
}

void append_line(std::string& out, const UnreplayedLine& l) {
  start(out, l);
  put_text(out, l.why);
}
const char* decode(std::string_view text, UnreplayedLine& out) {
  LineFields f = after_kind(text);
  if (!(f.next_word(out.why) && f.at_end()) || (out.why != "distributed" && out.why != "communication")) {
    return "malformed unreplayed line (U distributed|communication)";
  }
  return nullptr;
}

void append_line(std::string& out, const OnePassLine& l) {
  start(out, l);
  for (std::size_t i : l.not_collected) put(out, i);
}
const char* decode(std::string_view text, OnePassLine& out) {
  LineFields f = after_kind(text);
  words_or_numbers(f, out.not_collected);
  return f.at_end() ? nullptr : "malformed one-pass line (Y <metric index>...)";
}

void append_line(std::string& out, const ProfileTimeLine& l) {
  start(out, l);
  put(out, l.correlation);
  put(out, l.ns);
}
const char* decode(std::string_view text, ProfileTimeLine& out) {
  LineFields f = after_kind(text);
  return f.next(out.correlation) && f.next(out.ns) ? nullptr : "malformed profile time line";
}

void append_line(std::string& out, const CommunicationLine& l) {
  start(out, l);
  put(out, l.correlation);
  put(out, l.wait_ms);
}
const char* decode(std::string_view text, CommunicationLine& out) {
  LineFields f = after_kind(text);
  return f.next(out.correlation) && f.next(out.wait_ms) && f.at_end() ? nullptr : "malformed communication line";
}

void append_line(std::string& out, const GivenUp& l) {
  start(out, l);
  put(out, l.correlation);
  put(out, l.ms);
  put_text(out, l.identity);
}
const char* decode(std::string_view text, GivenUp& out) {
  LineFields f = after_kind(text);
  if (!(f.next(out.correlation) && f.next(out.ms))) return "malformed watchdog line";
  out.identity = rest_after(text, 3);
  return nullptr;
}

void append_line(std::string& out, const LostCountersLine& l) {
  start(out, l);
  put(out, l.correlation);
  put(out, l.group);
  put_text(out, l.why);
}
const char* decode(std::string_view text, LostCountersLine& out) {
  LineFields f = after_kind(text);
  if (!(f.next(out.correlation) && f.next(out.group)) || f.at_end())
    return "malformed lost-counters line (x <correlation> <group> <why>)";
  out.why = rest_after(text, 3);
  return nullptr;
}

void append_line(std::string& out, const ExcludedLine& l) {
  start(out, l);
  put_text(out, l.kernel);
}
const char* decode(std::string_view text, ExcludedLine& out) {
  out.kernel = rest_after(text, 1);
  return nullptr;
}

// ---- the library's own lines: O X c l Z ----

void append_line(std::string& out, const OwnWork& l) {
  start(out, l);
  put_text(out, l.work);
  put_text(out, l.thread);
  put(out, l.calls);
  put(out, l.items);
  put(out, l.ns);
}
const char* decode(std::string_view text, OwnWork& out) {
  LineFields f = after_kind(text);  // fields past the fifth are a newer library's: ignored
  if (!(f.next_word(out.work) && f.next_word(out.thread) && f.next(out.calls) && f.next(out.items) && f.next(out.ns)))
    return "malformed own-time line";
  return nullptr;
}

void append_line(std::string& out, const ErrorLine& l) {
  start(out, l);
  put_text(out, l.message);
}
const char* decode(std::string_view text, ErrorLine& out) {
  out.message = rest_after(text, 1);
  return nullptr;
}

void append_line(std::string& out, const FingerprintLine& l) {
  start(out, l);
  put_text(out, l.fingerprint);
  put_text(out, l.name);
}
const char* decode(std::string_view text, FingerprintLine& out) {
  LineFields f = after_kind(text);
  if (!f.next_word(out.fingerprint) || f.at_end()) return "malformed fingerprint line (c <fingerprint> <name>)";
  out.name = rest_after(text, 2);
  return nullptr;
}

void append_line(std::string& out, const LibraryLine& l) {
  start(out, l);
  put_text(out, l.path);
}
const char* decode(std::string_view text, LibraryLine& out) {
  out.path = rest_after(text, 1);
  return nullptr;
}

void append_line(std::string& out, const EndLine& l) { start(out, l); }
const char* decode(std::string_view, EndLine&) { return nullptr; }

// ---- source lines: S J L I ----

void append_line(std::string& out, const SourceStatusLine& l) {
  start(out, l);
  put(out, l.correlation);
  out += ' ';
  out += status_name(l.status);
  if (l.correlation != 0 || !l.message.empty()) put_text(out, l.message);
}
const char* decode(std::string_view text, SourceStatusLine& out) {
  LineFields f = after_first(text);
  std::string word;
  if (!(f.next(out.correlation) && f.next_word(word) && status_of(word, out.status)))
    return "malformed source status line";
  out.message = f.rest();
  return nullptr;
}

void append_line(std::string& out, const SourceStringLine& l) {
  start(out, l);
  put(out, l.id);
  put_text(out, l.text);
}
const char* decode(std::string_view text, SourceStringLine& out) {
  LineFields f = after_first(text);
  if (!f.next(out.id) || out.id == 0) return "malformed source string line";
  out.text = f.rest();
  return nullptr;
}

void append_line(std::string& out, const SourceLineLine& l) {
  start(out, l);
  put(out, l.correlation);
  put(out, l.function_id);
  put(out, l.file_id);
  put(out, l.line);
  put(out, l.sass_offset);
  for (double c : l.counters) put_counter(out, c);
  if (l.inlined_at_file_id != 0) {  // code inlined from a helper: the call site after the counters
    put(out, l.inlined_at_file_id);
    put(out, l.inlined_at_line);
  }
}
const char* decode(std::string_view text, SourceLineLine& out) {
  LineFields f = after_first(text);
  if (!(f.next(out.correlation) && f.next(out.function_id) && f.next(out.file_id) && f.next(out.line) &&
        f.next(out.sass_offset))) {
    return "malformed source line";
  }
  for (double& c : out.counters) {
    if (!f.next(c)) return "malformed source line: expected 11 counters";
    if (!std::isfinite(c) || c < 0) return "malformed source line: a counter is negative or not finite";
  }
  if (!f.at_end() && !(f.next(out.inlined_at_file_id) && f.next(out.inlined_at_line) && f.at_end() &&
                       out.inlined_at_file_id != 0 && out.inlined_at_line > 0)) {
    return "malformed source line: more than 11 counters, and not an inlined call site's file id and line";
  }
  if (out.line < 0 || out.sass_offset < 0) return "malformed source line: a negative line or SASS offset";
  return nullptr;
}

void append_line(std::string& out, const InstrumentedLine& l) {
  start(out, l);
  put(out, l.correlation);
  put(out, l.ns);
  if (const auto& id = l.identity) {
    for (std::uint64_t v : {std::uint64_t{id->device}, std::uint64_t{id->grid[0]}, std::uint64_t{id->grid[1]},
                            std::uint64_t{id->grid[2]}, std::uint64_t{id->block[0]}, std::uint64_t{id->block[1]},
                            std::uint64_t{id->block[2]}, id->range, id->function_id}) {
      put(out, v);
    }
  }
}
const char* decode(std::string_view text, InstrumentedLine& out) {
  LineFields f = after_first(text);
  if (!(f.next(out.correlation) && f.next(out.ns)) || out.correlation == 0) return "malformed instrumented launch line";
  if (f.at_end()) return nullptr;
  InstrumentedLine::Identity& id = out.identity.emplace();
  if (!(f.next(id.device) && f.next(id.grid[0]) && f.next(id.grid[1]) && f.next(id.grid[2]) && f.next(id.block[0]) &&
        f.next(id.block[1]) && f.next(id.block[2]) && f.next(id.range) && f.next(id.function_id) && f.at_end())) {
    return "malformed instrumented launch line";
  }
  return nullptr;
}

// ---- PM sampling: p w s ----

void append_line(std::string& out, const PmMetricsLine& l) {
  start(out, l);
  for (const std::string& m : l.metrics) put_text(out, m);
}
const char* decode(std::string_view text, PmMetricsLine& out) {
  LineFields f = after_kind(text);
  words_or_numbers(f, out.metrics);
  return nullptr;
}

void append_line(std::string& out, const PmWindowRecord& w) {
  start(out, w);
  put(out, w.device);
  for (std::uint64_t v : {w.interval_ns, w.start_ns, w.stop_ns, w.samples, w.invalid}) put(out, v);
  put(out, w.overflow ? 1 : 0);
  put(out, w.image_full ? 1 : 0);
  for (std::uint64_t v : {w.setup_ns, w.decode_ns, w.evaluate_ns, w.launches}) put(out, v);
}
const char* decode(std::string_view text, PmWindowRecord& w) {
  LineFields f = after_kind(text);
  int overflow = 0, full = 0;
  if (!(f.next(w.device) && f.next(w.interval_ns) && f.next(w.start_ns) && f.next(w.stop_ns) && f.next(w.samples) &&
        f.next(w.invalid) && f.next(overflow) && f.next(full) && f.next(w.setup_ns) && f.next(w.decode_ns) &&
        f.next(w.evaluate_ns) && f.next(w.launches) && f.at_end()) ||
      w.stop_ns < w.start_ns) {
    return "malformed PM window line";
  }
  w.overflow = overflow != 0;
  w.image_full = full != 0;
  return nullptr;
}

void append_line(std::string& out, const PmSample& s) {
  start(out, s);
  put(out, s.start_ns);
  put(out, s.end_ns);
  for (double v : s.values) put_g(out, v, 6);
}
const char* decode(std::string_view text, PmSample& s) {
  LineFields f = after_kind(text);
  if (!(f.next(s.start_ns) && f.next(s.end_ns)) || s.end_ns <= s.start_ns) return "malformed PM sample line";
  words_or_numbers(f, s.values);
  return f.at_end() ? nullptr : "PM sample values do not match the p line";
}

}  // namespace gpuperf::record
