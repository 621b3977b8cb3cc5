// The store on a real PostgreSQL server (a throwaway cluster of the test's own): the same guarantees as on
// an SQLite file, and the server's own faults (down, a refused login, a role without privileges, another
// program's database, a newer schema).
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "db/import_export.hpp"
#include "db/interchange.hpp"
#include "db/store.hpp"
#include "tests/db/fixtures.hpp"
#include "tests/postgres/pg_database_test.hpp"
#include "tests/support/pg_cluster.hpp"

namespace gpuperf::testing {
namespace {

using db::Access;
using db::Store;

class PgStore : public PgDatabaseTest {};

std::vector<gpuperf::Run> history_runs() {
  return db::read_interchange_file(std::string(GPUPERF_SOURCE_DIR) + "/tests/reports/fixture_history.json");
}

TEST_F(PgStore, AnEmptyDatabaseGetsTheSchemaAndRunsRoundTripAsOnSqlite) {
  std::vector<gpuperf::Run> runs = history_runs();
  ASSERT_GT(runs.size(), 3u);
  // And the two ranks of a recorded distributed job, one without LOCAL_RANK (schema 4).
  runs.push_back(make_ranked_run("dddddddd-0000-4000-8000-000000000001", "2026-11-20T02:00:00Z", 0, 2, 0));
  runs.push_back(make_ranked_run("dddddddd-0000-4000-8000-000000000002", "2026-11-20T02:00:00Z", 1, 2, std::nullopt));
  Store pg(uri(), Access::read_write);
  EXPECT_EQ(pg.opened_version(), 0);
  EXPECT_EQ(pg.schema_version(), Store::kSchemaVersion);
  EXPECT_TRUE(pg.on_server());
  Store lite(":memory:", Access::read_write);
  const auto a = pg.insert_runs(runs);
  const auto b = lite.insert_runs(runs);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].run_id, b[i].run_id) << "run ids are given in the same order";
    EXPECT_TRUE(a[i].inserted);
  }
  for (std::size_t i = 0; i < runs.size(); ++i) expect_same_run(pg.load_run(a[i].run_id), lite.load_run(b[i].run_id));
  EXPECT_EQ(export_all(pg), export_all(lite));
  const auto listed_pg = pg.runs(), listed_lite = lite.runs();
  ASSERT_EQ(listed_pg.size(), listed_lite.size());
  for (std::size_t i = 0; i < listed_pg.size(); ++i) {
    EXPECT_EQ(listed_pg[i].rank, listed_lite[i].rank);
    EXPECT_EQ(listed_pg[i].local_rank, listed_lite[i].local_rank);
    EXPECT_EQ(listed_pg[i].world_size, listed_lite[i].world_size);
  }
  EXPECT_EQ(listed_pg.back().rank, 1);
  EXPECT_EQ(listed_pg.back().world_size, 2);
  EXPECT_FALSE(listed_pg.back().local_rank.has_value());
  // A rank the schema cannot hold is refused before anything is sent, with the same words as on SQLite.
  gpuperf::Run bad = make_ranked_run("dddddddd-0000-4000-8000-000000000003", "2026-11-20T02:00:00Z", 2, 2, 0);
  std::string said_pg, said_lite;
  try {
    pg.insert_run(bad);
  } catch (const InputError& e) {
    said_pg = e.what();
  }
  try {
    lite.insert_run(bad);
  } catch (const InputError& e) {
    said_lite = e.what();
  }
  EXPECT_NE(said_pg.find("rank 2 is not below world_size 2"), std::string::npos) << said_pg;
  EXPECT_EQ(said_pg, said_lite);
  const db::DbInfo info = pg.info();
  EXPECT_EQ(info.engine, "postgresql");
  EXPECT_EQ(info.runs, static_cast<std::int64_t>(runs.size()));
  EXPECT_EQ(info.samples, lite.info().samples);
  EXPECT_TRUE(pg.check().ok);
  // The history the analysis reads, point for point.
  db::HistoryFilter f;
  f.with_samples = true;
  const auto hp = pg.history(f), hl = lite.history(f);
  ASSERT_EQ(hp.size(), hl.size());
  for (std::size_t i = 0; i < hp.size(); ++i) {
    EXPECT_EQ(hp[i].key.instance.display_name(), hl[i].key.instance.display_name());
    EXPECT_EQ(hp[i].key.metric.name, hl[i].key.metric.name);
    ASSERT_EQ(hp[i].points.size(), hl[i].points.size());
    for (std::size_t j = 0; j < hp[i].points.size(); ++j) {
      EXPECT_EQ(hp[i].points[j].run_uuid, hl[i].points[j].run_uuid);
      EXPECT_EQ(hp[i].points[j].summary.median, hl[i].points[j].summary.median);
      EXPECT_EQ(hp[i].points[j].samples, hl[i].points[j].samples);
    }
  }
}

TEST_F(PgStore, AStoredUuidIsSkippedAndReferencesResolveAsOnSqlite) {
  const std::vector<gpuperf::Run> runs = history_runs();
  Store pg(uri(), Access::read_write);
  pg.insert_runs(runs);
  const std::int64_t samples = pg.info().samples;
  const auto again = pg.insert_runs(runs);
  for (const auto& o : again) EXPECT_FALSE(o.inserted);
  EXPECT_EQ(pg.info().samples, samples);
  EXPECT_EQ(pg.info().runs, static_cast<std::int64_t>(runs.size()));
  // Run references resolve as on a file: ids, uuids, unique and ambiguous prefixes, commits.
  Store lite(":memory:", Access::read_write);
  lite.insert_runs(runs);
  const auto& last = runs.back();
  ASSERT_GE(last.commit.size(), 7u);
  for (const std::string& ref : {last.uuid, last.uuid.substr(0, 30), std::string("3"), last.commit.substr(0, 7),
                                 last.commit, std::string("deadbeefdead"), runs.front().uuid.substr(0, 9)}) {
    std::string a, b;
    try {
      auto found = pg.find_run(ref);
      a = found ? found->uuid : "none";
    } catch (const InputError& e) {
      a = e.what();
    }
    try {
      auto found = lite.find_run(ref);
      b = found ? found->uuid : "none";
    } catch (const InputError& e) {
      b = e.what();
    }
    EXPECT_EQ(a, b) << ref;
  }
  EXPECT_EQ(pg.latest_run("main")->uuid, lite.latest_run("main")->uuid);
  pg.set_excluded(1, true, "noisy neighbour");
  EXPECT_TRUE(pg.runs().front().excluded);
  EXPECT_EQ(pg.runs().front().exclude_reason, "noisy neighbour");
  db::RunFilter only_kept;
  only_kept.include_excluded = false;
  EXPECT_EQ(pg.runs(only_kept).size(), runs.size() - 1);
  EXPECT_THROW(pg.set_excluded(999, true, "x"), InputError);
}

TEST_F(PgStore, ANewerSchemaAndAnotherProgramsDatabaseAreRefusedUntouched) {
  { Store pg(uri(), Access::read_write); }
  cluster_->exec("UPDATE schema_version SET version = 99", "gpuperf");
  try {
    Store again(uri(), Access::read_write);
    FAIL() << "a newer schema was opened";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99, newer than this gpuperf supports"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(cluster_->query_value("SELECT version FROM schema_version", "gpuperf"), "99");

  cluster_->create_database("other");
  cluster_->exec("CREATE TABLE invoices(id integer)", "other");
  try {
    Store foreign(cluster_->uri("other"), Access::read_write);
    FAIL() << "another program's database was taken";
  } catch (const InputError& e) {
    EXPECT_EQ(e.exit_code(), kExitUsage);
    EXPECT_NE(std::string(e.what()).find("another program"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cluster_->query_value("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", "other"), "1");

  cluster_->create_database("empty");
  try {
    Store reader(cluster_->uri("empty"), Access::read_only);
    FAIL() << "an empty database was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a gpuperf database yet"), std::string::npos) << e.what();
  }
}

TEST_F(PgStore, AServerThatIsDownIsNamedWithHostAndPortWithinTheTimeout) {
  const std::string location = cluster_->tcp_uri("gpuperf");
  const int port = cluster_->port();
  cluster_->stop();
  const auto t0 = std::chrono::steady_clock::now();
  try {
    Store s(location, Access::read_only);
    FAIL() << "connected to a stopped server";
  } catch (const EnvironmentError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("127.0.0.1"), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(port)), std::string::npos) << what;
    EXPECT_EQ(what.find(PgCluster::superuser_password()), std::string::npos) << what;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(15));
}

TEST_F(PgStore, AWrongPasswordSaysWhichUserAndNeverShowsThePassword) {
  const std::string location = cluster_->tcp_uri("gpuperf", PgCluster::kSuperuser, "not-the-password");
  try {
    Store s(location, Access::read_only);
    FAIL() << "a wrong password was accepted";
  } catch (const EnvironmentError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("password authentication failed for user \"postgres\""), std::string::npos) << what;
    EXPECT_EQ(what.find("not-the-password"), std::string::npos) << what;
  }
  Store ok(cluster_->tcp_uri("gpuperf"), Access::read_write);
  EXPECT_EQ(ok.path().find(PgCluster::superuser_password()), std::string::npos) << ok.path();
  EXPECT_NE(ok.path().find("postgresql://postgres@127.0.0.1:"), std::string::npos) << ok.path();
}

TEST_F(PgStore, AReaderRoleReadsAndIsRefusedWritesNamingThePrivilege) {
  {
    Store admin(uri(), Access::read_write);
    admin.insert_runs(history_runs());
  }
  cluster_->create_role("dashboard", "pw",
                        "GRANT CONNECT ON DATABASE gpuperf TO dashboard; GRANT USAGE ON SCHEMA public TO dashboard; "
                        "GRANT SELECT ON ALL TABLES IN SCHEMA public TO dashboard;",
                        "gpuperf");
  const std::string as_reader = cluster_->tcp_uri("gpuperf", "dashboard", "pw");
  Store reader(as_reader, Access::read_only);
  EXPECT_FALSE(reader.runs().empty());
  EXPECT_FALSE(reader.history({}).empty());
  try {
    Store writer(as_reader, Access::read_write);
    FAIL() << "a reader opened the database for writing";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitEnvironment);
    EXPECT_NE(std::string(e.what()).find("lacks INSERT on table machine"), std::string::npos) << e.what();
  }
}

TEST_F(PgStore, TheHistoryUpToARunIsTheSameAsOnSqlite) {
  const std::vector<gpuperf::Run> runs = history_runs();
  Store pg(uri(), Access::read_write);
  Store lite(":memory:", Access::read_write);
  pg.insert_runs(runs);
  lite.insert_runs(runs);
  for (std::int64_t cut : {std::int64_t{1}, static_cast<std::int64_t>(runs.size() / 2)}) {
    db::HistoryFilter f;
    f.up_to_run_id = cut;
    f.last_runs = 3;
    const auto hp = pg.history(f), hl = lite.history(f);
    ASSERT_EQ(hp.size(), hl.size()) << "up to run " << cut;
    for (std::size_t i = 0; i < hp.size(); ++i) {
      ASSERT_EQ(hp[i].points.size(), hl[i].points.size());
      for (std::size_t j = 0; j < hp[i].points.size(); ++j) {
        EXPECT_EQ(hp[i].points[j].run_id, hl[i].points[j].run_id);
        EXPECT_LE(hp[i].points[j].run_id, cut);
      }
    }
  }
}

TEST_F(PgStore, ARunKeyIsHeldUntilItsHolderCloses) {
  // Two jobs given one run key: the second waits while the first holds it (measures and stores), and goes on
  // the moment the first's connection closes. Another key is not held up.
  const std::string key = "00000000-0000-8000-8000-0000000000aa";
  auto first = std::make_unique<Store>(uri(), Access::read_write);
  bool first_waited = false;
  first->hold_run_key(key, [&] { first_waited = true; });
  EXPECT_FALSE(first_waited);
  {
    Store other(uri(), Access::read_only);
    bool waited = false;
    other.hold_run_key("00000000-0000-8000-8000-0000000000bb", [&] { waited = true; });
    EXPECT_FALSE(waited) << "another key waits for nobody";
  }
  std::atomic<bool> waiting{false}, holding{false};
  std::thread second([&] {
    Store s(uri(), Access::read_only);  // a read-only session may hold a key too
    s.hold_run_key(key, [&] { waiting = true; });
    holding = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!waiting && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(waiting) << "the second holder was not told it waits";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(holding) << "the second holder went on while the first held the key";
  first.reset();  // the first job stored its run and ended, or died: its connection closes
  second.join();
  EXPECT_TRUE(holding);
}

TEST_F(PgStore, ConcurrentWritersLoseAndDuplicateNothing) {
  // 8 processes store the same 12 runs each (6 of their own, 6 shared): every run once, whole.
  constexpr int kWriters = 8, kOwn = 6;
  std::vector<pid_t> kids;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      try {
        Store s(uri(), Access::read_write);
        for (int i = 0; i < kOwn * 2; ++i) {
          const bool shared = i % 2 == 1;
          const int n = shared ? i : w * 100 + i;
          char uuid[64];
          std::snprintf(uuid, sizeof uuid, "00000000-0000-4000-8000-%012d", n);
          s.insert_run(make_run(uuid, "2026-11-01T02:00:" + std::string(i < 10 ? "0" : "") + std::to_string(i) + "Z"));
        }
        _exit(0);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d: %s\n", w, e.what());
        _exit(1);
      }
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  Store s(uri(), Access::read_only);
  const auto runs = s.runs();
  std::set<std::string> uuids;
  for (const auto& r : runs) uuids.insert(r.uuid);
  EXPECT_EQ(runs.size(), static_cast<std::size_t>(kWriters * kOwn + kOwn));
  EXPECT_EQ(uuids.size(), runs.size());
  EXPECT_TRUE(s.check().ok);
}

// `db prune`: the samples of runs before the cutoff go on both engines alike, each result keeping its
// summary; the history the analysis reads is unchanged, a counter's single value stays, a dry run changes
// nothing, and an export of a pruned run imports again with its summary.
TEST_F(PgStore, PruningSamplesKeepsEverySummaryAsOnSqlite) {
  const std::vector<gpuperf::Run> runs = history_runs();
  Store pg(uri(), Access::read_write);
  Store lite(":memory:", Access::read_write);
  pg.insert_runs(runs);
  lite.insert_runs(runs);
  const std::string cutoff = runs[runs.size() / 2].started_at;
  db::HistoryFilter f;
  f.include_failed = f.include_excluded = true;
  const auto before = lite.history(f);
  const std::int64_t samples_before = lite.info().samples;
  for (Store* s : {&pg, &lite}) {
    const db::PruneReport dry = s->prune_samples(cutoff, /*dry_run=*/true);
    EXPECT_TRUE(dry.dry_run);
    EXPECT_GT(dry.runs, 0);
    EXPECT_GT(dry.samples, dry.results);  // several samples a result
    EXPECT_EQ(dry.samples + dry.samples_left, samples_before);
    EXPECT_EQ(s->info().samples, samples_before) << "a dry run removes nothing";
    const db::PruneReport done = s->prune_samples(cutoff, /*dry_run=*/false);
    EXPECT_EQ(done.samples, dry.samples);
    EXPECT_EQ(done.results, dry.results);
    EXPECT_EQ(s->info().samples, dry.samples_left);
    EXPECT_EQ(s->prune_samples(cutoff, false).samples, 0) << "a second prune finds nothing";
    EXPECT_TRUE(s->check().ok);
  }
  EXPECT_THROW(pg.prune_samples("yesterday", true), InputError);
  // The history's points and summaries are as before the prune, on both engines.
  for (Store* s : {&pg, &lite}) {
    const auto after = s->history(f);
    ASSERT_EQ(after.size(), before.size());
    for (std::size_t i = 0; i < after.size(); ++i) {
      ASSERT_EQ(after[i].points.size(), before[i].points.size());
      for (std::size_t j = 0; j < after[i].points.size(); ++j) {
        EXPECT_EQ(after[i].points[j].summary.n, before[i].points[j].summary.n);
        EXPECT_EQ(after[i].points[j].summary.median, before[i].points[j].summary.median);
        EXPECT_EQ(after[i].points[j].summary.q3, before[i].points[j].summary.q3);
      }
    }
  }
  // An old run: no samples where there were several, the single values kept; the same on both engines.
  const auto old_runs = lite.runs();
  const gpuperf::Run old_pg = pg.load_run(old_runs.front().id), old_lite = lite.load_run(old_runs.front().id);
  expect_same_run(old_pg, old_lite);
  std::size_t pruned = 0, single = 0;
  for (const auto& r : old_lite.results) {
    for (const auto& m : r.metrics) {
      if (m.summary.n > 1) {
        EXPECT_TRUE(m.samples.empty()) << m.metric.name;
        ++pruned;
      } else if (m.summary.n == 1) {
        EXPECT_EQ(m.samples.size(), 1u) << m.metric.name;
        ++single;
      }
    }
  }
  EXPECT_GT(pruned, 0u);
  EXPECT_GT(single, 0u);
  // A newer run keeps its samples.
  const gpuperf::Run newest = pg.load_run(old_runs.back().id);
  EXPECT_FALSE(newest.results.front().metrics.front().samples.empty());
  // Export and import again: the pruned run's summaries come back.
  const std::string exported = export_all(pg);
  EXPECT_NE(exported.find("\"samples_pruned\":true"), std::string::npos);
  TempDir dir;
  write_bytes(dir.file("pruned.json"), exported);
  Store again(":memory:", Access::read_write);
  again.insert_runs(db::read_interchange_file(dir.file("pruned.json")));
  EXPECT_EQ(export_all(again), exported);
}

}  // namespace
}  // namespace gpuperf::testing
