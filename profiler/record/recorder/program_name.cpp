#include "profiler/record/recorder/program_name.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <sstream>

#include "profiler/record/recorder/aggregate.hpp"

namespace gpuperf::record {
namespace {

using Args = std::vector<std::string>;
using Names = std::vector<const char*>;
constexpr std::size_t npos = std::string::npos;

// An interpreter: its options, and those that say where the program is.
struct Interpreter {
  const char* name;            // the executable's base name less any version ("python" for python3.12)
  const char* value_letters;   // short options whose value is the rest of the argument or the next one
  const char* inline_letters;  // short options that give the code itself ("-c"): the program is "python3-c"
  char module_letter;          // python's -m: the program is the module
  Names long_values;           // long options that take the next argument as their value
  std::vector<std::pair<const char*, char>> long_inline;  // "--eval": as its short option
};

// Tables are kept one entry per row, as written (clang-format would put every field on a line of its own).
// clang-format off
const Interpreter kInterpreters[] = {
    {"python", "WXQ", "c", 'm', {"--check-hash-based-pycs"}, {}},
    {"pypy", "WXQ", "c", 'm', {"--check-hash-based-pycs"}, {}},
    {"bash", "oO", "c", 0, {"--rcfile", "--init-file"}, {}},
    {"sh", "o", "c", 0, {}, {}},
    {"dash", "o", "c", 0, {}, {}},
    {"zsh", "o", "c", 0, {}, {}},
    {"ksh", "o", "c", 0, {}, {}},
    {"node", "rC", "ep", 0,
     {"--require", "--import", "--loader", "--experimental-loader", "--conditions", "--input-type"},
     {{"--eval", 'e'}, {"--print", 'p'}}},
    {"nodejs", "rC", "ep", 0, {"--require", "--import", "--loader", "--conditions"},
     {{"--eval", 'e'}, {"--print", 'p'}}},
    {"ruby", "IrCE", "e", 0, {}, {}},
    {"perl", "IMm", "eE", 0, {}, {}},
};
// clang-format on

// A launcher: a program that starts another one (env, torchrun, mpirun), and how to find that one.
struct Launcher {
  Names names;                    // base names, or modules run with python -m ("torch.distributed.run")
  const char* subcommand;         // the argument that must follow ("launch" of accelerate), or nullptr
  bool python_script;             // its operand is a Python script (or module); else a command line
  bool options_take_values;       // every option takes the next argument as its value except `exceptions`;
  Names exceptions;               //   else none does except `exceptions`
  Names module_flags = {};        // the operand is a module
  Names program_flags = {};       // the operand is a program, not a script
  Names two_values = {};          // options with two values (mpirun's --mca KEY VALUE)
  std::size_t skip_operands = 0;  // operands before the command (timeout's duration)
  bool assignments = false;       // NAME=value arguments before the command (env)
};

// clang-format off
const Launcher kLaunchers[] = {
    {{"env"}, nullptr, false, false, {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}, {}, {}, {}, 0, true},
    {{"nohup"}, nullptr, false, false, {}},
    {{"time"}, nullptr, false, false, {"-f", "--format", "-o", "--output"}},
    {{"nice"}, nullptr, false, false, {"-n", "--adjustment"}},
    {{"timeout"}, nullptr, false, false, {"-s", "--signal", "-k", "--kill-after"}, {}, {}, {}, 1},
    {{"torchrun", "torch.distributed.run", "torch.distributed.launch"}, nullptr, true, true,
     {"--standalone", "--no-python", "--no_python", "--run-path", "--run_path", "-m", "--module", "--use-env",
      "--use_env"},
     {"-m", "--module"}, {"--no-python", "--no_python"}},
    {{"deepspeed", "deepspeed.launcher.runner"}, nullptr, true, true,
     {"--no_python", "--no-python", "--module", "--force_multi", "--no_local_rank", "--no_ssh_check", "--no_ssh",
      "--bind_cores_to_rank", "--elastic_training", "--autotuning"},
     {"--module"}, {"--no_python", "--no-python"}},
    {{"accelerate"}, "launch", true, true,
     {"--cpu", "--multi_gpu", "--tpu", "--use_deepspeed", "--use_fsdp", "--use_megatron_lm", "--use_xpu", "--debug",
      "-m", "--module", "--no_python", "-q", "--quiet", "--same_network", "--tpu_use_cluster", "--tpu_use_sudo",
      "--downcast_bf16", "--enable_cpu_affinity", "--dynamo_use_fullgraph", "--dynamo_use_dynamic"},
     {"-m", "--module"}, {"--no_python"}},
    {{"accelerate.commands.launch"}, nullptr, true, true, {"--cpu", "--multi_gpu", "-m", "--module", "--no_python"},
     {"-m", "--module"}, {"--no_python"}},
    {{"uv"}, "run", false, false,
     {"--with", "--with-editable", "--with-requirements", "--python", "-p", "--project", "--directory", "--extra",
      "--group", "--only-group", "--no-group", "--env-file", "--index", "--default-index", "--index-url",
      "--extra-index-url", "--package", "--cache-dir", "--config-file", "--color", "-C", "--config-setting"},
     {"-m", "--module"}},
    {{"mpirun", "mpiexec", "mpiexec.hydra", "orterun", "oshrun"}, nullptr, false, true,
     {"--oversubscribe", "-oversubscribe", "--allow-run-as-root", "-allow-run-as-root", "--tag-output",
      "-tag-output", "--timestamp-output", "-q", "--quiet", "-v", "--verbose", "--report-bindings",
      "-report-bindings", "--display-map", "--noprefix", "--use-hwthread-cpus", "--merge-stderr-to-stdout", "-l"},
     {}, {}, {"--mca", "-mca", "--gmca", "-gmca", "-genv", "--genv"}},
    {{"srun"}, nullptr, false, true,
     {"-l", "--label", "-u", "--unbuffered", "--exclusive", "-K", "-Q", "--quiet", "-v", "--verbose", "-X", "-Z",
      "--pty", "--overlap", "-O", "--overcommit"}},
};
// clang-format on

bool listed(const Names& names, const std::string& s) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return s == n; });
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == npos ? path : path.substr(slash + 1);
}

// A script's name: its base name less its last extension ("train.py" -> "train", ".hidden" stays).
std::string stem(const std::string& path) {
  const std::string base = base_name(path);
  const std::size_t dot = base.find_last_of('.');
  return dot == npos || dot == 0 ? base : base.substr(0, dot);
}

// An executable's name: its base name, less a script's extension when it is one run by its #! line.
std::string executable(const std::string& path) {
  const std::string base = base_name(path);
  const std::size_t dot = base.find_last_of('.');
  if (dot == npos || dot == 0) return base;
  const std::string ext = base.substr(dot);
  for (const char* e : {".py", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".rb", ".pl"}) {
    if (ext == e) return base.substr(0, dot);
  }
  return base;
}

bool is_option(const std::string& a) { return a.size() > 1 && a[0] == '-'; }

bool looks_like_script(const std::string& a) { return a.size() > 3 && a.compare(a.size() - 3, 3, ".py") == 0; }

const Interpreter* find_interpreter(const std::string& exe) {
  std::string name = exe;  // "python3.12" -> "python"
  while (!name.empty() && (std::isdigit(static_cast<unsigned char>(name.back())) || name.back() == '.'))
    name.pop_back();
  for (const auto& in : kInterpreters) {
    if (name == in.name) return &in;
  }
  return nullptr;
}

const Launcher* find_launcher(const std::string& name, const Args& a, std::size_t next) {
  for (const auto& l : kLaunchers) {
    if (listed(l.names, name) && (l.subcommand == nullptr || (next < a.size() && a[next] == l.subcommand))) return &l;
  }
  return nullptr;
}

std::string command_name(const Args& a, std::size_t i);

// The program a launcher at a[i - 1] starts with a[i..]; "" when it names none.
std::string launched(const Launcher& l, const Args& a, std::size_t i) {
  bool module = false, program = false;
  std::size_t operands = l.skip_operands;
  for (; i < a.size(); ++i) {
    const std::string& arg = a[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (!is_option(arg)) {
      if (l.assignments && arg.find('=') != npos) continue;  // env NAME=value
      if (operands == 0) break;
      --operands;
      continue;
    }
    const std::string opt = arg.substr(0, arg.find('='));
    module = module || listed(l.module_flags, opt);
    program = program || listed(l.program_flags, opt);
    if (opt.size() < arg.size()) continue;  // --opt=value
    if ((opt == "-S" || opt == "--split-string") && l.assignments && i + 1 < a.size()) {
      Args rest;  // env -S 'python3 -u' x.py: its words, then the rest
      std::istringstream words(a[i + 1]);
      for (std::string w; words >> w;) rest.push_back(w);
      rest.insert(rest.end(), a.begin() + static_cast<std::ptrdiff_t>(i + 2), a.end());
      return command_name(rest, 0);
    }
    std::size_t values = listed(l.two_values, opt) ? 2 : (listed(l.exceptions, opt) != l.options_take_values ? 1 : 0);
    if (values == 1 && l.python_script && i + 1 < a.size() && looks_like_script(a[i + 1])) values = 0;
    i += values;
  }
  if (i >= a.size()) return "";
  if (module) return a[i];
  return l.python_script && !program ? stem(a[i]) : command_name(a, i);
}

// The program an interpreter (base name `exe`) runs with a[i..].
std::string interpreted(const Interpreter& in, const std::string& exe, const Args& a, std::size_t i) {
  for (; i < a.size(); ++i) {
    const std::string& arg = a[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || (arg[0] != '-' && arg[0] != '+')) break;  // the script, or "-": standard input
    if (arg.compare(0, 2, "--") == 0) {
      const std::string opt = arg.substr(0, arg.find('='));
      for (const auto& [name, letter] : in.long_inline) {
        if (opt == name) return exe + "-" + letter;
      }
      if (opt.size() == arg.size() && listed(in.long_values, opt)) ++i;
      continue;
    }
    for (std::size_t j = 1; j < arg.size(); ++j) {
      const char c = arg[j];
      if (std::strchr(in.inline_letters, c) != nullptr) return exe + "-" + c;
      const bool rest = j + 1 < arg.size();
      if (c == in.module_letter && in.module_letter != 0) {
        const std::size_t at = rest ? i : i + 1;
        if (at >= a.size()) return exe;
        const std::string module = rest ? arg.substr(j + 1) : a[at];
        if (const Launcher* l = find_launcher(module, a, at + 1)) {  // python -m torch.distributed.run ...
          const std::string started = launched(*l, a, at + 1);
          return started.empty() ? module : started;
        }
        return module;
      }
      if (std::strchr(in.value_letters, c) != nullptr) {
        if (!rest) ++i;  // "-W ignore"; "-Wignore" holds its value
        break;
      }
    }
  }
  if (i >= a.size() || a[i] == "-") return exe;
  return stem(a[i]);
}

// The program of the command line a[i..].
std::string command_name(const Args& a, std::size_t i) {
  if (i >= a.size()) return "";
  const std::string exe = base_name(a[i]);
  if (const Launcher* l = find_launcher(exe, a, i + 1)) {
    const std::string started = launched(*l, a, i + 1 + (l->subcommand != nullptr ? 1 : 0));
    return started.empty() ? exe : started;
  }
  if (const Interpreter* in = find_interpreter(exe)) return interpreted(*in, exe, a, i + 1);
  return executable(a[i]);
}

}  // namespace

std::string program_name(const std::vector<std::string>& argv) { return program_family(command_name(argv, 0)); }

}  // namespace gpuperf::record
