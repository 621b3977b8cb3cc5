#include "reports/analysis/line_findings.hpp"

#include "reports/analysis/line_history.hpp"
#include "reports/analysis/run_refs.hpp"

namespace gpuperf::analysis {
const Result* find_result(const Run& run, const BenchmarkInstance& instance) {
  const std::string name = instance.display_name();
  for (const Result& r : run.results) {
    if (r.instance.display_name() == name) return &r;
  }
  return nullptr;
}

namespace {

bool collected(const Result* r) { return r != nullptr && r->source.status == Status::ok && !r->source.lines.empty(); }

}  // namespace

std::vector<LineChange> result_line_changes(const Result* before, const Result* after, std::size_t limit) {
  if (!collected(before) || !collected(after)) return {};
  return changed_lines(before->source.lines, after->source.lines, limit);
}

void attach_line_changes(CompareReport& report, const Run& base, const Run& candidate) {
  for (CompareRow& row : report.rows) {
    if (row.verdict != Verdict::slower && row.verdict != Verdict::faster && row.verdict != Verdict::ambiguous) continue;
    row.lines = result_line_changes(find_result(base, row.instance), find_result(candidate, row.instance));
  }
}

void attach_line_changes(std::vector<ChangePoint>& changes, const db::Store& store) {
  LineTextHistory texts(store);  // lines collected away from their sources: the history's text
  RunCache run(store, [&texts](Run& r, std::int64_t id) { texts.fill(r, id); });
  for (ChangePoint& c : changes) {
    if (c.run_id == 0 || c.previous_run_id == 0) continue;
    c.lines =
        result_line_changes(find_result(run(c.previous_run_id), c.instance), find_result(run(c.run_id), c.instance));
  }
}

}  // namespace gpuperf::analysis
