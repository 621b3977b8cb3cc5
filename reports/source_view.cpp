#include "reports/source_view.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "db/source_lines.hpp"
#include "reports/analysis/line_history.hpp"

namespace gpuperf::reports {

std::vector<InstanceSource> load_instance_sources(const db::Store& store, const std::vector<db::RunInfo>& runs) {
  // Each machine's newest run, compared with the oldest of the window: what moved over the window.
  std::map<std::int64_t, std::vector<const db::RunInfo*>> per_machine;
  for (const auto& r : runs) per_machine[r.machine_id].push_back(&r);
  std::vector<InstanceSource> out;
  for (auto& [id, list] : per_machine) {
    std::sort(list.begin(), list.end(), [](const db::RunInfo* a, const db::RunInfo* b) {
      return std::tie(a->started_at, a->id) > std::tie(b->started_at, b->id);
    });
    Run newest = store.load_run(list[0]->id, false);
    Run previous = list.size() > 1 ? store.load_run(list.back()->id, false) : Run{};
    analysis::LineTextHistory texts(store);  // lines collected away from their sources: the history's text
    texts.fill(newest, list[0]->id);
    if (list.size() > 1) texts.fill(previous, list.back()->id);
    std::map<std::string, const Result*> before;
    for (const Result& r : previous.results) before[r.instance.display_name()] = &r;
    for (const Result& r : newest.results) {
      if (!db::has_source_lines(r.source)) continue;
      InstanceSource s;
      s.fingerprint = list[0]->fingerprint;
      s.instance = r.instance;
      s.commit = newest.commit;
      s.source = r.source;
      auto b = before.find(r.instance.display_name());
      if (b != before.end() && b->second->source.status == Status::ok && r.source.status == Status::ok) {
        s.previous_commit = previous.commit;
        s.changed = analysis::changed_lines(b->second->source.lines, r.source.lines);
      }
      out.push_back(std::move(s));
    }
  }
  return out;
}

std::vector<const SourceLine*> heaviest_lines(const SourceLines& source, std::size_t top) {
  std::vector<const SourceLine*> by_inst;
  for (const SourceLine& l : source.lines) by_inst.push_back(&l);
  std::stable_sort(by_inst.begin(), by_inst.end(),
                   [](const SourceLine* a, const SourceLine* b) { return a->inst_executed > b->inst_executed; });
  std::vector<const SourceLine*> out;
  for (std::size_t i = 0; i < by_inst.size(); ++i) {
    if (i < top || db::excess_sectors(*by_inst[i]) > 0) out.push_back(by_inst[i]);
  }
  std::stable_sort(out.begin(), out.end(), [](const SourceLine* a, const SourceLine* b) {
    return std::tie(a->file, a->line, a->sass_offset) < std::tie(b->file, b->line, b->sass_offset);
  });
  return out;
}

const analysis::LineChange* change_of(const std::vector<analysis::LineChange>& changed, const SourceLine& line) {
  for (const auto& c : changed) {
    if (!c.is_gone && c.line.file == line.file && c.line.line == line.line && c.line.function == line.function &&
        c.line.sass_offset == line.sass_offset) {
      return &c;
    }
  }
  return nullptr;
}

}  // namespace gpuperf::reports
