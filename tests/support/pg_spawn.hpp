// Running PostgreSQL's server programs (initdb, pg_ctl, postgres) as the user they accept: never root.
// Internal to pg_cluster.cpp; fork/exec with argument vectors, no shell.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace gpuperf::testing::pg_detail {

// Who the server programs run as: the `postgres` user when this process is root, otherwise ourselves.
struct ServerUser {
  bool switch_user = false;  // true: setgid/setuid to uid/gid in the child before exec
  uid_t uid = 0;
  gid_t gid = 0;
  std::string name;
};

// Finds the user; returns false with the reason when this process is root and there is no `postgres` user.
bool find_server_user(ServerUser& user, std::string& reason);

struct SpawnOptions {
  std::filesystem::path cwd;     // the child's working directory (one the server user may enter)
  std::filesystem::path log;     // stdout and stderr are appended here, opened as the server user
  bool die_with_parent = false;  // PR_SET_PDEATHSIG(SIGQUIT): the postmaster's "immediate shutdown"
};

// Starts argv[0] (an absolute path) with the arguments; returns the child's pid. Throws std::runtime_error
// when fork fails. A child that cannot switch user or exec writes why into the log and exits 126/127.
pid_t spawn(const ServerUser& user, const std::vector<std::string>& argv, const SpawnOptions& options);

// spawn() and wait; returns the exit status (128 + signal when killed).
int run(const ServerUser& user, const std::vector<std::string>& argv, const SpawnOptions& options);

// waitpid with EINTR retried; returns the exit status as run() does, or -1 when there is no such child.
int wait_exit(pid_t pid);

// chown (when switching user) and chmod 0700: a folder the server user owns and may write.
void give_to(const ServerUser& user, const std::filesystem::path& path);

}  // namespace gpuperf::testing::pg_detail
