// A recorded program's verdict (reports/analysis/program_change.hpp) on a real PostgreSQL server: the program's
// line is judged over the recordings the server holds, as on an SQLite file, with the same JSON.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "db/interchange.hpp"
#include "tests/analysis/program_history.hpp"
#include "tests/cli/cli_runner.hpp"
#include "tests/postgres/pg_database_test.hpp"

namespace gpuperf::testing {
namespace {

using nlohmann::json;

class PgProgram : public PgDatabaseTest {};

TEST_F(PgProgram, TheProgramsLineIsJudgedOverTheServersRecordingsAsOverAFile) {
  std::vector<gpuperf::Run> runs = decoder_base_runs();
  runs.push_back(decoder_run(3, "bbbb000000000000000000000000000000000000", "feature",
                             replaced(decoder_kernels(), kFlash, {{kBmm, 7e6, 32}, {kSoftmax, 3e6, 16}})));
  TempDir dir;
  write_bytes(dir.file("history.json"), db::to_interchange(runs));
  const std::string file = dir.file("gp.db");
  for (const std::string& db : {uri(), file}) {
    const CliResult r = run_gpuperf({"--db", db, "--quiet", "import", dir.file("history.json")}, dir.path().string());
    ASSERT_EQ(r.code, 0) << r.err;
  }
  const std::vector<std::string> args = {"compare", "dec0de00-0000-4000-8000-000000000002",
                                         "dec0de00-0000-4000-8000-000000000003", "--format", "json"};
  std::vector<json> programs;
  for (const std::string& db : {uri(), file}) {
    std::vector<std::string> a = {"--db", db};
    a.insert(a.end(), args.begin(), args.end());
    const CliResult r = run_gpuperf(a, dir.path().string());
    ASSERT_EQ(r.code, 0) << r.out << r.err;  // a gone kernel and the ungated program time do not fail
    programs.push_back(json::parse(r.out)["program"]);
  }
  EXPECT_EQ(programs[0]["verdict"], "slower");
  EXPECT_EQ(programs[0]["base_runs"].size(), 3u);
  EXPECT_EQ(programs[0]["replacements"].size(), 1u);
  EXPECT_EQ(programs[0], programs[1]);
  std::vector<std::string> gated = {"--db", uri()};
  gated.insert(gated.end(), args.begin(), args.end());
  gated.insert(gated.end(), {"--gate", "program_time"});
  EXPECT_EQ(run_gpuperf(gated, dir.path().string()).code, 1);
}

}  // namespace
}  // namespace gpuperf::testing
