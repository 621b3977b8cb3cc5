#include "profiler/record/recorder/launch.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "core/errors.hpp"
#include "core/result.hpp"
#include "profiler/cupti/range_backend_loader.hpp"

#ifndef GPUPERF_INJECT_BUILD_PATH
#define GPUPERF_INJECT_BUILD_PATH ""
#endif
#ifndef GPUPERF_CUPTI_LIBRARY
#define GPUPERF_CUPTI_LIBRARY ""
#endif

namespace gpuperf::record {
namespace {

bool executable_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

volatile sig_atomic_t g_child = 0;
void forward_signal(int sig) {
  if (g_child > 0) kill(static_cast<pid_t>(g_child), sig);
}

}  // namespace

std::string resolve_program(const std::string& app) {
  if (app.empty()) throw InputError("no program given: gpuperf record [options] -- APP [ARGS...]");
  if (app.find('/') != std::string::npos) {
    struct stat st {};
    if (stat(app.c_str(), &st) != 0) throw InputError("program '" + app + "' does not exist");
    if (!executable_file(app)) throw InputError("program '" + app + "' is not an executable file");
    return app;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = dirs.find(':', start);
    std::string dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (dir.empty()) dir = ".";
    if (executable_file(dir + "/" + app)) return dir + "/" + app;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  throw InputError("program '" + app + "' was not found on PATH (" + dirs + ")");
}

std::string find_inject_library() {
  return cupti::find_module(kInjectLibraryName, "GPUPERF_INJECT_LIBRARY", GPUPERF_INJECT_BUILD_PATH,
                            "injection library");
}

void check_no_other_injection() {
  const char* other = std::getenv("CUDA_INJECTION64_PATH");
  if (other == nullptr || *other == '\0') return;
  const std::string path = other;
  std::string tool = "another CUDA tool";
  if (path.find("nsys") != std::string::npos || path.find("ToolsInjection") != std::string::npos)
    tool = "Nsight Systems (nsys)";
  if (path.find("nsight-compute") != std::string::npos || path.find("InjectionProxy") != std::string::npos)
    tool = "Nsight Compute (ncu)";
  throw EnvironmentError(tool + " is already attached to this environment (CUDA_INJECTION64_PATH=" + path +
                         "), and the CUDA driver loads one injection library per process: run gpuperf record "
                         "outside it, or unset CUDA_INJECTION64_PATH");
}

ProgramEnd run_program(const std::vector<std::string>& argv, const std::string& record_dir,
                       const std::string& inject_library, bool nvtx, RecordConfig config,
                       const std::function<void()>& while_running) {
  config.dir = record_dir;
  config.nvtx = nvtx;
  const std::string config_text = config.to_text();
  const std::string program = resolve_program(argv.at(0));
  ProgramEnd end;
  end.started_at = now_iso8601();
  const auto t0 = std::chrono::steady_clock::now();
  struct sigaction ignore {
  }, forward{}, old_int{}, old_term{};
  ignore.sa_handler = SIG_IGN;
  forward.sa_handler = forward_signal;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGTERM, &forward, &old_term);
  const pid_t pid = fork();
  if (pid < 0) throw EnvironmentError(std::string("cannot start the program: fork: ") + std::strerror(errno));
  if (pid == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    setenv("CUDA_INJECTION64_PATH", inject_library.c_str(), 1);
    setenv(kRecordConfigVariable, config_text.c_str(), 1);  // the library's whole configuration
    // NVTX reaches CUPTI only through this variable; with --no-nvtx it stays unset, so the program's NVTX
    // calls stay the no-ops they are without a tool (as under the bare tracer record_overhead.py compares with).
    if (nvtx && std::getenv("NVTX_INJECTION64_PATH") == nullptr && *GPUPERF_CUPTI_LIBRARY != '\0' &&
        access(GPUPERF_CUPTI_LIBRARY, R_OK) == 0) {
      setenv("NVTX_INJECTION64_PATH", GPUPERF_CUPTI_LIBRARY, 1);
    }
    std::vector<char*> cargv;
    for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    execv(program.c_str(), cargv.data());
    std::fprintf(stderr, "gpuperf: error: cannot run %s: %s\n", program.c_str(), std::strerror(errno));
    _exit(127);
  }
  g_child = pid;
  std::exception_ptr failed;
  int status = 0;
  if (!while_running) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  } else {
    // Woken by the program's end (a pidfd, Linux 5.3) or every 10 ms, whichever comes first.
#ifdef SYS_pidfd_open
    const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
    const int pidfd = -1;
#endif
    for (;;) {
      const pid_t r = waitpid(pid, &status, WNOHANG);
      if (r == pid || (r < 0 && errno != EINTR)) break;
      if (!failed) {
        try {
          while_running();
        } catch (...) {
          failed = std::current_exception();
        }
      }
      if (pidfd >= 0) {
        pollfd fd{pidfd, POLLIN, 0};
        poll(&fd, 1, 10);
      } else {
        usleep(10000);
      }
    }
    if (pidfd >= 0) close(pidfd);
  }
  g_child = 0;
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  end.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  end.finished_at = now_iso8601();
  end.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : (WIFSIGNALED(status) ? -WTERMSIG(status) : 1);
  if (failed) std::rethrow_exception(failed);
  return end;
}

}  // namespace gpuperf::record
