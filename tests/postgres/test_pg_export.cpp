// Export of a PostgreSQL history, which streams the samples by binary COPY (db/postgres/read_stream.cpp):
// byte for byte SQLite's export of the same runs, across several COPYs and with everything a history holds
// (SM clocks, single values, pruned and excluded runs, recorded programs); and the server going away
// mid-stream is a clear error with exit code 3 that leaves no file behind.
#include <algorithm>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "db/import_export.hpp"
#include "db/interchange.hpp"
#include "db/postgres/connection.hpp"
#include "db/postgres/copy_binary.hpp"
#include "db/store.hpp"
#include "tests/db/fixtures.hpp"
#include "tests/postgres/pg_database_test.hpp"

namespace gpuperf::testing {
namespace {

using db::Access;
using db::Store;

class PgExport : public PgDatabaseTest {};

// `n` nightly runs of 172 instances: make_run's two plus 170 with five duration samples each (values that
// are not exact in binary, so a double that lost a bit shows), SM clocks on every third; every fifth run a
// recorded program instead (single values). 30 such runs are ~5,000 results: more than one COPY's worth.
std::vector<gpuperf::Run> many_runs(int n) {
  std::vector<gpuperf::Run> runs;
  for (int i = 0; i < n; ++i) {
    char uuid[40], day[32];
    std::snprintf(uuid, sizeof uuid, "%08x-0000-4000-8000-%012d", 0xe0000000u + static_cast<unsigned>(i), i);
    std::snprintf(day, sizeof day, "2026-10-%02dT%02d:00:00Z", 1 + i % 28, 2 + i / 28);
    const std::string started = day;
    if (i % 5 == 4) {
      runs.push_back(make_recorded_run(uuid, started));
      continue;
    }
    gpuperf::Run run = make_run(uuid, started, "main", 1.0 + i / 7.0);
    for (int k = 0; k < 170; ++k) {
      gpuperf::Result r;
      r.instance = BenchmarkInstance{"bulk/k" + std::to_string(k), {{"n", std::int64_t{k}}}};
      std::vector<double> v;
      for (int s = 0; s < 5; ++s) v.push_back((100.0 + k + i * 0.01 + s) / 3.0);
      Measurement m = duration(v);
      if (k % 3 == 0) m.sm_clock_mhz = {1980, 1965.5, 1755, 1980, 1410};
      r.metrics.push_back(std::move(m));
      run.results.push_back(std::move(r));
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

// Both engines with the same runs, one excluded and the oldest pruned: what a year-old team history holds.
void fill(Store& pg, Store& lite, const std::vector<gpuperf::Run>& runs) {
  for (Store* s : {&pg, &lite}) {
    const auto stored = s->insert_runs(runs);
    s->set_excluded(stored[std::min<std::size_t>(3, stored.size() - 1)].run_id, true, "a broken node");
    s->prune_samples("2026-10-04T00:00:00Z", false);
  }
}

TEST_F(PgExport, AMultiRunHistoryExportsByteForByteAsSqlitesAcrossSeveralCopies) {
  const auto runs = many_runs(30);
  Store pg(uri(), Access::read_write);
  Store lite(":memory:", Access::read_write);
  fill(pg, lite, runs);
  ASSERT_GT(lite.info().samples, 15000);
  const std::string from_pg = export_all(pg), from_lite = export_all(lite);
  EXPECT_GT(from_pg.size(), 500000u);
  EXPECT_TRUE(from_pg == from_lite) << "the PostgreSQL export differs from SQLite's";
  EXPECT_NE(from_pg.find("\"samples_pruned\":true"), std::string::npos);
  EXPECT_NE(from_pg.find("\"sm_clock_mhz\":[1980.0,1965.5,1755.0,1980.0,1410.0]"), std::string::npos);
  EXPECT_NE(from_pg.find("\"exclude_reason\":\"a broken node\""), std::string::npos);
  // And the same as each run read alone (load_run, which every other command uses).
  std::ostringstream one_by_one;
  db::InterchangeWriter w(one_by_one);
  for (const auto& r : pg.runs()) w.add(pg.load_run(r.id));
  w.finish();
  EXPECT_TRUE(one_by_one.str() == from_pg);
  // A subset in a chosen order, as `export --run B --run A` gives it.
  const auto listed = pg.runs();
  const std::vector<std::int64_t> some = {listed[29].id, listed[0].id, listed[12].id};
  std::ostringstream a, b;
  EXPECT_EQ(db::export_runs(pg, some, a), 3u);
  db::export_runs(lite, some, b);
  EXPECT_TRUE(a.str() == b.str());
}

TEST_F(PgExport, AnEmptyHistoryAndRunsWithoutSamplesExportAsOnSqlite) {
  Store pg(uri(), Access::read_write);
  Store lite(":memory:", Access::read_write);
  EXPECT_EQ(export_all(pg), export_all(lite));
  // Every run pruned: of ~520 results only the three single values (a counter a run) send a row.
  fill(pg, lite, many_runs(3));
  for (Store* s : {&pg, &lite}) s->prune_samples("2027-01-01T00:00:00Z", false);
  EXPECT_EQ(pg.info().samples, 3);
  EXPECT_TRUE(export_all(pg) == export_all(lite));
}

// Stops the server as soon as the export writes its first run: the rest of the export must fail.
class StopServerOnFirstRun : public std::streambuf {
 public:
  explicit StopServerOnFirstRun(PgCluster& cluster) : cluster_(cluster) {}
  std::string text;

 protected:
  int overflow(int c) override {
    if (c != traits_type::eof()) text.push_back(static_cast<char>(c));
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    text.append(s, static_cast<std::size_t>(n));
    if (!stopped_ && text.find("\"uuid\"") != std::string::npos) {
      stopped_ = true;
      cluster_.stop_immediate();
    }
    return n;
  }

 private:
  PgCluster& cluster_;
  bool stopped_ = false;
};

TEST_F(PgExport, TheServerGoingAwayMidExportIsAClearErrorWithExitCode3) {
  Store pg(uri(), Access::read_write);
  pg.insert_runs(many_runs(30));
  std::vector<std::int64_t> ids;
  for (const auto& r : pg.runs()) ids.push_back(r.id);
  StopServerOnFirstRun buf(*cluster_);
  std::ostream out(&buf);
  try {
    db::export_runs(pg, ids, out);
    FAIL() << "the export finished without its server";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitEnvironment) << e.what();
    EXPECT_NE(std::string(e.what()).find("was lost"), std::string::npos) << e.what();
  }
  EXPECT_EQ(buf.text.find("\n]}"), std::string::npos) << "a cut-short export must not look complete";
}

TEST_F(PgExport, AFailedExportToAFileLeavesNoFile) {
  TempDir dir;
  Store pg(uri(), Access::read_write);
  pg.insert_runs(many_runs(2));
  std::vector<std::int64_t> ids;
  for (const auto& r : pg.runs()) ids.push_back(r.id);
  cluster_->stop_immediate();
  try {
    db::export_runs_to_file(pg, ids, dir.file("history.json"));
    FAIL() << "the export finished without its server";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitEnvironment) << e.what();
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "neither the file nor its temporary is left";
}

// The COPY itself cut off mid-stream: the server ends the connection after 50,000 of 100,000 rows. The rows
// before arrive, then the lost connection is the error, never a short answer.
TEST_F(PgExport, ACopyCutOffMidStreamIsALostConnectionAfterTheRowsThatCame) {
  db::pg::Connection c(uri(), "gpuperf test");
  db::pg::CopyBinaryDecoder decoder;
  std::vector<db::pg::CopyField> fields;
  std::int64_t last = 0;
  try {
    c.copy_out(
        "COPY (SELECT g::bigint, CASE WHEN g = 50000 THEN pg_terminate_backend(pg_backend_pid()) END "
        "FROM generate_series(1, 100000) g) TO STDOUT (FORMAT binary)",
        [&](std::string_view piece) {
          decoder.feed(piece);
          while (decoder.next(fields)) last = fields[0].int8();
        },
        "streaming rows");
    FAIL() << "the COPY finished although its server process ended";
  } catch (const db::pg::PgError& e) {
    EXPECT_EQ(e.exit_code(), kExitEnvironment) << e.what();
    EXPECT_NE(std::string(e.what()).find("was lost while streaming rows"), std::string::npos) << e.what();
  }
  EXPECT_GT(last, 1000);
  EXPECT_LE(last, 50000);  // the row that ended it may still come
  EXPECT_FALSE(decoder.ended());
  EXPECT_THROW(decoder.finish(), db::pg::CopyFormatError);
}

}  // namespace
}  // namespace gpuperf::testing
