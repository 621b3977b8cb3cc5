#include "profiler/record/record_codec.hpp"

#include <charconv>

#include "profiler/record/line_fields.hpp"

namespace gpuperf::record {
namespace {

// The line's kind, from the table (record_codec.hpp).
template <typename Line>
void start(std::string& out, const Line&) {
  out += kLineKind<Line>;
}

}  // namespace

char line_kind(std::string_view line) {
  LineFields f(line);
  char kind = 0;
  f.next_char(kind);
  return kind;
}

// ---- the process and its launches: P N R K E D F ----

void append_line(std::string& out, const ProcessLine& l) {
  start(out, l);
  put_number(out, l.pid);
  put_number(out, l.ppid);
  put_number(out, l.started_ns);
  put_text(out, l.argv0);
}
const char* decode(std::string_view text, ProcessLine& out) {
  LineFields f = fields_after_kind(text);
  if (!(f.next(out.pid) && f.next(out.ppid) && f.next(out.started_ns))) return "malformed process line";
  out.argv0 = rest_after(text, 4);
  return nullptr;
}

void append_line(std::string& out, const NameLine& l) {
  start(out, l);
  put_number(out, l.id);
  put_text(out, l.name);
}
const char* decode(std::string_view text, NameLine& out) {
  LineFields f = fields_after_kind(text);
  if (!f.next(out.id)) return "malformed name line";
  out.name = rest_after(text, 2);
  return nullptr;
}

void append_line(std::string& out, const RangeLine& l) {
  start(out, l);
  put_number(out, l.id);
  put_text(out, l.path);
}
const char* decode(std::string_view text, RangeLine& out) {
  LineFields f = fields_after_kind(text);
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
    put_number(out, v);
  }
  if (l.graph != 0) put_number(out, l.graph);
}
const char* decode(std::string_view text, KernelLine& out) {
  LineFields f = fields_after_kind(text);
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
  put_number(out, l.correlation);
  put_number(out, l.range);
}
const char* decode(std::string_view text, CorrelationLine& out) {
  LineFields f = fields_after_kind(text);
  return f.next(out.correlation) && f.next(out.range) ? nullptr : "malformed correlation line";
}

void append_line(std::string& out, const DroppedLine& l) {
  start(out, l);
  put_number(out, l.count);
}
const char* decode(std::string_view text, DroppedLine& out) {
  LineFields f = fields_after_kind(text);
  return f.next(out.count) ? nullptr : "malformed dropped-records line";
}

void append_line(std::string& out, const FlushLine& l) {
  start(out, l);
  put_number(out, l.unix_ns);
}
const char* decode(std::string_view text, FlushLine& out) {
  LineFields f = fields_after_kind(text);
  return f.next(out.unix_ns) && f.at_end() ? nullptr : "malformed flush line";
}

void append_line(std::string& out, const RankLine& l) {
  start(out, l);
  for (const std::optional<int>* v : {&l.rank, &l.local_rank, &l.world_size}) {
    if (v->has_value()) {
      put_number(out, **v);
    } else {
      out += " -";
    }
  }
}
const char* decode(std::string_view text, RankLine& out) {
  LineFields f = fields_after_kind(text);
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
  LineFields f = fields_after_kind(text);
  f.next_all(out.names);
  return nullptr;
}

void append_line(std::string& out, const ValuesLine& l) {
  start(out, l);
  put_number(out, l.correlation);
  for (double v : l.values) put_g(out, v, 17);
}
const char* decode(std::string_view text, ValuesLine& out) {
  LineFields f = fields_after_kind(text);
  if (!f.next(out.correlation)) return "malformed metrics line";
  f.next_all(out.values);
  return f.at_end() ? nullptr : "metric values do not match the C line";
}

void append_line(std::string& out, const GroupLine& l) {
  start(out, l);
  put_number(out, l.group);
  for (std::size_t i : l.indices) put_number(out, i);
}
const char* decode(std::string_view text, GroupLine& out) {
  LineFields f = fields_after_kind(text);
  if (!f.next(out.group)) return "malformed metric group line";
  f.next_all(out.indices);
  if (!f.at_end() || out.indices.empty()) {
    return "malformed metric group line (groups are numbered 0, 1, ... in order, each with its metrics)";
  }
  return nullptr;
}

void append_line(std::string& out, const GroupValuesLine& l) {
  start(out, l);
  put_number(out, l.correlation);
  put_number(out, l.group);
  for (double v : l.values) put_g(out, v, 17);
}
const char* decode(std::string_view text, GroupValuesLine& out) {
  LineFields f = fields_after_kind(text);
  if (!(f.next(out.correlation) && f.next(out.group))) return "malformed group metrics line";
  f.next_all(out.values);
  return f.at_end() ? nullptr : "group metric values do not match the H line";
}

void append_line(std::string& out, const BudgetLine& l) {
  start(out, l);
  put_number(out, l.budget);
}
const char* decode(std::string_view text, BudgetLine& out) {
  LineFields f = fields_after_kind(text);
  return f.next(out.budget) && f.at_end() ? nullptr : "malformed budget line";
}

void append_line(std::string& out, const TimeBudgetLine& l) {
  start(out, l);
  put_number(out, l.ms);
}
const char* decode(std::string_view text, TimeBudgetLine& out) {
  LineFields f = fields_after_kind(text);
  return f.next(out.ms) && f.at_end() ? nullptr : "malformed time budget line";
}

void append_line(std::string& out, const UnreplayedLine& l) {
  start(out, l);
  put_text(out, l.why);
}
const char* decode(std::string_view text, UnreplayedLine& out) {
  LineFields f = fields_after_kind(text);
  if (!(f.next_word(out.why) && f.at_end()) || (out.why != "distributed" && out.why != "communication")) {
    return "malformed unreplayed line (U distributed|communication)";
  }
  return nullptr;
}

void append_line(std::string& out, const OnePassLine& l) {
  start(out, l);
  for (std::size_t i : l.not_collected) put_number(out, i);
}
const char* decode(std::string_view text, OnePassLine& out) {
  LineFields f = fields_after_kind(text);
  f.next_all(out.not_collected);
  return f.at_end() ? nullptr : "malformed one-pass line (Y <metric index>...)";
}

void append_line(std::string& out, const ProfileTimeLine& l) {
  start(out, l);
  put_number(out, l.correlation);
  put_number(out, l.ns);
}
const char* decode(std::string_view text, ProfileTimeLine& out) {
  LineFields f = fields_after_kind(text);
  return f.next(out.correlation) && f.next(out.ns) ? nullptr : "malformed profile time line";
}

void append_line(std::string& out, const CommunicationLine& l) {
  start(out, l);
  put_number(out, l.correlation);
  put_number(out, l.wait_ms);
}
const char* decode(std::string_view text, CommunicationLine& out) {
  LineFields f = fields_after_kind(text);
  return f.next(out.correlation) && f.next(out.wait_ms) && f.at_end() ? nullptr : "malformed communication line";
}

void append_line(std::string& out, const GivenUp& l) {
  start(out, l);
  put_number(out, l.correlation);
  put_number(out, l.ms);
  put_text(out, l.identity);
}
const char* decode(std::string_view text, GivenUp& out) {
  LineFields f = fields_after_kind(text);
  if (!(f.next(out.correlation) && f.next(out.ms))) return "malformed watchdog line";
  out.identity = rest_after(text, 3);
  return nullptr;
}

void append_line(std::string& out, const LostCountersLine& l) {
  start(out, l);
  put_number(out, l.correlation);
  put_number(out, l.group);
  put_text(out, l.why);
}
const char* decode(std::string_view text, LostCountersLine& out) {
  LineFields f = fields_after_kind(text);
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
  put_number(out, l.calls);
  put_number(out, l.items);
  put_number(out, l.ns);
}
const char* decode(std::string_view text, OwnWork& out) {
  LineFields f = fields_after_kind(text);  // fields past the fifth are a newer library's: ignored
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
  LineFields f = fields_after_kind(text);
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

// ---- PM sampling: p w s ----

void append_line(std::string& out, const PmMetricsLine& l) {
  start(out, l);
  for (const std::string& m : l.metrics) put_text(out, m);
}
const char* decode(std::string_view text, PmMetricsLine& out) {
  LineFields f = fields_after_kind(text);
  f.next_all(out.metrics);
  return nullptr;
}

void append_line(std::string& out, const PmWindowRecord& w) {
  start(out, w);
  put_number(out, w.device);
  for (std::uint64_t v : {w.interval_ns, w.start_ns, w.stop_ns, w.samples, w.invalid}) put_number(out, v);
  put_number(out, w.overflow ? 1 : 0);
  put_number(out, w.image_full ? 1 : 0);
  for (std::uint64_t v : {w.setup_ns, w.decode_ns, w.evaluate_ns, w.launches}) put_number(out, v);
}
const char* decode(std::string_view text, PmWindowRecord& w) {
  LineFields f = fields_after_kind(text);
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
  put_number(out, s.start_ns);
  put_number(out, s.end_ns);
  for (double v : s.values) put_g(out, v, 6);
}
const char* decode(std::string_view text, PmSample& s) {
  LineFields f = fields_after_kind(text);
  if (!(f.next(s.start_ns) && f.next(s.end_ns)) || s.end_ns <= s.start_ns) return "malformed PM sample line";
  f.next_all(s.values);
  return f.at_end() ? nullptr : "PM sample values do not match the p line";
}

}  // namespace gpuperf::record
