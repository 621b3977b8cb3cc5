#include "profiler/record/recorder/source_records.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <set>
#include <tuple>
#include <utility>

#include "profiler/record/record_codec.hpp"
#include "profiler/source_line_aggregate.hpp"

namespace gpuperf::record {
namespace {

// The counters of a SourceLine in the L line's order.
constexpr std::size_t kCounters = 11;
std::array<double*, kCounters> counters(SourceLine& l) {
  return {&l.inst_executed,     &l.thread_inst_executed,    &l.global_ld_requests, &l.global_st_requests,
          &l.global_ld_sectors, &l.global_ld_sectors_ideal, &l.global_st_sectors,  &l.global_st_sectors_ideal,
          &l.shared_wavefronts, &l.shared_wavefronts_ideal, &l.local_sectors};
}
std::array<double, kCounters> values(const SourceLine& l) {
  return {l.inst_executed,     l.thread_inst_executed,    l.global_ld_requests, l.global_st_requests,
          l.global_ld_sectors, l.global_ld_sectors_ideal, l.global_st_sectors,  l.global_st_sectors_ideal,
          l.shared_wavefronts, l.shared_wavefronts_ideal, l.local_sectors};
}

void say(std::string& message, const std::string& s) {
  if (s.empty() || message.find(s) != std::string::npos) return;  // each thing said once
  message += (message.empty() ? "" : "; ") + s;
}

}  // namespace

std::string SourceRecordParser::parse(std::string_view line) {
  switch (line.empty() ? '\0' : line.front()) {
    case kLineKind<SourceStringLine>: {
      SourceStringLine j;
      if (const char* why = decode(line, j)) return why;
      strings_[j.id] = std::move(j.text);
      return "";
    }
    case kLineKind<SourceLineLine>: {
      SourceLineLine d;
      if (const char* why = decode(line, d)) return why;
      SourceLine l;
      l.line = d.line;
      l.sass_offset = d.sass_offset;
      l.inlined_at_line = d.inlined_at_line;
      const auto to = counters(l);
      for (std::size_t i = 0; i < kCounters; ++i) *to[i] = d.counters[i];
      const auto f = strings_.find(d.function_id);
      if (f == strings_.end())
        return "source line names function id " + std::to_string(d.function_id) + " before a J line";
      l.function = f->second;
      if (d.file_id != 0) {
        const auto p = strings_.find(d.file_id);
        if (p == strings_.end()) return "source line names file id " + std::to_string(d.file_id) + " before a J line";
        l.file = p->second;
      }
      if (d.inlined_at_file_id != 0) {
        const auto p = strings_.find(d.inlined_at_file_id);
        if (p == strings_.end())
          return "source line names file id " + std::to_string(d.inlined_at_file_id) + " before a J line";
        l.inlined_at_file = p->second;
      }
      if (l.file.empty() != (l.line == 0)) return "malformed source line: a file without a line or a line without one";
      pending_[d.correlation].lines.push_back(std::move(l));
      return "";
    }
    case kLineKind<SourceStatusLine>: {
      SourceStatusLine d;
      if (const char* why = decode(line, d)) return why;
      if (d.correlation == 0) {
        if (d.status == Status::ok) {
          out_.started = true;
        } else if (out_.unavailable.empty()) {
          out_.unavailable_status = d.status;
          out_.unavailable = d.message.empty() ? "source lines are not collected in this process" : d.message;
        }
        return "";
      }
      SourceLaunch& s = pending_[d.correlation];
      s.status = d.status;
      s.message = std::move(d.message);
      return "";
    }
    case kLineKind<InstrumentedLine>: {
      InstrumentedLine d;
      if (const char* why = decode(line, d)) return why;
      std::optional<LaunchIdentity> identity;
      if (d.identity) {
        LaunchIdentity id;
        id.device = d.identity->device;
        for (int i = 0; i < 3; ++i) {
          id.grid[i] = d.identity->grid[i];
          id.block[i] = d.identity->block[i];
        }
        id.range = d.identity->range;
        const auto f = strings_.find(d.identity->function_id);
        if (f == strings_.end()) {
          return "instrumented launch names function id " + std::to_string(d.identity->function_id) +
                 " before a J line";
        }
        id.function = f->second;
        identity = std::move(id);
      }
      SourceLaunch s;
      if (auto it = pending_.find(d.correlation); it != pending_.end()) {
        s = std::move(it->second);
        pending_.erase(it);
      } else {
        s.status = Status::failed;
        s.message = "the instrumented launch wrote no lines";
      }
      s.ns = d.ns;
      s.identity = std::move(identity);
      out_.launches[d.correlation] = std::move(s);
      return "";
    }
    default: return "not a source-line record";
  }
}

SourceRecords SourceRecordParser::finish() {
  // A killed process's instrumented launch whose I line never came: its lines may be partial, so none count.
  for (auto& [corr, s] : pending_) {
    s.status = Status::failed;
    s.message = "its instrumented launch was cut off (the process ended before its lines were all written)";
    s.lines.clear();
    out_.launches[corr] = std::move(s);
    ++out_.unfinished;
  }
  pending_.clear();
  return std::move(out_);
}

SourceLines identity_source_lines(const std::vector<const SourceLaunch*>& launches, SourceTextCache& texts,
                                  Status unavailable_status, const std::string& unavailable,
                                  const NoSourceLaunch& none) {
  SourceLines out;
  if (launches.empty()) {
    if (!unavailable.empty()) {
      out.status = unavailable_status == Status::failed ? Status::failed : Status::unsupported;
      out.message = unavailable;
      return out;
    }
    out.status = Status::skipped;
    if (none.communication) {
      out.message = "a communication kernel: never instrumented (it waits for its peers)";
    } else if (none.graph_only) {
      out.message = "ran only in CUDA graph replays: launches captured into a graph are not instrumented";
    } else if (none.all_profiled) {
      out.message = "each of its " + std::to_string(none.launches) +
                    " launches was range-profiled (--profile-launches): none was left for its instrumented launch";
    } else {
      out.message = "no instrumented launch: the profiling budget was spent (--profile-budget, --profile-seconds)";
    }
    return out;
  }
  // The launches that gave lines count; a failed one says why, and the identity is failed only if all failed.
  // function, file, line, offset, the call site of inlined code
  using Key = std::tuple<std::string, std::string, std::int64_t, std::int64_t, std::string, std::int64_t>;
  std::map<Key, SourceLine> lines;
  std::vector<Key> order;  // first seen: the library writes lines in source order
  std::int64_t counted = 0;
  std::string failures;
  for (const SourceLaunch* l : launches) {
    if (l->status != Status::ok) {
      say(failures, l->message);
      continue;
    }
    ++counted;
    say(out.message, l->message);
    for (const SourceLine& in : l->lines) {
      const Key key{in.function,        in.file,           in.line, in.file.empty() ? in.sass_offset : -1,
                    in.inlined_at_file, in.inlined_at_line};
      auto [it, fresh] = lines.try_emplace(key, in);
      if (fresh) {
        order.push_back(key);
        continue;
      }
      SourceLine& kept = it->second;
      kept.sass_offset = std::min(kept.sass_offset, in.sass_offset);
      const auto to = counters(kept);
      const auto from = values(in);
      for (std::size_t i = 0; i < kCounters; ++i) *to[i] += from[i];
    }
  }
  if (counted == 0) {
    out.status = Status::failed;
    out.message = failures.empty() ? "its instrumented launch failed" : failures;
    return out;
  }
  out.status = Status::ok;
  out.launches = counted;
  if (!failures.empty()) say(out.message, "besides, an instrumented launch failed: " + failures);
  for (const Key& key : order) {
    SourceLine l = std::move(lines[key]);
    for (double* c : counters(l)) *c /= static_cast<double>(counted);
    if (!l.file.empty()) {
      l.text = texts.line(l.file, l.line);  // where the line table says it is, on this machine
      l.file = texts.shown_path(l.file);
    }
    if (!l.inlined_at_file.empty()) l.inlined_at_file = texts.shown_path(l.inlined_at_file);
    out.lines.push_back(std::move(l));
  }
  // Once per file and recording (`texts` is the recording's), as `run` says it: lines named without their text.
  for (const std::string& f : texts.take_missing()) {
    say(out.message, "no source text for " + f + " (not on this machine): its lines have none");
  }
  out.lines_total = static_cast<std::int64_t>(out.lines.size());
  return out;
}

}  // namespace gpuperf::record
