#include "tests/support/pg_spawn.hpp"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace gpuperf::testing::pg_detail {

bool find_server_user(ServerUser& user, std::string& reason) {
  const bool root = geteuid() == 0;
  const char* wanted = root ? "postgres" : nullptr;
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buffer(16384);
  int rc = wanted != nullptr ? getpwnam_r(wanted, &pw, buffer.data(), buffer.size(), &found)
                             : getpwuid_r(geteuid(), &pw, buffer.data(), buffer.size(), &found);
  if (root) {
    if (rc != 0 || found == nullptr) {
      reason =
          "this process runs as root, initdb refuses root, and there is no `postgres` user to run the server as "
          "(Debian's postgresql package creates it)";
      return false;
    }
    user.switch_user = true;
    user.uid = pw.pw_uid;
    user.gid = pw.pw_gid;
    user.name = pw.pw_name;
    return true;
  }
  user.switch_user = false;
  user.uid = geteuid();
  user.gid = getegid();
  user.name = found != nullptr ? pw.pw_name : std::to_string(geteuid());
  return true;
}

namespace {

// Only async-signal-safe calls between fork and exec: the test process may have other threads.
[[noreturn]] void child_fail(int fd, const char* what, int exit_code) {
  const char* err = strerror(errno);  // not async-signal-safe in theory; glibc's is for known errno values
  if (fd >= 0) {
    (void)!write(fd, "pg_spawn: ", 10);
    (void)!write(fd, what, strlen(what));
    (void)!write(fd, ": ", 2);
    (void)!write(fd, err, strlen(err));
    (void)!write(fd, "\n", 1);
  }
  _exit(exit_code);
}

}  // namespace

pid_t spawn(const ServerUser& user, const std::vector<std::string>& argv, const SpawnOptions& options) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string cwd = options.cwd.string();
  const std::string log = options.log.string();
  const pid_t parent = getpid();

  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + strerror(errno));
  if (pid > 0) return pid;

  // Child. Switch user first: the log file and everything the program creates belong to the server user.
  if (user.switch_user) {
    if (setgroups(0, nullptr) != 0 || setgid(user.gid) != 0 || setuid(user.uid) != 0) {
      child_fail(2, "cannot switch to the server user", 126);
    }
  }
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) child_fail(2, "cannot open the log", 126);
  const int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) {
    child_fail(fd, "cannot redirect output", 126);
  }
  // The server must not hold the test's descriptors (its connections, pipes a parent waits on for EOF).
  if (close_range(3, ~0U, 0) != 0) {
    struct rlimit limit {};
    const rlim_t last = getrlimit(RLIMIT_NOFILE, &limit) == 0 ? std::min<rlim_t>(limit.rlim_cur, 65536) : 1024;
    for (rlim_t f = 3; f < last; ++f) close(static_cast<int>(f));
  }
  if (chdir(cwd.c_str()) != 0) child_fail(2, "cannot enter the working folder", 126);
  // After setuid: a change of credentials clears the parent-death signal.
  if (options.die_with_parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGQUIT) != 0) child_fail(2, "prctl(PR_SET_PDEATHSIG)", 126);
    if (getppid() != parent) _exit(126);  // the parent died before the signal was armed
  }
  execv(args[0], args.data());
  child_fail(2, args[0], 127);
}

int wait_exit(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

int run(const ServerUser& user, const std::vector<std::string>& argv, const SpawnOptions& options) {
  return wait_exit(spawn(user, argv, options));
}

void give_to(const ServerUser& user, const std::filesystem::path& path) {
  if (user.switch_user && chown(path.c_str(), user.uid, user.gid) != 0) {
    throw std::runtime_error("chown " + path.string() + " to " + user.name + ": " + strerror(errno));
  }
  if (chmod(path.c_str(), 0700) != 0) throw std::runtime_error("chmod " + path.string() + ": " + strerror(errno));
}

}  // namespace gpuperf::testing::pg_detail
