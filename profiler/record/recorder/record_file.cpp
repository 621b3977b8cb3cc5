#include "profiler/record/recorder/record_file.hpp"

#include <cmath>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <string_view>
#include <unordered_map>

#include "core/errors.hpp"
#include "profiler/record/recorder/line_fields.hpp"
#include "profiler/record/recorder/pm_attribution.hpp"

namespace gpuperf::record {
namespace {

// The rest of the line after `fields` space-separated fields (names and paths may hold spaces).
std::string rest_after(std::string_view line, int fields) {
  std::size_t pos = 0;
  for (int i = 0; i < fields; ++i) {
    pos = line.find(' ', pos);
    if (pos == std::string_view::npos) return "";
    ++pos;
  }
  return std::string(line.substr(pos));
}

}  // namespace

ProcessParser::ProcessParser(std::string what) : what_(std::move(what)) {}

void ProcessParser::feed(std::string_view bytes) {
  std::size_t begin = 0;
  if (!partial_.empty()) {  // complete the line the last piece ended in
    const std::size_t newline = bytes.find('\n');
    if (newline == std::string_view::npos) {
      partial_.append(bytes);
      return;
    }
    partial_.append(bytes.substr(0, newline));
    const std::string line = std::move(partial_);
    partial_.clear();
    parse_line(line);
    begin = newline + 1;
  }
  // Room for the launches these bytes may hold (a K line is longer than 64 bytes), growing geometrically.
  const std::size_t room = p_.launches.size() + (bytes.size() - begin) / 64;
  if (room > p_.launches.capacity()) {
    p_.launches.reserve(std::max(room, 2 * p_.launches.capacity()));
    name_ids_.reserve(p_.launches.capacity());
  }
  while (begin < bytes.size()) {
    const std::size_t newline = bytes.find('\n', begin);
    if (newline == std::string_view::npos) {
      partial_.assign(bytes.substr(begin));
      return;
    }
    parse_line(bytes.substr(begin, newline - begin));
    begin = newline + 1;
  }
}

InputError ProcessParser::bad(std::string_view line, const char* why) const {
  return InputError(what_ + ":" + std::to_string(lineno_) + ": " + why + ": '" + std::string(line.substr(0, 120)) +
                    "'");
}

void ProcessParser::parse_line(std::string_view line) {
  ++lineno_;
  if (line.empty()) return;
  LineFields f(line);
  char kind = 0;
  f.next_char(kind);
  switch (kind) {
    case 'K': parse_kernel_line(f, line); break;
    case 'C':
    case 'M':
    case 'H':
    case 'Q':
    case 'Y':
    case 'W': parse_metrics_line(kind, f, line); break;
    case 'A': parse_rank_line(f, line); break;
    case 'S':
    case 'L':
    case 'I':
    case 'J':
      if (const std::string why = source_.parse(line); !why.empty()) throw bad(line, why.c_str());
      break;
    case 'Z': p_.complete = true; break;
    case 'p':
    case 'w':
    case 's':
      if (const std::string why = parse_pm_line(kind, f, p_.pm); !why.empty()) throw bad(line, why.c_str());
      break;
    default: parse_process_line(kind, f, line);
  }
}

// K: one kernel launch (device, context, stream, correlation, start, end, grid, block, name id[, graph]).
void ProcessParser::parse_kernel_line(LineFields& f, std::string_view line) {
  LaunchRecord r;
  std::uint64_t name_id = 0;
  if (!(f.next(r.device) && f.next(r.context) && f.next(r.stream) && f.next(r.correlation) && f.next(r.start_ns) &&
        f.next(r.end_ns) && f.next(r.grid[0]) && f.next(r.grid[1]) && f.next(r.grid[2]) && f.next(r.block[0]) &&
        f.next(r.block[1]) && f.next(r.block[2]) && f.next(name_id))) {
    throw bad(line, "malformed kernel line");
  }
  if (!f.at_end() && !(f.next(r.graph) && f.at_end())) throw bad(line, "malformed kernel line");
  if (r.end_ns == 0 && r.start_ns != 0) {
    r.unfinished = true;  // still running when a forced flush handed its record over
  } else if (r.end_ns < r.start_ns) {
    throw bad(line, "kernel ends before it starts");
  }
  p_.launches.push_back(r);
  name_ids_.push_back(name_id);
}

// A, the process's place in a distributed job: rank, local rank, world size, each a number or "-".
void ProcessParser::parse_rank_line(LineFields& f, std::string_view line) {
  std::optional<int>* fields[] = {&p_.rank, &p_.local_rank, &p_.world_size};
  for (std::optional<int>* field : fields) {
    std::string word;
    int v = 0;
    if (!f.next_word(word)) throw bad(line, "malformed rank line");
    if (word == "-") continue;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
    if (ec != std::errc() || end != word.data() + word.size() || v < 0) throw bad(line, "malformed rank line");
    *field = v;
  }
  if (!f.at_end()) throw bad(line, "malformed rank line");
}

// The metrics' lines: C (names), M (a launch's values), H (a group of them), Q (a launch's values of one
// group), Y (one pass a launch: what was not collected), W (a profiled launch's time).
void ProcessParser::parse_metrics_line(char kind, LineFields& f, std::string_view line) {
  switch (kind) {
    case 'C': {
      std::string name;
      while (f.next_word(name)) p_.metric_names.push_back(name);
      break;
    }
    case 'M': {
      std::uint32_t corr = 0;
      if (!f.next(corr)) throw bad(line, "malformed metrics line");
      std::vector<double> values;
      double v = 0;
      while (f.next(v)) values.push_back(v);
      if (!f.at_end() || values.size() != p_.metric_names.size())
        throw bad(line, "metric values do not match the C line");
      metrics_of_correlation_[corr] = std::move(values);
      break;
    }
    case 'H': {  // a group of the C line's metrics, by index, that a Q line's launch collected
      std::size_t group = 0, index = 0;
      if (!f.next(group)) throw bad(line, "malformed metric group line");
      std::vector<std::size_t> indices;
      while (f.next(index)) {
        if (index >= p_.metric_names.size()) throw bad(line, "metric group names a metric the C line does not have");
        indices.push_back(index);
      }
      if (!f.at_end() || indices.empty() || group != p_.metric_groups.size()) {
        throw bad(line, "malformed metric group line (groups are numbered 0, 1, ... in order, each with its metrics)");
      }
      p_.metric_groups.push_back(std::move(indices));
      break;
    }
    case 'Q': {  // one profiled launch's values of one metric group: the others are absent, not zero
      std::uint32_t corr = 0;
      std::size_t group = 0;
      if (!(f.next(corr) && f.next(group))) throw bad(line, "malformed group metrics line");
      if (group >= p_.metric_groups.size()) throw bad(line, "group metrics line of a group no H line defined");
      const std::vector<std::size_t>& indices = p_.metric_groups[group];
      std::vector<double> values(p_.metric_names.size(), std::nan(""));
      std::vector<bool> present(p_.metric_names.size(), false);
      std::size_t k = 0;
      double v = 0;
      while (k < indices.size() && f.next(v)) {
        values[indices[k]] = v;
        present[indices[k++]] = true;
      }
      if (k != indices.size() || !f.at_end()) throw bad(line, "group metric values do not match the H line");
      metrics_of_correlation_[corr] = std::move(values);
      present_of_correlation_[corr] = std::move(present);
      break;
    }
    case 'Y': {  // one pass a launch: the metrics listed need more and were not collected
      if (p_.metric_names.empty()) throw bad(line, "one-pass line before the metrics line (C)");
      p_.one_pass = true;
      p_.not_collected.assign(p_.metric_names.size(), false);
      std::size_t index = 0;
      while (f.next(index)) {
        if (index >= p_.metric_names.size()) throw bad(line, "one-pass line names a metric the C line does not have");
        p_.not_collected[index] = true;
      }
      if (!f.at_end()) throw bad(line, "malformed one-pass line (Y <metric index>...)");
      break;
    }
    case 'W': {
      std::uint32_t corr = 0;
      std::uint64_t ns = 0;
      if (!(f.next(corr) && f.next(ns))) throw bad(line, "malformed profile time line");
      profile_ns_of_correlation_[corr] = ns;
      break;
    }
  }
}

// The process's own lines: P, names (N) and ranges (R), correlations (E), what was dropped (D), flushed (F)
// and spent (B, T); the rest are parse_outcome_line's.
void ProcessParser::parse_process_line(char kind, LineFields& f, std::string_view line) {
  switch (kind) {
    case 'P':
      if (!(f.next(p_.pid) && f.next(p_.ppid) && f.next(p_.started_ns))) throw bad(line, "malformed process line");
      p_.argv0 = rest_after(line, 4);
      break;
    case 'N': {
      std::uint64_t id = 0;
      if (!f.next(id)) throw bad(line, "malformed name line");
      strings_->names[id] = rest_after(line, 2);
      break;
    }
    case 'R': {
      std::uint64_t id = 0;
      if (!f.next(id)) throw bad(line, "malformed range line");
      strings_->ranges[id] = stable_nvtx_path(rest_after(line, 2));
      break;
    }
    case 'E': {
      std::uint32_t corr = 0;
      std::uint64_t range = 0;
      if (!(f.next(corr) && f.next(range))) throw bad(line, "malformed correlation line");
      range_of_correlation_[corr] = range;
      break;
    }
    case 'D': {
      std::uint64_t n = 0;
      if (!f.next(n)) throw bad(line, "malformed dropped-records line");
      p_.dropped += n;
      break;
    }
    case 'F':
      if (!(f.next(p_.last_flush_ns) && f.at_end())) throw bad(line, "malformed flush line");
      break;
    case 'B':
      if (!(f.next(p_.profile_budget_spent) && f.at_end())) throw bad(line, "malformed budget line");
      break;
    case 'T':
      if (!(f.next(p_.profile_time_budget_ms) && f.at_end())) throw bad(line, "malformed time budget line");
      break;
    default: parse_outcome_line(kind, f, line);
  }
}

// What the library could not do as asked: U (not range-profiled), V (communication), G (the watchdog gave a
// launch up), O (its own time), X (an error), x (a launch's counters lost).
void ProcessParser::parse_outcome_line(char kind, LineFields& f, std::string_view line) {
  switch (kind) {
    case 'U': {  // not range-profiled: a rank of a distributed job, or after its first communication kernel
      std::string why;
      if (!(f.next_word(why) && f.at_end()) || (why != "distributed" && why != "communication")) {
        throw bad(line, "malformed unreplayed line (U distributed|communication)");
      }
      p_.unreplayed = why;
      break;
    }
    case 'V': {
      std::uint32_t corr = 0;
      if (!(f.next(corr) && f.next(p_.communication_wait_ms) && f.at_end()))
        throw bad(line, "malformed communication line");
      ++p_.communication_busy;
      break;
    }
    case 'G': {
      GivenUp g;
      if (!(f.next(g.correlation) && f.next(g.ms))) throw bad(line, "malformed watchdog line");
      g.identity = rest_after(line, 3);
      p_.given_up.push_back(std::move(g));
      break;
    }
    case 'O': {  // fields past the fifth are a newer library's: ignored
      OwnWork w;
      if (!(f.next_word(w.work) && f.next_word(w.thread) && f.next(w.calls) && f.next(w.items) && f.next(w.ns)))
        throw bad(line, "malformed own-time line");
      p_.own_work.push_back(std::move(w));
      break;
    }
    case 'X': p_.errors.push_back(rest_after(line, 1)); break;
    case 'e': p_.excluded.push_back(rest_after(line, 1)); break;  // a kernel the selection kept out of profiling
    case 'x': {  // a profiled launch's counters lost and its group given back (x <correlation> <group> <why>)
      std::uint32_t corr = 0;
      std::size_t group = 0;
      if (!(f.next(corr) && f.next(group)) || f.at_end())
        throw bad(line, "malformed lost-counters line (x <correlation> <group> <why>)");
      if (p_.lost_counters++ == 0) p_.lost_first = rest_after(line, 3);
      break;
    }
    case 'c': {  // c <fingerprint> <mangled name>
      std::string fingerprint;
      if (!f.next_word(fingerprint) || f.at_end())
        throw bad(line, "malformed fingerprint line (c <fingerprint> <name>)");
      p_.fingerprints.emplace(rest_after(line, 2), fingerprint);
      break;
    }
    case 'l': p_.libraries.push_back(rest_after(line, 1)); break;
    default: throw bad(line, "unknown record kind");
  }
}

ProcessRecord ProcessParser::finish() {
  partial_.clear();  // a killed process's half-written last line
  SourceRecords source_records = source_.finish();
  // A launch instrumented while kernel tracing was paused has no K line: its I line names it.
  std::unordered_map<std::uint32_t, bool> traced;
  if (!source_records.launches.empty()) {
    for (const LaunchRecord& r : p_.launches) traced[r.correlation] = true;
  }
  for (const auto& [corr, s] : source_records.launches) {
    if (!s.identity || traced.count(corr) != 0) continue;
    LaunchRecord r;
    r.device = s.identity->device;
    r.correlation = corr;
    for (int i = 0; i < 3; ++i) {
      r.grid[i] = s.identity->grid[i];
      r.block[i] = s.identity->block[i];
    }
    const std::uint64_t id = strings_->names.empty() ? 1 : strings_->names.rbegin()->first + 1;
    strings_->names[id] = s.identity->function;
    p_.launches.push_back(r);
    name_ids_.push_back(id);
    range_of_correlation_.try_emplace(corr, s.identity->range);
  }
  const auto& names = strings_->names;
  const auto& ranges = strings_->ranges;
  for (std::size_t i = 0; i < p_.launches.size(); ++i) {
    LaunchRecord& r = p_.launches[i];
    auto n = names.find(name_ids_[i]);
    if (n == names.end())
      throw InputError(what_ + ": kernel name id " + std::to_string(name_ids_[i]) + " is never named");
    r.name = n->second;
    r.pid = p_.pid;
    if (auto m = metrics_of_correlation_.find(r.correlation); m != metrics_of_correlation_.end()) r.metrics = m->second;
    if (auto m = present_of_correlation_.find(r.correlation); m != present_of_correlation_.end())
      r.metrics_present = m->second;
    if (auto w = profile_ns_of_correlation_.find(r.correlation); w != profile_ns_of_correlation_.end())
      r.profile_ns = w->second;
    if (auto c = range_of_correlation_.find(r.correlation); c != range_of_correlation_.end()) {
      if (auto rg = ranges.find(c->second); rg != ranges.end()) r.nvtx_path = rg->second;
    }
  }
  // A launch the watchdog gave up: whatever it wrote when it returned late is not kept (record_file.hpp).
  std::unordered_map<std::uint32_t, bool> given_up;
  for (const GivenUp& g : p_.given_up) given_up[g.correlation] = true;
  for (LaunchRecord& r : p_.launches) {
    if (given_up.count(r.correlation) != 0) {
      r.metrics.clear();
      r.profile_ns = 0;
      continue;
    }
    // No timestamps and not profiled (a profiled launch always has its W line): the record of a kernel that
    // was still running when a forced flush handed it over.
    if (r.start_ns == 0 && r.end_ns == 0 && profile_ns_of_correlation_.count(r.correlation) == 0) r.unfinished = true;
  }
  p_.strings = std::move(strings_);
  auto source = std::make_shared<const SourceRecords>(std::move(source_records));
  for (std::size_t i = 0; i < p_.launches.size() && !source->launches.empty(); ++i) {
    LaunchRecord& r = p_.launches[i];
    if (auto s = source->launches.find(r.correlation); s != source->launches.end()) {
      r.source = &s->second;
      r.unfinished = false;  // tracing paused around it ("quiet"): no end time, and no duration wanted from it
    }
  }
  p_.source = std::move(source);
  attribute_pm(p_);
  return std::move(p_);
}

ProcessRecord parse_process_text(const std::string& text, const std::string& what) {
  ProcessParser parser(what);
  parser.feed(text);
  return parser.finish();
}

struct RecordDirReader::File {
  explicit File(const std::string& file_path) : path(file_path), parser(file_path) {}
  ~File() {
    if (fd >= 0) close(fd);
  }
  std::string path;
  int fd = -1;
  ProcessParser parser;
};

RecordDirReader::RecordDirReader(std::string dir) : dir_(std::move(dir)) {}
RecordDirReader::~RecordDirReader() = default;

void RecordDirReader::poll() {
  DIR* d = opendir(dir_.c_str());
  if (d == nullptr) throw EnvironmentError("cannot read the record folder " + dir_ + ": " + std::strerror(errno));
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n.rfind("process-", 0) == 0 && n.size() > 12 && n.substr(n.size() - 4) == ".txt" && !files_.count(n)) {
      files_.emplace(n, std::make_unique<File>(dir_ + "/" + n));
    }
  }
  closedir(d);
  for (auto& [name, file] : files_) {
    if (file->fd < 0) {
      file->fd = open(file->path.c_str(), O_RDONLY | O_CLOEXEC);
      if (file->fd < 0)
        throw EnvironmentError("cannot read the record file " + file->path + ": " + std::strerror(errno));
    }
    for (;;) {  // what the injection library has written so far; the rest comes at the next poll
      const ssize_t got = read(file->fd, buffer_.data(), buffer_.size());
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw EnvironmentError("cannot read the record file " + file->path + ": " + std::strerror(errno));
      if (got == 0) break;
      file->parser.feed(std::string_view(buffer_.data(), static_cast<std::size_t>(got)));
    }
  }
}

std::vector<ProcessRecord> RecordDirReader::finish() {
  poll();
  std::vector<ProcessRecord> out;
  for (auto& [name, file] : files_) out.push_back(file->parser.finish());
  files_.clear();
  std::sort(out.begin(), out.end(), [](const ProcessRecord& a, const ProcessRecord& b) { return a.pid < b.pid; });
  return out;
}

std::vector<ProcessRecord> read_record_dir(const std::string& dir) { return RecordDirReader(dir).finish(); }

std::string stable_nvtx_path(std::string_view path) {
  constexpr std::string_view kKey = "program_id=";
  std::string out;
  out.reserve(path.size());
  std::size_t i = 0;
  while (i < path.size()) {
    const std::size_t at = path.find(kKey, i);
    // A field: the key right after '#' or ',' and a number that ends at ',' or '#'.
    const bool field = at != std::string_view::npos && at > 0 && (path[at - 1] == ',' || path[at - 1] == '#');
    std::size_t end = at + kKey.size();
    if (field) {
      while (end < path.size() && path[end] >= '0' && path[end] <= '9') ++end;
    }
    if (!field || end == at + kKey.size() || end >= path.size() || (path[end] != ',' && path[end] != '#')) {
      const std::size_t stop = at == std::string_view::npos ? path.size() : at + kKey.size();
      out.append(path.substr(i, stop - i));
      i = stop;
      continue;
    }
    // Drop the field with one separator: ",program_id=7#" -> "#", "#program_id=7,x" -> "#x".
    if (path[at - 1] == ',') {
      out.append(path.substr(i, at - 1 - i));
      i = end;
    } else {
      out.append(path.substr(i, at - i));
      i = path[end] == ',' ? end + 1 : end;
    }
  }
  return out;
}

}  // namespace gpuperf::record
