// The history's text for lines collected away from their sources (reports/analysis/line_history.hpp), as one
// body both engines' tests run on a real store: an SQLite file (test_line_history.cpp) and a throwaway
// PostgreSQL server (tests/postgres/test_pg_source_lines.cpp).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "db/store.hpp"
#include "reports/analysis/line_findings.hpp"
#include "reports/analysis/line_history.hpp"
#include "reports/line_text.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::testing {

// A run of `commit` whose first result has 8 lines (10..17); `text_suffix` marks whose text it is, and a run
// collected away from its sources (`with_text` false) has none.
inline Run run_of_commit(const std::string& uuid, const std::string& night, const std::string& commit, bool with_text,
                         const std::string& text_suffix = "") {
  Run r = make_run(uuid, night);
  r.commit = commit;
  r.results[0].source = numbered_source_lines(8);
  for (SourceLine& l : r.results[0].source.lines) l.text = with_text ? l.text + text_suffix : "";
  return r;
}

inline const SourceLine& line_at(const Run& r, std::int64_t number) {
  for (const SourceLine& l : r.results[0].source.lines) {
    if (l.line == number) return l;
  }
  throw std::runtime_error("no line " + std::to_string(number));
}

inline void expect_text_from_history(db::Store& store) {
  // Two runs at their sources (commit c0, then c1, whose edit changed only a comment), then c2 away from them:
  // line 12's code changed (its counters doubled) and line 14 is in another kernel now.
  const Run c0 = run_of_commit("a0000000-0000-4000-8000-000000000001", "2026-11-20T02:00:00Z", "c0", true, " // c0");
  const Run c1 = run_of_commit("a0000000-0000-4000-8000-000000000002", "2026-11-21T02:00:00Z", "c1", true, " // c1");
  Run c2 = run_of_commit("a0000000-0000-4000-8000-000000000003", "2026-11-22T02:00:00Z", "c2", false);
  c2.results[0].source.lines[2].inst_executed *= 2;                 // line 12
  c2.results[0].source.lines[4].function = "other_kernel(float*)";  // line 14
  // And c0 run again away from its sources, its line 12 counting more (another input): the same commit's text.
  Run c0_copy = run_of_commit("a0000000-0000-4000-8000-000000000004", "2026-11-23T02:00:00Z", "c0", false);
  c0_copy.results[0].source.lines[2].inst_executed *= 2;
  const std::int64_t id0 = store.insert_run(c0).run_id, id1 = store.insert_run(c1).run_id;
  const std::int64_t id2 = store.insert_run(c2).run_id, id3 = store.insert_run(c0_copy).run_id;

  // c2: the nearest earlier run's text (c1's) where the line is the same code; none for the edited line nor for
  // the line of another kernel, rather than a text that may be the old one.
  Run away = store.load_run(id2, false);
  EXPECT_EQ(analysis::fill_text_from_history(away, id2, store), 6u);
  EXPECT_EQ(line_at(away, 10).text, line_at(c1, 10).text);
  EXPECT_EQ(line_at(away, 10).text_from_run, id1);
  EXPECT_EQ(line_at(away, 13).text_from_run, id1);  // a helper's line at its call site
  EXPECT_EQ(line_at(away, 12).text, "");
  EXPECT_EQ(line_at(away, 12).text_from_run, 0);
  EXPECT_EQ(line_at(away, 14).text, "");
  // Lines with their own text keep it, and say nothing of the history.
  Run own = store.load_run(id1, false);
  EXPECT_EQ(analysis::fill_text_from_history(own, id1, store), 0u);
  EXPECT_EQ(line_at(own, 10).text_from_run, 0);

  // The same commit's run gives every line its text, the line whose counters moved too; the finding of detect
  // (a change point from c0 to its copy) names it with that text and where it came from.
  std::vector<analysis::ChangePoint> changes(1);
  changes[0].instance = c0.results[0].instance;
  changes[0].previous_run_id = id0;
  changes[0].run_id = id3;
  analysis::attach_line_changes(changes, store);
  ASSERT_EQ(changes[0].lines.size(), 1u);
  const analysis::LineChange& moved = changes[0].lines[0];
  EXPECT_EQ(moved.line.line, 12);
  EXPECT_EQ(moved.line.text, line_at(c0, 12).text);
  EXPECT_EQ(moved.line.text_from_run, id0);
  EXPECT_FALSE(moved.is_new || moved.is_gone || moved.edited);
  const std::string text = reports::line_change_text(moved);
  EXPECT_NE(text.find(line_at(c0, 12).text + "  (text from run " + std::to_string(id0) + ")"), std::string::npos)
      << text;
  EXPECT_EQ(reports::line_changes_json(changes[0].lines)[0]["text_from_run"], id0);

  // Without any stored text (a history collected only away from its sources) nothing is filled.
  Run alone = c2;
  for (SourceLine& l : alone.results[0].source.lines) l.file = "elsewhere/" + l.file;
  EXPECT_EQ(analysis::fill_text_from_history(alone, 0, store), 0u);
}

}  // namespace gpuperf::testing
