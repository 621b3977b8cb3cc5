// A throwaway PostgreSQL server for tests and benchmarks: initdb into a temporary folder, a postmaster on a
// Unix socket in that folder and on 127.0.0.1 at a free port, removed with everything when the object dies.
// It uses the real server binaries (Debian: /usr/lib/postgresql/<major>/bin) and libpq, never gpuperf's
// store, so the engine's tests can trust it.
//
// Authentication: trust on the socket (any role, no password), scram-sha-256 on TCP (the superuser
// `postgres` has the password superuser_password()). As root (CI, containers) the server runs as the
// `postgres` user, which initdb needs; the folder is owned by it. Otherwise it runs as the current user.
//
// The postmaster is a child of this process with PR_SET_PDEATHSIG: when the process dies (a crash, a ctest
// timeout's SIGKILL) the server shuts down with it; only the folder stays behind then. Construct a cluster
// on a thread that outlives it (the test's main thread), as the signal follows the creating thread.
//
// In a test (link gpuperf_test_pg, label the test `postgres`):
//   TEST(PgStore, ImportsARun) {
//     GPUPERF_REQUIRE_PG();            // skip with the reason here, fail when CI is set
//     PgCluster pg;                    // ~1.5 s on a loaded 2-core machine, from a cached initdb template
//     pg.create_database("gpuperf");
//     run_the_store_on(pg.uri("gpuperf"));  // or pg.tcp_uri(...) to name host and port
//     ...
//     pg.stop_immediate(); pg.start();  // a crash and a restart, same data and port
//     EXPECT_EQ(pg.query_value("SELECT count(*) FROM runs", "gpuperf"), "1");
//   }
// The environment: GPUPERF_PG_BINDIR (where initdb, pg_ctl, postgres are), GPUPERF_PG_TEMPLATE=0 (initdb per
// cluster, no cached template in /tmp), CI (a missing server fails instead of skipping).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace gpuperf::testing {

// Starting, stopping or querying the cluster failed; the message carries the server's log tail.
class PgClusterError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PgClusterOptions {
  // fsync off (and no full-page writes) is safe as long as the OS does not crash: a postgres crash or
  // `stop_immediate()` still loses no committed transaction. Turn it on to measure real durability costs.
  bool fsync = false;
  // Seconds to wait for the server to accept connections (a loaded 2-core machine needs more than 1 s).
  int start_timeout_s = 60;
};

class PgCluster {
 public:
  struct Availability {
    bool ok = false;
    std::string reason;  // why not, when !ok: no server binaries, or no user initdb may run as
    std::filesystem::path bindir;
  };
  // Whether clusters can be started here; computed once per process. GPUPERF_PG_BINDIR overrides the search
  // (/usr/lib/postgresql/<highest major>/bin, then initdb on PATH).
  static const Availability& availability();
  static bool available(std::string* reason = nullptr);

  // Starts a fresh cluster; throws PgClusterError with the reason and the log when it cannot.
  explicit PgCluster(PgClusterOptions options = {});
  // Stops the server (immediate: it is thrown away) and removes the folder. Never throws.
  ~PgCluster();
  PgCluster(const PgCluster&) = delete;
  PgCluster& operator=(const PgCluster&) = delete;

  static constexpr const char* kSuperuser = "postgres";
  static const char* superuser_password() { return "gpuperf-throwaway"; }
  static const char* host() { return "127.0.0.1"; }

  // Connection strings. The socket forms need no password (trust); the TCP forms name host and port.
  //   uri("gpuperf")                  postgresql:///gpuperf?host=/tmp/gpuperf-pg-XXXXXX&port=P&user=postgres
  //   tcp_uri("gpuperf", "w", "pw")   postgresql://w:pw@127.0.0.1:P/gpuperf   (user and password %-encoded)
  //   keywords("gpuperf")             host=/tmp/gpuperf-pg-XXXXXX port=P dbname=gpuperf user=postgres
  //   tcp_keywords("gpuperf", "w", "pw")  host=127.0.0.1 port=P dbname=gpuperf user=w password=pw
  std::string uri(std::string_view dbname = "postgres", std::string_view user = kSuperuser) const;
  std::string tcp_uri(std::string_view dbname = "postgres", std::string_view user = kSuperuser,
                      std::string_view password = superuser_password()) const;
  std::string keywords(std::string_view dbname = "postgres", std::string_view user = kSuperuser) const;
  std::string tcp_keywords(std::string_view dbname = "postgres", std::string_view user = kSuperuser,
                           std::string_view password = superuser_password()) const;

  const std::filesystem::path& dir() const { return dir_; }  // the temporary folder, removed at the end
  const std::filesystem::path& socket_dir() const { return dir_; }
  std::filesystem::path data_dir() const { return dir_ / "data"; }
  // The TCP port; also names the socket file (.s.PGSQL.<port>). It can change on start() if another
  // process took it meanwhile.
  int port() const { return port_; }
  bool running() const { return postmaster_ > 0; }
  pid_t postmaster_pid() const { return postmaster_; }
  std::string log_tail(std::size_t max_bytes = 4000) const;  // the server's log, for failure messages

  // Runs SQL (several statements allowed) as the superuser over the socket; returns the rows of the last
  // statement as text (NULL as ""). Throws PgClusterError with the server's message on an error.
  using Rows = std::vector<std::vector<std::string>>;
  Rows exec(std::string_view sql, std::string_view dbname = "postgres") const;
  // exec() for a single value: the first column of the first row, throws when there is no row.
  std::string query_value(std::string_view sql, std::string_view dbname = "postgres") const;
  void create_database(std::string_view name, std::string_view owner = kSuperuser) const;
  // CREATE ROLE name LOGIN PASSWORD password, then privileges_sql (e.g. "GRANT CONNECT ON DATABASE g TO r;")
  // run as the superuser in database dbname.
  void create_role(std::string_view name, std::string_view password, std::string_view privileges_sql = {},
                   std::string_view dbname = "postgres") const;

  // pg_ctl stop -m immediate: a crash as far as the data is concerned (recovery runs at the next start).
  void stop_immediate();
  // pg_ctl stop -m fast: a clean shutdown.
  void stop();
  // Starts the server again on the same data; waits until it accepts connections.
  void start();

 private:
  void init_data();
  void start_once(int port);
  void stop_with(const char* mode);
  void reap();

  PgClusterOptions options_;
  std::filesystem::path dir_;
  std::filesystem::path bindir_;
  int port_ = 0;
  pid_t postmaster_ = -1;
  pid_t owner_ = -1;  // the process that made it: a fork()ed child's copy never stops the server
};

// True when the environment says this is CI (CI set, not "", "0" or "false"): a missing server fails there.
bool pg_required_by_ci();

}  // namespace gpuperf::testing

// In a test body or SetUp(): skips the test with the reason when no cluster can be started here, or fails
// it when CI is set (a missing server must fail CI, not pass silently). Returns from the function.
#define GPUPERF_REQUIRE_PG()                                                                                \
  do {                                                                                                      \
    std::string gpuperf_pg_reason_;                                                                         \
    if (!::gpuperf::testing::PgCluster::available(&gpuperf_pg_reason_)) {                                   \
      if (::gpuperf::testing::pg_required_by_ci()) {                                                        \
        GTEST_FAIL() << "PostgreSQL is required in CI (CI is set) but unavailable: " << gpuperf_pg_reason_; \
      } else {                                                                                              \
        GTEST_SKIP() << "PostgreSQL unavailable: " << gpuperf_pg_reason_;                                   \
      }                                                                                                     \
    }                                                                                                       \
  } while (false)
