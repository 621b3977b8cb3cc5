#include "profiler/record/recorder/source_records.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <set>
#include <tuple>
#include <utility>

#include "profiler/record/recorder/line_fields.hpp"
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

bool status_word(const std::string& w, Status& out) {
  if (w == "ok") {
    out = Status::ok;
  } else if (w == "failed") {
    out = Status::failed;
  } else if (w == "unsupported") {
    out = Status::unsupported;
  } else {
    return false;
  }
  return true;
}

void say(std::string& message, const std::string& s) {
  if (s.empty() || message.find(s) != std::string::npos) return;  // each thing said once
  message += (message.empty() ? "" : "; ") + s;
}

}  // namespace

std::string SourceRecordParser::parse(std::string_view line) {
  LineFields w(line.size() > 1 ? line.substr(1) : std::string_view());  // the fields after the kind
  switch (line.empty() ? '\0' : line.front()) {
    case 'J': {
      std::uint64_t id = 0;
      if (!w.next(id) || id == 0) return "malformed source string line";
      strings_[id] = w.rest();
      return "";
    }
    case 'L': {
      std::uint32_t corr = 0;
      std::uint64_t function = 0, file = 0;
      SourceLine l;
      if (!(w.next(corr) && w.next(function) && w.next(file) && w.next(l.line) && w.next(l.sass_offset))) {
        return "malformed source line";
      }
      for (double* c : counters(l)) {
        if (!w.next(*c)) return "malformed source line: expected 11 counters";
        if (!std::isfinite(*c) || *c < 0) return "malformed source line: a counter is negative or not finite";
      }
      std::uint64_t site = 0;  // optional: the call site of inlined code (file id, line)
      if (!w.at_end() &&
          !(w.next(site) && w.next(l.inlined_at_line) && w.at_end() && site != 0 && l.inlined_at_line > 0)) {
        return "malformed source line: more than 11 counters, and not an inlined call site's file id and line";
      }
      if (l.line < 0 || l.sass_offset < 0) return "malformed source line: a negative line or SASS offset";
      const auto f = strings_.find(function);
      if (f == strings_.end()) return "source line names function id " + std::to_string(function) + " before a J line";
      l.function = f->second;
      if (file != 0) {
        const auto p = strings_.find(file);
        if (p == strings_.end()) return "source line names file id " + std::to_string(file) + " before a J line";
        l.file = p->second;
      }
      if (site != 0) {
        const auto p = strings_.find(site);
        if (p == strings_.end()) return "source line names file id " + std::to_string(site) + " before a J line";
        l.inlined_at_file = p->second;
      }
      if (l.file.empty() != (l.line == 0)) return "malformed source line: a file without a line or a line without one";
      pending_[corr].lines.push_back(std::move(l));
      return "";
    }
    case 'S': {
      std::uint32_t corr = 0;
      std::string word;
      Status status = Status::ok;
      if (!(w.next(corr) && w.next_word(word) && status_word(word, status))) return "malformed source status line";
      std::string message = w.rest();
      if (corr == 0) {
        if (status == Status::ok) {
          out_.started = true;
        } else if (out_.unavailable.empty()) {
          out_.unavailable_status = status;
          out_.unavailable = message.empty() ? "source lines are not collected in this process" : message;
        }
        return "";
      }
      SourceLaunch& s = pending_[corr];
      s.status = status;
      s.message = std::move(message);
      return "";
    }
    case 'I': {
      std::uint32_t corr = 0;
      std::uint64_t ns = 0;
      if (!(w.next(corr) && w.next(ns)) || corr == 0) return "malformed instrumented launch line";
      std::optional<LaunchIdentity> identity;
      if (!w.at_end()) {
        LaunchIdentity id;
        std::uint64_t function = 0;
        if (!(w.next(id.device) && w.next(id.grid[0]) && w.next(id.grid[1]) && w.next(id.grid[2]) &&
              w.next(id.block[0]) && w.next(id.block[1]) && w.next(id.block[2]) && w.next(id.range) &&
              w.next(function) && w.at_end())) {
          return "malformed instrumented launch line";
        }
        const auto f = strings_.find(function);
        if (f == strings_.end())
          return "instrumented launch names function id " + std::to_string(function) + " before a J line";
        id.function = f->second;
        identity = std::move(id);
      }
      SourceLaunch s;
      if (auto it = pending_.find(corr); it != pending_.end()) {
        s = std::move(it->second);
        pending_.erase(it);
      } else {
        s.status = Status::failed;
        s.message = "the instrumented launch wrote no lines";
      }
      s.ns = ns;
      s.identity = std::move(identity);
      out_.launches[corr] = std::move(s);
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
