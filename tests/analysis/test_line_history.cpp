// The history's text for lines collected away from their sources, on a real SQLite file (the PostgreSQL engine
// runs the same body in tests/postgres/test_pg_source_lines.cpp).
#include "tests/analysis/line_history_cases.hpp"

namespace gpuperf::testing {
namespace {

TEST(LineHistory, LinesWithoutTextTakeTheTextOfTheSameLineFromTheHistory) {
  TempDir dir;
  db::Store store(dir.file("history.db"), db::Access::read_write);
  expect_text_from_history(store);
}

}  // namespace
}  // namespace gpuperf::testing
