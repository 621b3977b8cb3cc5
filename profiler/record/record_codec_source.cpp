// The record codec's source-line kinds (S J L I, source_records.hpp). Their fields follow the kind's one character:
// the recorder (SourceRecordParser) has always read everything after a line's first character.
#include <cmath>

#include "profiler/record/line_fields.hpp"
#include "profiler/record/record_codec.hpp"

namespace gpuperf::record {
namespace {

// The line's kind, from the table (record_codec.hpp).
template <typename Line>
void start(std::string& out, const Line&) {
  out += kLineKind<Line>;
}
// A counter: a whole count as an integer, else the shortest round trip.
void put_counter(std::string& out, double v) {
  if (v == static_cast<double>(static_cast<unsigned long long>(v)) && v < 1e19) {
    put_number(out, static_cast<unsigned long long>(v));
  } else {
    put_g(out, v, 17);
  }
}
LineFields after_first(std::string_view line) {
  return LineFields(line.size() > 1 ? line.substr(1) : std::string_view());
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

void append_line(std::string& out, const SourceStatusLine& l) {
  start(out, l);
  put_number(out, l.correlation);
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
  put_number(out, l.id);
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
  put_number(out, l.correlation);
  put_number(out, l.function_id);
  put_number(out, l.file_id);
  put_number(out, l.line);
  put_number(out, l.sass_offset);
  for (double c : l.counters) put_counter(out, c);
  if (l.inlined_at_file_id != 0) {  // code inlined from a helper: the call site after the counters
    put_number(out, l.inlined_at_file_id);
    put_number(out, l.inlined_at_line);
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
  put_number(out, l.correlation);
  put_number(out, l.ns);
  if (const auto& id = l.identity) {
    for (std::uint64_t v : {std::uint64_t{id->device}, std::uint64_t{id->grid[0]}, std::uint64_t{id->grid[1]},
                            std::uint64_t{id->grid[2]}, std::uint64_t{id->block[0]}, std::uint64_t{id->block[1]},
                            std::uint64_t{id->block[2]}, id->range, id->function_id}) {
      put_number(out, v);
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

}  // namespace gpuperf::record
