// A team's answers on the PostgreSQL engine: the same checks as on SQLite (tests/db/answers_checks.hpp).
#include "tests/db/answers_checks.hpp"
#include "tests/postgres/pg_database_test.hpp"

namespace gpuperf::testing {
namespace {

using PgAnswers = PgDatabaseTest;

TEST_F(PgAnswers, AcknowledgeUndoAndAnnotate) {
  db::Store s(uri());
  check_answers(s);
}

}  // namespace
}  // namespace gpuperf::testing
