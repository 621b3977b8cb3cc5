#include "cli/subprocess.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.hpp"

namespace gpuperf::cli {
namespace {

volatile sig_atomic_t g_signal = 0;
volatile sig_atomic_t g_child_group = 0;  // the running child's process group, 0 when none

void on_signal(int sig) {
  if (g_signal != 0) return;  // the first interrupt is passed on; later ones wait for the clean-up
  g_signal = sig;
  if (g_child_group > 0) kill(-static_cast<pid_t>(g_child_group), sig);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string temp_path(const char* what) {
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/gpuperf-" + what + "-XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd < 0) throw EnvironmentError("cannot create a temporary file (" + path + "): " + std::strerror(errno));
  close(fd);
  return path;
}

}  // namespace

void forward_interrupts() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

int interrupted() { return g_signal; }

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& o) {
  if (argv.empty()) throw InputError("no command to run");
  const bool capture_out = !o.inherit_output && o.out_path.empty();
  const bool capture_err = !o.inherit_output && o.err_path.empty();
  const std::string out_path = capture_out ? temp_path("out") : o.out_path;
  const std::string err_path = capture_err ? temp_path("err") : o.err_path;
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  const pid_t pid = fork();
  if (pid < 0) throw EnvironmentError("cannot start " + argv[0] + ": fork: " + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    if (!o.cwd.empty() && chdir(o.cwd.c_str()) != 0) _exit(126);
    if (!o.inherit_output) {
      const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (out < 0 || err < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0) _exit(126);
    }
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, STDIN_FILENO);
    for (const auto& [k, v] : o.env) setenv(k.c_str(), v.c_str(), 1);
    execvp(cargv[0], cargv.data());
    _exit(127);
  }
  setpgid(pid, pid);  // both sides set it, so a signal cannot arrive before the group exists
  g_child_group = pid;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child_group = 0;
  ProcessResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::error_code ec;
  if (capture_out) {
    r.out = slurp(out_path);
    std::filesystem::remove(out_path, ec);
  }
  if (capture_err) {
    r.err = slurp(err_path);
    std::filesystem::remove(err_path, ec);
  }
  if (r.exit_code == 127 && capture_err && r.err.empty()) {
    throw EnvironmentError("cannot run '" + argv[0] + "': not found on PATH");
  }
  return r;
}

}  // namespace gpuperf::cli
