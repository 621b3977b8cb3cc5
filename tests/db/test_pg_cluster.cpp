// PgCluster, the throwaway PostgreSQL server of the `postgres` tests, against the real server binaries and
// libpq: connection strings, roles and passwords over TCP, a crash and a restart, two at once, cleanup.
#include <libpq-fe.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/support/pg_cluster.hpp"

namespace gpuperf::testing {
namespace {

namespace fs = std::filesystem;

struct ConnDeleter {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
using Conn = std::unique_ptr<PGconn, ConnDeleter>;

// Connects with a connection string; a passfile that does not exist keeps ~/.pgpass out of the tests.
Conn connect(const std::string& conninfo) {
  return Conn(PQconnectdb((conninfo.find("://") != std::string::npos
                               ? conninfo + (conninfo.find('?') == std::string::npos ? "?" : "&") +
                                     "passfile=/nonexistent/gpuperf-pgpass&connect_timeout=10"
                               : conninfo + " passfile=/nonexistent/gpuperf-pgpass connect_timeout=10")
                              .c_str()));
}

std::string connect_error(const std::string& conninfo) {
  Conn conn = connect(conninfo);
  return PQstatus(conn.get()) == CONNECTION_OK ? std::string() : PQerrorMessage(conn.get());
}

// A process that exists and is not a zombie (an orphan's zombie waits for init, which may not reap).
bool process_alive(pid_t pid) {
  if (kill(pid, 0) != 0) return errno != ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, comm, state;
  stat >> pid_field >> comm >> state;
  return state != "Z" && state != "X";
}

// Any process whose command line names the folder (the postmaster's "-D <dir>/data").
bool any_process_names(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const pid_t pid = static_cast<pid_t>(std::atoi(entry.path().filename().c_str()));
    if (pid > 0 && cmdline.find(dir.string() + "/data") != std::string::npos && process_alive(pid)) return true;
  }
  return false;
}

TEST(PgCluster, StartsAndRunsSqlInACreatedDatabase) {
  GPUPERF_REQUIRE_PG();
  const auto t0 = std::chrono::steady_clock::now();
  PgCluster pg;
  const double start_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RecordProperty("start_to_ready_s", std::to_string(start_s));
  std::cout << "start to ready: " << start_s << " s\n";
  ASSERT_TRUE(pg.running());
  EXPECT_GT(pg.port(), 0);
  EXPECT_TRUE(fs::exists(pg.socket_dir() / (".s.PGSQL." + std::to_string(pg.port()))));

  pg.create_database("gpuperf");
  pg.exec("CREATE TABLE t (id int PRIMARY KEY, name text); INSERT INTO t VALUES (1, 'one'), (2, NULL);", "gpuperf");
  const PgCluster::Rows rows = pg.exec("SELECT id, name FROM t ORDER BY id", "gpuperf");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"1", "one"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"2", ""}));
  EXPECT_EQ(pg.query_value("SELECT count(*) FROM t", "gpuperf"), "2");
  // The table is in gpuperf, not in postgres.
  EXPECT_THROW(pg.exec("SELECT * FROM t"), PgClusterError);
  EXPECT_EQ(pg.query_value("SHOW fsync"), "off");

  // Every connection-string form reaches the same database.
  for (const std::string& conninfo :
       {pg.uri("gpuperf"), pg.keywords("gpuperf"), pg.tcp_uri("gpuperf"), pg.tcp_keywords("gpuperf")}) {
    Conn conn = connect(conninfo);
    ASSERT_EQ(PQstatus(conn.get()), CONNECTION_OK) << conninfo << ": " << PQerrorMessage(conn.get());
    EXPECT_STREQ(PQdb(conn.get()), "gpuperf") << conninfo;
  }
  EXPECT_NE(pg.uri("gpuperf").find("postgresql:///gpuperf?host=" + pg.socket_dir().string()), std::string::npos);
}

TEST(PgCluster, RoleWithPasswordAuthenticatesOverTcpAndAWrongOneIsRefused) {
  GPUPERF_REQUIRE_PG();
  PgCluster pg;
  pg.create_database("gpuperf");
  // A password that needs %-encoding in a URI and quoting in a keyword string.
  const std::string password = "p@ss word:'/?";
  pg.create_role("reader", password, "GRANT CONNECT ON DATABASE gpuperf TO reader;");
  pg.exec("CREATE TABLE t (x int); INSERT INTO t VALUES (7); GRANT SELECT ON t TO reader;", "gpuperf");

  EXPECT_EQ(connect_error(pg.tcp_uri("gpuperf", "reader", password)), "");
  EXPECT_EQ(connect_error(pg.tcp_keywords("gpuperf", "reader", password)), "");
  const std::string wrong = connect_error(pg.tcp_uri("gpuperf", "reader", "not-it"));
  EXPECT_NE(wrong.find("password authentication failed for user \"reader\""), std::string::npos) << wrong;
  const std::string none = connect_error(pg.tcp_keywords("gpuperf", "reader", ""));
  EXPECT_NE(none, "") << "TCP without a password must be refused (scram-sha-256)";
  EXPECT_NE(connect_error(pg.tcp_uri("gpuperf", "nobody", "x")), "");
  // The socket trusts: the same role without a password.
  EXPECT_EQ(connect_error(pg.uri("gpuperf", "reader")), "");

  // The privileges hold: reader reads, and may not write.
  Conn conn = connect(pg.tcp_uri("gpuperf", "reader", password));
  ASSERT_EQ(PQstatus(conn.get()), CONNECTION_OK);
  PGresult* read = PQexec(conn.get(), "SELECT x FROM t");
  EXPECT_EQ(PQresultStatus(read), PGRES_TUPLES_OK);
  PQclear(read);
  PGresult* write = PQexec(conn.get(), "INSERT INTO t VALUES (8)");
  EXPECT_EQ(PQresultStatus(write), PGRES_FATAL_ERROR);
  EXPECT_NE(std::string(PQresultErrorMessage(write)).find("permission denied"), std::string::npos);
  PQclear(write);
}

TEST(PgCluster, StopImmediateThenStartKeepsCommittedData) {
  GPUPERF_REQUIRE_PG();
  PgCluster pg;
  pg.create_database("gpuperf");
  pg.exec("CREATE TABLE t (x int); INSERT INTO t SELECT generate_series(1, 1000);", "gpuperf");
  const pid_t first = pg.postmaster_pid();
  const int port = pg.port();

  pg.stop_immediate();
  EXPECT_FALSE(pg.running());
  EXPECT_FALSE(process_alive(first));
  EXPECT_NE(connect_error(pg.uri("gpuperf")), "");
  EXPECT_THROW(pg.exec("SELECT 1"), PgClusterError);

  pg.start();
  ASSERT_TRUE(pg.running());
  EXPECT_EQ(pg.port(), port) << "a restart keeps its port while it is free";
  EXPECT_EQ(pg.query_value("SELECT count(*) FROM t", "gpuperf"), "1000");
  EXPECT_NE(pg.log_tail().find("database system was interrupted"), std::string::npos)
      << "an immediate stop is a crash: the restart runs recovery\n"
      << pg.log_tail();

  pg.stop();  // a clean stop, and a start after it
  pg.start();
  EXPECT_EQ(pg.query_value("SELECT sum(x) FROM t", "gpuperf"), "500500");
}

TEST(PgCluster, TwoClustersAtOnceDoNotCollide) {
  GPUPERF_REQUIRE_PG();
  PgCluster a;
  PgCluster b;
  EXPECT_NE(a.port(), b.port());
  EXPECT_NE(a.socket_dir(), b.socket_dir());
  a.exec("CREATE TABLE only_in_a (x int)");
  EXPECT_EQ(a.query_value("SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'"), "1");
  EXPECT_EQ(b.query_value("SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'"), "0");
  b.stop_immediate();
  EXPECT_EQ(a.query_value("SELECT 1"), "1") << "stopping one leaves the other running";
}

TEST(PgCluster, DestructorLeavesNoProcessNoFolderAndNoListener) {
  GPUPERF_REQUIRE_PG();
  pid_t pid = -1;
  fs::path dir;
  std::string tcp;
  {
    PgCluster pg;
    pid = pg.postmaster_pid();
    dir = pg.dir();
    tcp = pg.tcp_uri();
    Conn open_connection = connect(pg.uri());  // a backend still connected when the cluster goes
    ASSERT_EQ(PQstatus(open_connection.get()), CONNECTION_OK);
    ASSERT_TRUE(process_alive(pid));
    ASSERT_TRUE(any_process_names(dir));
  }
  EXPECT_FALSE(process_alive(pid));
  EXPECT_FALSE(any_process_names(dir));
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_NE(connect_error(tcp), "");
}

TEST(PgCluster, ACrashedTestProcessTakesItsServerDown) {
  GPUPERF_REQUIRE_PG();
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child starts a cluster and dies without running any destructor, as a crashed test would.
    close(pipe_fds[0]);
    auto* pg = new PgCluster();
    const std::string line = std::to_string(pg->postmaster_pid()) + " " + pg->dir().string() + "\n";
    (void)!write(pipe_fds[1], line.data(), line.size());
    _exit(0);
  }
  close(pipe_fds[1]);
  std::string text;
  char buffer[512];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_FALSE(text.empty()) << "the child could not start a cluster";
  const pid_t postmaster = static_cast<pid_t>(std::stol(text));
  const fs::path dir = text.substr(text.find(' ') + 1, text.size() - text.find(' ') - 2);
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = !process_alive(postmaster);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "the postmaster " << postmaster << " outlived its test process";
  std::error_code ec;
  fs::remove_all(dir, ec);  // the folder is what a crash leaves behind
}

// A crashed test leaves its folder (its server died with it); the next cluster removes such folders once
// they are an hour old, and leaves younger ones and ones with a running server's postmaster.pid alone.
TEST(PgCluster, RemovesTheFoldersOfCrashedTestsAnHourLater) {
  GPUPERF_REQUIRE_PG();
  std::vector<fs::path> folders;
  PgCluster probe;  // where clusters go, and who owns them
  const fs::path base = probe.dir().parent_path();
  struct stat st {};
  ASSERT_EQ(stat(probe.dir().c_str(), &st), 0);
  for (const char* kind : {"old", "new", "pid"}) {
    std::string pattern = (base / "gpuperf-pg-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    fs::create_directories(fs::path(pattern) / "data");
    if (std::string(kind) == "pid") std::ofstream(fs::path(pattern) / "data" / "postmaster.pid") << "1\n";
    ASSERT_EQ(chown(pattern.c_str(), st.st_uid, st.st_gid), 0);
    if (std::string(kind) != "new") {
      fs::last_write_time(pattern, fs::file_time_type::clock::now() - std::chrono::hours(2));
    }
    folders.emplace_back(pattern);
  }
  { PgCluster next; }
  EXPECT_FALSE(fs::exists(folders[0])) << "an hour-old crashed cluster's folder stays";
  EXPECT_TRUE(fs::exists(folders[1])) << "a young folder (a cluster being made) was removed";
  EXPECT_TRUE(fs::exists(folders[2])) << "a folder with a postmaster.pid (a server) was removed";
  for (const auto& folder : folders) fs::remove_all(folder);
}

TEST(PgCluster, WithoutTheTemplateCacheRunsInitdbItself) {
  GPUPERF_REQUIRE_PG();
  setenv("GPUPERF_PG_TEMPLATE", "0", 1);
  PgCluster pg;
  unsetenv("GPUPERF_PG_TEMPLATE");
  EXPECT_TRUE(fs::exists(pg.dir() / "initdb.log"));
  pg.create_database("fresh");
  EXPECT_EQ(pg.query_value("SELECT current_database()", "fresh"), "fresh");
}

TEST(PgCluster, AForkedChildLeavesItsParentsServerAlone) {
  GPUPERF_REQUIRE_PG();
  PgCluster pg;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pg.~PgCluster();  // what a child that exits through its destructors (a death test) does
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(fs::exists(pg.dir()));
  EXPECT_EQ(pg.query_value("SELECT 1"), "1");
}

TEST(PgCluster, FsyncOptionTurnsDurabilityOn) {
  GPUPERF_REQUIRE_PG();
  PgClusterOptions durable;
  durable.fsync = true;
  PgCluster pg(durable);
  EXPECT_EQ(pg.query_value("SHOW fsync"), "on");
  EXPECT_EQ(pg.query_value("SHOW full_page_writes"), "on");
}

}  // namespace
}  // namespace gpuperf::testing
