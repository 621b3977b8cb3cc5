#include "cli/device_workers.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "core/errors.hpp"
#include "profiler/gpu/device_info.hpp"

namespace gpuperf::cli {

std::vector<int> parse_device_list(const std::string& spec) {
  if (spec == "all") {
    std::vector<int> all(static_cast<std::size_t>(gpu::device_count()));
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    return all;
  }
  std::vector<int> out;
  std::set<int> seen;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', pos), spec.size());
    const std::string item = spec.substr(pos, comma - pos);
    char* end = nullptr;
    errno = 0;
    const long v = item.empty() ? -1 : std::strtol(item.c_str(), &end, 10);
    if (item.empty() || errno != 0 || *end != '\0' || v < 0 || v > 1024) {
      throw InputError("--device '" + spec + "': expected all, a device ordinal, or a list such as 0,1");
    }
    if (!seen.insert(static_cast<int>(v)).second) {
      throw InputError("--device '" + spec + "': device " + item + " is listed twice");
    }
    out.push_back(static_cast<int>(v));
    pos = comma + 1;
  }
  return out;
}

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The command line without any --device option, then `--device K` at the end (options after the
// subcommand belong to it).
std::vector<std::string> worker_argv(const std::vector<std::string>& argv, int device) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--device") {
      ++i;  // and its value
      continue;
    }
    if (argv[i].rfind("--device=", 0) == 0) continue;
    out.push_back(argv[i]);
  }
  out.push_back("--device");
  out.push_back(std::to_string(device));
  return out;
}

}  // namespace

std::vector<WorkerResult> run_device_workers(const std::vector<std::string>& argv, const std::vector<int>& devices) {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/gpuperf-workers-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    throw EnvironmentError("cannot create a temporary folder for the device workers (" + tmpl +
                           "): " + std::strerror(errno));
  }
  const std::filesystem::path dir(tmpl);

  struct Running {
    pid_t pid;
    WorkerResult result;
    std::string out_path, err_path;
  };
  std::vector<Running> running;
  for (int device : devices) {
    Running r{-1, WorkerResult{device, -1, "", ""}, (dir / ("out-" + std::to_string(device))).string(),
              (dir / ("err-" + std::to_string(device))).string()};
    std::vector<std::string> args = worker_argv(argv, device);
    const pid_t pid = fork();
    if (pid < 0) throw EnvironmentError(std::string("cannot start a device worker: ") + std::strerror(errno));
    if (pid == 0) {
      const int out = open(r.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      const int err = open(r.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (out < 0 || err < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0) _exit(126);
      std::vector<char*> cargv;
      for (auto& a : args) cargv.push_back(a.data());
      cargv.push_back(nullptr);
      execv("/proc/self/exe", cargv.data());
      _exit(127);
    }
    r.pid = pid;
    running.push_back(std::move(r));
  }

  std::vector<WorkerResult> results;
  for (auto& r : running) {
    int status = 0;
    while (waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.result.out = slurp(r.out_path);
    r.result.err = slurp(r.err_path);
    results.push_back(std::move(r.result));
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return results;
}

}  // namespace gpuperf::cli
