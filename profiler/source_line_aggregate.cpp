#include "profiler/source_line_aggregate.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>
#include <utility>

#include "core/source_roots.hpp"

namespace gpuperf {
namespace {

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  if (!in) return out;
  for (std::string line; std::getline(in, line);) out.push_back(std::move(line));
  return out;
}

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  const auto end = s.find_last_not_of(" \t\r\n");
  return s.substr(begin, end - begin + 1);
}

struct InstructionKey {
  std::uint32_t crc;
  std::string function;
  std::uint32_t pc;
  bool operator<(const InstructionKey& o) const {
    return std::tie(crc, function, pc) < std::tie(o.crc, o.function, o.pc);
  }
};

// A line's identity: with line info (function, file, line, the call site it was inlined at); without it,
// (function, "", 0, offset). A helper's line inlined at two call sites is two lines: each site's cost.
struct LineKey {
  std::string function;
  std::string file;
  std::int64_t line;
  std::int64_t offset;
  std::string inlined_at_file;
  std::int64_t inlined_at_line;
  bool operator<(const LineKey& o) const {
    return std::tie(function, file, line, offset, inlined_at_file, inlined_at_line) <
           std::tie(o.function, o.file, o.line, o.offset, o.inlined_at_file, o.inlined_at_line);
  }
};

// `path` relative to the nearest enclosing folder that holds `.git` (a checkout or a worktree); "" when the
// file is not here or no such folder encloses it.
std::string checkout_relative(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty() || !fs::is_regular_file(path, ec)) return "";
  const fs::path file = fs::weakly_canonical(fs::path(path), ec);
  if (ec) return "";
  for (fs::path dir = file.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / ".git", ec)) return file.lexically_relative(dir).generic_string();
    if (dir == dir.root_path()) break;
  }
  return "";
}

double at(const std::array<double, kSassCounters>& c, SassCounter k) { return c[static_cast<std::size_t>(k)]; }

}  // namespace

const std::array<const char*, kSassCounters>& sass_counter_names() {
  static const std::array<const char*, kSassCounters> names = {
      "smsp__sass_inst_executed",
      "smsp__sass_thread_inst_executed",
      "smsp__sass_inst_executed_op_global_ld",
      "smsp__sass_inst_executed_op_global_st",
      "smsp__sass_sectors_mem_global",
      "smsp__sass_sectors_mem_global_ideal",
      "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
      "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
      "smsp__sass_sectors_mem_local",
  };
  return names;
}

SourceTextCache::SourceTextCache(std::function<std::vector<std::string>(const std::string&)> read,
                                 std::function<std::string(const std::string&)> shown)
    : read_(read ? std::move(read) : read_lines), shown_of_(std::move(shown)) {}

std::string SourceTextCache::shown_path(const std::string& path) {
  auto it = shown_.find(path);
  if (it == shown_.end()) {
    std::string rel = shown_of_ ? shown_of_(path) : root_relative(path);
    if (rel.empty() && !shown_of_) rel = checkout_relative(path);
    it = shown_.emplace(path, rel.empty() ? path : rel).first;
  }
  return it->second;
}

std::vector<std::string> SourceTextCache::take_missing() {
  std::vector<std::string> out;
  for (const std::string& f : missing_) {
    if (said_.insert(f).second) out.push_back(f);
  }
  return out;
}

std::string SourceTextCache::line(const std::string& path, std::int64_t line) {
  if (path.empty() || line <= 0) return "";
  auto it = files_.find(path);
  if (it == files_.end()) {
    std::vector<std::string> lines = read_(path);
    // Not on this machine: the text the binary carries (the built-in suite's), under its root-relative name.
    if (lines.empty() && !shown_of_) {
      if (const std::vector<std::string>* carried = embedded_source(shown_path(path))) lines = *carried;
    }
    if (lines.empty()) missing_.insert(shown_path(path));
    it = files_.emplace(path, std::move(lines)).first;
  }
  const auto& lines = it->second;
  return static_cast<std::size_t>(line) <= lines.size() ? trim(lines[static_cast<std::size_t>(line) - 1]) : "";
}

SourceLines aggregate_source_lines(const std::vector<cupti::SassValue>& values,
                                   const std::vector<SassCounter>& counter_of, std::int64_t launches,
                                   const LocateFn& locate, SourceTextCache& texts) {
  // Per instruction, every counter (the records come one per instruction and metric).
  std::map<InstructionKey, std::array<double, kSassCounters>> instructions;
  for (const auto& v : values) {
    if (v.metric >= counter_of.size()) continue;
    auto& c = instructions.try_emplace(InstructionKey{v.cubin_crc, v.function, v.pc_offset}).first->second;
    c[static_cast<std::size_t>(counter_of[v.metric])] += static_cast<double>(v.value);
  }

  std::map<LineKey, SourceLine> lines;
  std::set<std::string> without_lines;  // functions some of whose instructions had no line
  std::set<std::string> untracked;      // functions whose cubin was not kept
  for (const auto& [key, c] : instructions) {
    if (std::all_of(c.begin(), c.end(), [](double x) { return x == 0; })) continue;
    const cupti::SassLocation where = locate(key.crc, key.function, key.pc);
    const bool has_line = where.kind == cupti::SassLocation::Kind::line && where.line > 0;
    if (!has_line) {
      (where.kind == cupti::SassLocation::Kind::no_cubin ? untracked : without_lines).insert(key.function);
    }
    LineKey lk{key.function,
               has_line ? where.file : "",
               has_line ? static_cast<std::int64_t>(where.line) : 0,
               has_line ? -1 : static_cast<std::int64_t>(key.pc),
               has_line ? where.inlined_at_file : "",
               has_line ? static_cast<std::int64_t>(where.inlined_at_line) : 0};
    auto [it, fresh] = lines.try_emplace(lk);
    SourceLine& l = it->second;
    if (fresh) {
      l.file = has_line ? texts.shown_path(lk.file) : lk.file;
      l.line = lk.line;
      l.function = key.function;
      l.sass_offset = key.pc;
      if (has_line) l.text = texts.line(lk.file, l.line);  // read where the line table says it is
      if (!lk.inlined_at_file.empty()) {
        l.inlined_at_file = texts.shown_path(lk.inlined_at_file);
        l.inlined_at_line = lk.inlined_at_line;
      }
    }
    l.sass_offset = std::min<std::int64_t>(l.sass_offset, key.pc);
    l.inst_executed += at(c, SassCounter::inst_executed);
    l.thread_inst_executed += at(c, SassCounter::thread_inst_executed);
    l.global_ld_requests += at(c, SassCounter::op_global_ld);
    l.global_st_requests += at(c, SassCounter::op_global_st);
    // One instruction is a load or a store (the sector counters have no per-op form on GH100); atomics and
    // reductions, neither, count with the loads.
    if (at(c, SassCounter::op_global_st) > 0) {
      l.global_st_sectors += at(c, SassCounter::sectors_global);
      l.global_st_sectors_ideal += at(c, SassCounter::sectors_global_ideal);
    } else {
      l.global_ld_sectors += at(c, SassCounter::sectors_global);
      l.global_ld_sectors_ideal += at(c, SassCounter::sectors_global_ideal);
    }
    l.shared_wavefronts += at(c, SassCounter::wavefronts_shared);
    l.shared_wavefronts_ideal += at(c, SassCounter::wavefronts_shared_ideal);
    l.local_sectors += at(c, SassCounter::sectors_local);
  }

  SourceLines out;
  out.status = Status::ok;
  out.launches = launches;
  const double per = launches > 0 ? static_cast<double>(launches) : 1.0;
  for (auto& [key, l] : lines) {
    for (double* c : {&l.inst_executed, &l.thread_inst_executed, &l.global_ld_requests, &l.global_st_requests,
                      &l.global_ld_sectors, &l.global_ld_sectors_ideal, &l.global_st_sectors,
                      &l.global_st_sectors_ideal, &l.shared_wavefronts, &l.shared_wavefronts_ideal, &l.local_sectors}) {
      *c /= per;
    }
    out.lines.push_back(std::move(l));
  }
  out.lines_total = static_cast<std::int64_t>(out.lines.size());
  auto say = [&out](const std::string& s) { out.message += (out.message.empty() ? "" : "; ") + s; };
  for (const auto& f : without_lines) {
    say(f + ": no line info (built without -lineinfo?): per SASS offset");
  }
  for (const auto& f : untracked) {
    say(f + ": its module was loaded before gpuperf followed module loads: per SASS offset");
  }
  // Once per file and text cache (a run's): lines named without their text.
  for (const auto& f : texts.take_missing()) {
    say("no source text for " + f + " (not on this machine, not carried by the binary): its lines have none");
  }
  return out;
}

}  // namespace gpuperf
