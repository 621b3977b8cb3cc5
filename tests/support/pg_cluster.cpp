#include "tests/support/pg_cluster.hpp"

#include <arpa/inet.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "tests/support/pg_spawn.hpp"
#include "tests/support/pg_template.hpp"

namespace gpuperf::testing {
namespace fs = std::filesystem;
using pg_detail::ServerUser;

namespace {

const ServerUser& server_user() {
  static ServerUser user;
  static std::string reason;
  static std::once_flag once;
  std::call_once(once, [] { pg_detail::find_server_user(user, reason); });
  return user;
}

bool has_server_binaries(const fs::path& dir) {
  for (const char* name : {"initdb", "pg_ctl", "postgres"}) {
    if (access((dir / name).c_str(), X_OK) != 0) return false;
  }
  return true;
}

// GPUPERF_PG_BINDIR, else Debian's /usr/lib/postgresql/<major>/bin (the highest major), else initdb on PATH.
fs::path find_bindir(std::string& searched) {
  if (const char* env = std::getenv("GPUPERF_PG_BINDIR"); env != nullptr && *env != '\0') {
    searched = std::string("GPUPERF_PG_BINDIR=") + env;
    return has_server_binaries(env) ? fs::path(env) : fs::path();
  }
  searched = "/usr/lib/postgresql/*/bin";
  std::vector<std::pair<int, fs::path>> majors;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.empty() && std::all_of(name.begin(), name.end(), ::isdigit) &&
        has_server_binaries(entry.path() / "bin")) {
      majors.emplace_back(std::stoi(name), entry.path() / "bin");
    }
  }
  if (!majors.empty()) return std::max_element(majors.begin(), majors.end())->second;
  searched += " and PATH";
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && has_server_binaries(dir)) return dir;
  }
  return {};
}

// Removes the folders of clusters whose test process crashed (its server died with it, PR_SET_PDEATHSIG, but
// no destructor removed the folder): ours by name and owner, no postmaster.pid, untouched for an hour.
void sweep_crashed_clusters(const fs::path& base, uid_t owner) {
  std::error_code ec;
  const auto hour_ago = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const auto& entry : fs::directory_iterator(base, ec)) {
    const std::string name = entry.path().filename().string();
    struct stat st {};
    if (name.size() != std::string("gpuperf-pg-XXXXXX").size() || name.rfind("gpuperf-pg-", 0) != 0 ||
        lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != owner) {
      continue;
    }
    std::error_code time_ec;
    const auto changed = fs::last_write_time(entry.path(), time_ec);
    if (time_ec || changed > hour_ago || fs::exists(entry.path() / "data" / "postmaster.pid", time_ec)) continue;
    fs::remove_all(entry.path(), time_ec);
  }
}

std::string read_tail(const fs::path& file, std::size_t max_bytes) {
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return max_bytes != std::string::npos && text.size() > max_bytes ? "..." + text.substr(text.size() - max_bytes)
                                                                   : text;
}

// A TCP port on 127.0.0.1 nobody listens on now (the kernel's pick); start() retries if it is taken later.
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw PgClusterError("socket() for a free port failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  close(fd);
  if (!ok) throw PgClusterError("binding 127.0.0.1:0 for a free port failed");
  return ntohs(addr.sin_port);
}

std::string percent_encode(std::string_view text, bool keep_slash) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// A libpq keyword value: quoted when empty or holding spaces, quotes or backslashes.
std::string keyword_value(std::string_view value) {
  if (!value.empty() && value.find_first_of(" '\\") == std::string_view::npos) return std::string(value);
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string quote_ident(std::string_view name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string quote_literal(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

struct ConnDeleter {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};

}  // namespace

bool pg_required_by_ci() {
  const char* ci = std::getenv("CI");
  if (ci == nullptr) return false;
  const std::string value = ci;
  return !value.empty() && value != "0" && value != "false" && value != "FALSE" && value != "False";
}

const PgCluster::Availability& PgCluster::availability() {
  static Availability result;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string searched;
    result.bindir = find_bindir(searched);
    if (result.bindir.empty()) {
      result.reason = "no PostgreSQL server binaries (initdb, pg_ctl, postgres) in " + searched +
                      " (Debian: apt-get install postgresql, or ci/setup.sh --test)";
      return;
    }
    ServerUser user;
    if (!pg_detail::find_server_user(user, result.reason)) return;
    result.ok = true;
  });
  return result;
}

bool PgCluster::available(std::string* reason) {
  const Availability& a = availability();
  if (!a.ok && reason != nullptr) *reason = a.reason;
  return a.ok;
}

PgCluster::PgCluster(PgClusterOptions options) : options_(options), owner_(getpid()) {
  const Availability& a = availability();
  if (!a.ok) throw PgClusterError("PostgreSQL unavailable: " + a.reason);
  bindir_ = a.bindir;
  // As root the folder must be one the postgres user can reach: /tmp, not a $TMPDIR under /root. The socket
  // path (folder + "/.s.PGSQL.NNNNN") must fit sockaddr_un's 107 bytes, so a long $TMPDIR is not used either.
  fs::path base = server_user().switch_user ? fs::path("/tmp") : fs::temp_directory_path();
  if (base.string().size() > 60) base = "/tmp";
  sweep_crashed_clusters(base, server_user().uid);
  std::string pattern = (base / "gpuperf-pg-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw PgClusterError("mkdtemp " + pattern + " failed");
  dir_ = pattern;
  try {
    pg_detail::give_to(server_user(), dir_);
    init_data();
    start();
  } catch (...) {
    stop_with("immediate");
    std::error_code ec;
    fs::remove_all(dir_, ec);
    throw;
  }
}

PgCluster::~PgCluster() {
  if (getpid() != owner_) return;  // a fork()ed child (a death test) leaves its parent's server alone
  try {
    stop_with("immediate");
  } catch (...) {
  }
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

void PgCluster::init_data() {
  try {
    pg_detail::make_data_dir(server_user(), bindir_, dir_, superuser_password());
  } catch (const std::runtime_error& e) {
    throw PgClusterError(e.what());
  }
  std::ofstream conf(data_dir() / "postgresql.conf", std::ios::app);
  conf << "\n# gpuperf tests/support/pg_cluster.cpp: a throwaway server\n"
       << "listen_addresses = '127.0.0.1'\n"
       << "unix_socket_directories = " << quote_literal(dir_.string()) << "\n"
       << "fsync = " << (options_.fsync ? "on" : "off") << "\n"
       << "full_page_writes = " << (options_.fsync ? "on" : "off") << "\n"
       << "shared_buffers = 32MB\n"
       << "max_connections = 100\n"
       << "logging_collector = off\n"
       << "log_min_messages = warning\n";
}

void PgCluster::start() {
  if (running()) return;
  // A port taken between free_port() and the bind is retried with another one.
  for (int attempt = 0;; ++attempt) {
    const std::size_t log_size_before = fs::exists(dir_ / "server.log") ? fs::file_size(dir_ / "server.log") : 0;
    try {
      // A restart tries its previous port first, so connection strings taken before a stop stay valid.
      start_once(attempt == 0 && port_ > 0 ? port_ : free_port());
      return;
    } catch (const PgClusterError&) {
      std::string log = read_tail(dir_ / "server.log", std::string::npos);
      log = log.substr(std::min(log_size_before, log.size()));  // this attempt's lines only
      const bool port_taken =
          log.find("could not bind") != std::string::npos || log.find("Address already in use") != std::string::npos;
      if (!port_taken || attempt >= 4) throw;
    }
  }
}

void PgCluster::start_once(int port) {
  const pid_t pid = pg_detail::spawn(
      server_user(), {(bindir_ / "postgres").string(), "-D", data_dir().string(), "-p", std::to_string(port)},
      {dir_, dir_ / "server.log", true});
  postmaster_ = pid;
  port_ = port;
  const std::string ping = keywords("postgres") + " connect_timeout=2";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options_.start_timeout_s);
  while (true) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      postmaster_ = -1;
      throw PgClusterError("the postmaster exited while starting (port " + std::to_string(port) + "):\n" + log_tail());
    }
    if (PQping(ping.c_str()) == PQPING_OK) return;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGQUIT);
      reap();
      throw PgClusterError("the server did not accept connections within " + std::to_string(options_.start_timeout_s) +
                           " s:\n" + log_tail());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void PgCluster::stop_immediate() { stop_with("immediate"); }
void PgCluster::stop() { stop_with("fast"); }

void PgCluster::stop_with(const char* mode) {
  if (!running()) return;
  const int rc = pg_detail::run(
      server_user(), {(bindir_ / "pg_ctl").string(), "stop", "-D", data_dir().string(), "-m", mode, "-w", "-t", "60"},
      {dir_, dir_ / "pg_ctl.log", false});
  if (rc != 0) {
    // pg_ctl could not stop it (no postmaster.pid yet, a hang): SIGQUIT is the postmaster's immediate
    // shutdown, SIGKILL 10 s later makes sure nothing outlives us.
    kill(postmaster_, SIGQUIT);
    int status = 0;
    bool reaped = false;
    for (int i = 0; i < 1000 && !reaped; ++i) {
      reaped = waitpid(postmaster_, &status, WNOHANG) == postmaster_;
      if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (reaped) postmaster_ = -1;
    if (!reaped) kill(postmaster_, SIGKILL);  // still our unreaped child, so the pid is still its
  }
  reap();
  if (rc != 0)
    throw PgClusterError("pg_ctl stop -m " + std::string(mode) + " failed:\n" + read_tail(dir_ / "pg_ctl.log", 2000));
}

void PgCluster::reap() {
  if (postmaster_ > 0) pg_detail::wait_exit(postmaster_);
  postmaster_ = -1;
}

std::string PgCluster::log_tail(std::size_t max_bytes) const { return read_tail(dir_ / "server.log", max_bytes); }

std::string PgCluster::uri(std::string_view dbname, std::string_view user) const {
  return "postgresql:///" + percent_encode(dbname, false) + "?host=" + percent_encode(dir_.string(), true) +
         "&port=" + std::to_string(port_) + "&user=" + percent_encode(user, false);
}

std::string PgCluster::tcp_uri(std::string_view dbname, std::string_view user, std::string_view password) const {
  std::string auth = percent_encode(user, false);
  if (!password.empty()) auth += ":" + percent_encode(password, false);
  return "postgresql://" + auth + "@" + host() + ":" + std::to_string(port_) + "/" + percent_encode(dbname, false);
}

std::string PgCluster::keywords(std::string_view dbname, std::string_view user) const {
  return "host=" + keyword_value(dir_.string()) + " port=" + std::to_string(port_) +
         " dbname=" + keyword_value(dbname) + " user=" + keyword_value(user);
}

std::string PgCluster::tcp_keywords(std::string_view dbname, std::string_view user, std::string_view password) const {
  std::string out = std::string("host=") + host() + " port=" + std::to_string(port_) +
                    " dbname=" + keyword_value(dbname) + " user=" + keyword_value(user);
  if (!password.empty()) out += " password=" + keyword_value(password);
  return out;
}

PgCluster::Rows PgCluster::exec(std::string_view sql, std::string_view dbname) const {
  std::unique_ptr<PGconn, ConnDeleter> conn(PQconnectdb((keywords(dbname) + " connect_timeout=10").c_str()));
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    throw PgClusterError("connecting to " + uri(dbname) + ": " + PQerrorMessage(conn.get()));
  }
  std::unique_ptr<PGresult, ResultDeleter> result(PQexec(conn.get(), std::string(sql).c_str()));
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    throw PgClusterError("SQL failed: " + std::string(PQresultErrorMessage(result.get())) + "in: " + std::string(sql));
  }
  Rows rows;
  for (int r = 0; r < PQntuples(result.get()); ++r) {
    std::vector<std::string> row;
    for (int c = 0; c < PQnfields(result.get()); ++c) row.emplace_back(PQgetvalue(result.get(), r, c));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string PgCluster::query_value(std::string_view sql, std::string_view dbname) const {
  Rows rows = exec(sql, dbname);
  if (rows.empty() || rows[0].empty()) throw PgClusterError("no value from: " + std::string(sql));
  return rows[0][0];
}

void PgCluster::create_database(std::string_view name, std::string_view owner) const {
  exec("CREATE DATABASE " + quote_ident(name) + " OWNER " + quote_ident(owner));
}

void PgCluster::create_role(std::string_view name, std::string_view password, std::string_view privileges_sql,
                            std::string_view dbname) const {
  exec("CREATE ROLE " + quote_ident(name) + " LOGIN PASSWORD " + quote_literal(password));
  if (!privileges_sql.empty()) exec(privileges_sql, dbname);
}

}  // namespace gpuperf::testing
