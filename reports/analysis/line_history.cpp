#include "reports/analysis/line_history.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/function_key.hpp"
#include "db/source_lines.hpp"
#include "reports/analysis/line_changes.hpp"

namespace gpuperf::analysis {
namespace {

// `runs` without `run_id`, nearest first: the same commit, then earlier ones newest first, then later ones.
std::vector<const db::RunInfo*> runs_to_search(const std::vector<db::RunInfo>& runs, const Run& run,
                                               std::int64_t run_id) {
  std::vector<const db::RunInfo*> out;
  for (const db::RunInfo& r : runs) {
    if (r.id != run_id) out.push_back(&r);
  }
  auto rank = [&](const db::RunInfo* r) {
    const bool same_commit = !run.commit.empty() && r->commit == run.commit;
    const bool earlier = run_id == 0 || r->id < run_id;
    return std::make_tuple(same_commit ? 0 : earlier ? 1 : 2, earlier ? -r->id : r->id);
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const db::RunInfo* a, const db::RunInfo* b) { return rank(a) < rank(b); });
  if (out.size() > kTextHistoryRuns) out.resize(kTextHistoryRuns);
  return out;
}

bool same_counters(const SourceLine& a, const SourceLine& b) {
  for (const db::LineCounter& c : db::kLineCounters) {
    if (count_moved(a.*c.member, b.*c.member)) return false;
  }
  return true;
}

const std::string& key_of(std::map<std::string, std::string>& keys, const std::string& function) {
  auto it = keys.find(function);
  if (it == keys.end()) it = keys.emplace(function, function_key(function)).first;
  return it->second;
}

}  // namespace

const std::vector<SourceLine>& LineTextHistory::lines_of(std::int64_t run_id) {
  auto it = lines_.find(run_id);
  if (it == lines_.end()) it = lines_.emplace(run_id, store_.lines_with_text(run_id)).first;
  return it->second;
}

std::size_t LineTextHistory::fill(Run& run, std::int64_t run_id) {
  std::vector<SourceLine*> wanting;
  for (Result& r : run.results) {
    for (SourceLine& l : r.source.lines) {
      if (l.text.empty() && !l.file.empty() && l.line > 0) wanting.push_back(&l);
    }
  }
  if (wanting.empty()) return 0;
  if (!runs_read_) {
    db::RunFilter all;
    all.include_excluded = true;  // an excluded run's timings are doubtful, its sources' text is not
    runs_ = store_.runs(all);
    runs_read_ = true;
  }
  std::size_t filled = 0;
  for (const db::RunInfo* other : runs_to_search(runs_, run, run_id)) {
    const bool same_commit = !run.commit.empty() && other->commit == run.commit;
    const std::vector<SourceLine>& stored = lines_of(other->id);
    for (SourceLine*& l : wanting) {
      if (l == nullptr) continue;
      const auto text = std::find_if(stored.begin(), stored.end(), [&](const SourceLine& s) {
        if (s.file != l->file || s.line != l->line) return false;
        if (same_commit) return true;  // the same sources
        return s.inlined_at_file == l->inlined_at_file && s.inlined_at_line == l->inlined_at_line &&
               key_of(keys_, s.function) == key_of(keys_, l->function) && same_counters(s, *l);
      });
      if (text == stored.end()) continue;
      l->text = text->text;
      l->text_from_run = other->id;
      l = nullptr;
      ++filled;
    }
    if (filled == wanting.size()) break;
  }
  return filled;
}

std::size_t fill_text_from_history(Run& run, std::int64_t run_id, const db::Store& store) {
  return LineTextHistory(store).fill(run, run_id);
}

}  // namespace gpuperf::analysis
