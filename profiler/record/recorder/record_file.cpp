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
#include "profiler/record/record_codec.hpp"
#include "profiler/record/recorder/pm_attribution.hpp"

namespace gpuperf::record {

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

template <typename Line>
Line ProcessParser::decoded(std::string_view line) {
  Line out;
  if (const char* why = decode(line, out)) throw bad(line, why);
  return out;
}

void ProcessParser::parse_line(std::string_view line) {
  ++lineno_;
  if (line.empty()) return;
  const char kind = line_kind(line);
  switch (kind) {
    case kLineKind<KernelLine>: parse_kernel_line(line); break;
    case kLineKind<MetricsLine>:
    case kLineKind<ValuesLine>:
    case kLineKind<GroupLine>:
    case kLineKind<GroupValuesLine>:
    case kLineKind<OnePassLine>:
    case kLineKind<ProfileTimeLine>: parse_metrics_line(kind, line); break;
    case kLineKind<RankLine>: {
      const RankLine a = decoded<RankLine>(line);
      p_.rank = a.rank;
      p_.local_rank = a.local_rank;
      p_.world_size = a.world_size;
      break;
    }
    case kLineKind<SourceStatusLine>:
    case kLineKind<SourceLineLine>:
    case kLineKind<InstrumentedLine>:
    case kLineKind<SourceStringLine>:
      if (const std::string why = source_.parse(line); !why.empty()) throw bad(line, why.c_str());
      break;
    case kLineKind<EndLine>: p_.complete = true; break;
    case kLineKind<PmMetricsLine>:
    case kLineKind<PmWindowRecord>:
    case kLineKind<PmSample>:
      if (const std::string why = parse_pm_line(kind, line, p_.pm); !why.empty()) throw bad(line, why.c_str());
      break;
    default: parse_process_line(kind, line);
  }
}

// K: one kernel launch.
void ProcessParser::parse_kernel_line(std::string_view line) {
  const KernelLine k = decoded<KernelLine>(line);
  LaunchRecord r;
  r.device = k.device;
  r.context = k.context;
  r.stream = k.stream;
  r.correlation = k.correlation;
  r.start_ns = k.start_ns;
  r.end_ns = k.end_ns;
  for (int i = 0; i < 3; ++i) {
    r.grid[i] = k.grid[i];
    r.block[i] = k.block[i];
  }
  r.graph = k.graph;
  if (r.end_ns == 0 && r.start_ns != 0) {
    r.unfinished = true;  // still running when a forced flush handed its record over
  } else if (r.end_ns < r.start_ns) {
    throw bad(line, "kernel ends before it starts");
  }
  p_.launches.push_back(r);
  name_ids_.push_back(k.name_id);
}

// The metrics' lines: C (names), M (a launch's values), H (a group of them), Q (a launch's values of one
// group), Y (one pass a launch: what was not collected), W (a profiled launch's time).
void ProcessParser::parse_metrics_line(char kind, std::string_view line) {
  switch (kind) {
    case kLineKind<MetricsLine>: {
      std::vector<std::string> names = decoded<MetricsLine>(line).names;
      p_.metric_names.insert(p_.metric_names.end(), names.begin(), names.end());
      break;
    }
    case kLineKind<ValuesLine>: {
      ValuesLine m = decoded<ValuesLine>(line);
      if (m.values.size() != p_.metric_names.size()) throw bad(line, "metric values do not match the C line");
      metrics_of_correlation_[m.correlation] = std::move(m.values);
      break;
    }
    case kLineKind<GroupLine>: {  // a group of the C line's metrics, by index, that a Q line's launch collected
      GroupLine h = decoded<GroupLine>(line);
      for (std::size_t index : h.indices) {
        if (index >= p_.metric_names.size()) throw bad(line, "metric group names a metric the C line does not have");
      }
      if (h.group != p_.metric_groups.size()) {
        throw bad(line, "malformed metric group line (groups are numbered 0, 1, ... in order, each with its metrics)");
      }
      p_.metric_groups.push_back(std::move(h.indices));
      break;
    }
    case kLineKind<GroupValuesLine>: {  // one profiled launch's values of one metric group: the others are absent, not
                                        // zero
      const GroupValuesLine q = decoded<GroupValuesLine>(line);
      if (q.group >= p_.metric_groups.size()) throw bad(line, "group metrics line of a group no H line defined");
      const std::vector<std::size_t>& indices = p_.metric_groups[q.group];
      if (q.values.size() != indices.size()) throw bad(line, "group metric values do not match the H line");
      std::vector<double> values(p_.metric_names.size(), std::nan(""));
      std::vector<bool> present(p_.metric_names.size(), false);
      for (std::size_t k = 0; k < indices.size(); ++k) {
        values[indices[k]] = q.values[k];
        present[indices[k]] = true;
      }
      metrics_of_correlation_[q.correlation] = std::move(values);
      present_of_correlation_[q.correlation] = std::move(present);
      break;
    }
    case kLineKind<OnePassLine>: {  // one pass a launch: the metrics listed need more and were not collected
      if (p_.metric_names.empty()) throw bad(line, "one-pass line before the metrics line (C)");
      const OnePassLine y = decoded<OnePassLine>(line);
      p_.one_pass = true;
      p_.not_collected.assign(p_.metric_names.size(), false);
      for (std::size_t index : y.not_collected) {
        if (index >= p_.metric_names.size()) throw bad(line, "one-pass line names a metric the C line does not have");
        p_.not_collected[index] = true;
      }
      break;
    }
    case kLineKind<ProfileTimeLine>: {
      const ProfileTimeLine w = decoded<ProfileTimeLine>(line);
      profile_ns_of_correlation_[w.correlation] = w.ns;
      break;
    }
  }
}

// The process's own lines: P, names (N) and ranges (R), correlations (E), what was dropped (D), flushed (F)
// and spent (B, T); the rest are parse_outcome_line's.
void ProcessParser::parse_process_line(char kind, std::string_view line) {
  switch (kind) {
    case kLineKind<ProcessLine>: {
      ProcessLine l = decoded<ProcessLine>(line);
      p_.pid = l.pid;
      p_.ppid = l.ppid;
      p_.started_ns = l.started_ns;
      p_.argv0 = std::move(l.argv0);
      break;
    }
    case kLineKind<NameLine>: {
      NameLine l = decoded<NameLine>(line);
      strings_->names[l.id] = std::move(l.name);
      break;
    }
    case kLineKind<RangeLine>: {
      const RangeLine l = decoded<RangeLine>(line);
      strings_->ranges[l.id] = stable_nvtx_path(l.path);
      break;
    }
    case kLineKind<CorrelationLine>: {
      const CorrelationLine l = decoded<CorrelationLine>(line);
      range_of_correlation_[l.correlation] = l.range;
      break;
    }
    case kLineKind<DroppedLine>: p_.dropped += decoded<DroppedLine>(line).count; break;
    case kLineKind<FlushLine>: p_.last_flush_ns = decoded<FlushLine>(line).unix_ns; break;
    case kLineKind<BudgetLine>: p_.profile_budget_spent = decoded<BudgetLine>(line).budget; break;
    case kLineKind<TimeBudgetLine>: p_.profile_time_budget_ms = decoded<TimeBudgetLine>(line).ms; break;
    default: parse_outcome_line(kind, line);
  }
}

// What the library could not do as asked: U (not range-profiled), V (communication), G (the watchdog gave a
// launch up), O (its own time), X (an error), x (a launch's counters lost).
void ProcessParser::parse_outcome_line(char kind, std::string_view line) {
  switch (kind) {
    case kLineKind<UnreplayedLine>: p_.unreplayed = decoded<UnreplayedLine>(line).why; break;
    case kLineKind<CommunicationLine>:
      p_.communication_wait_ms = decoded<CommunicationLine>(line).wait_ms;
      ++p_.communication_busy;
      break;
    case kLineKind<GivenUp>: p_.given_up.push_back(decoded<GivenUp>(line)); break;
    case kLineKind<OwnWork>: p_.own_work.push_back(decoded<OwnWork>(line)); break;
    case kLineKind<ErrorLine>: p_.errors.push_back(decoded<ErrorLine>(line).message); break;
    case kLineKind<ExcludedLine>:
      p_.excluded.push_back(decoded<ExcludedLine>(line).kernel);
      break;                             // kept out of profiling
    case kLineKind<LostCountersLine>: {  // a profiled launch's counters lost and its group given back
      LostCountersLine l = decoded<LostCountersLine>(line);
      if (p_.lost_counters++ == 0) p_.lost_first = std::move(l.why);
      break;
    }
    case kLineKind<FingerprintLine>: {
      FingerprintLine l = decoded<FingerprintLine>(line);
      p_.fingerprints.emplace(std::move(l.name), std::move(l.fingerprint));
      break;
    }
    case kLineKind<LibraryLine>: p_.libraries.push_back(decoded<LibraryLine>(line).path); break;
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
