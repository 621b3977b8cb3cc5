// gpuperf: the command-line front end. Each subcommand lives in its own cmd_*.cpp; this file only wires
// them together and turns exceptions into the documented exit codes (README.md, "Exit codes").
#include "cli/app.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/context.hpp"
#include "cli/help.hpp"
#include "cli/option_kinds.hpp"
#include "cli/unknown_word.hpp"
#include "core/errors.hpp"
#include "core/value_rules.hpp"
#include "gpuperf/version.hpp"
#include "kernels/benchmark.hpp"

namespace gpuperf::cli {

const std::string& exit_codes_help() {
  static const std::string text =
      "Exit codes:\n"
      "  0  fine\n"
      "  1  a regression was found (compare, check, detect --fail-on-regression)\n"
      "  2  bad usage or input: an unknown command or option, a malformed file, a database not gpuperf's\n"
      "  3  the environment cannot do it: no GPU or driver, no profiling permission, an unwritable path\n"
      "  4  a kernel gave a wrong answer (stored as incorrect, never a baseline)\n"
      "  5  record, check --record: the recorded program failed (its run is stored with its exit status)\n"
      "  130  bisect was interrupted (Ctrl-C, SIGTERM): its worktree removed, the checkout untouched";
  return text;
}

std::string exit_codes(std::initializer_list<std::pair<int, const char*>> codes) {
  std::string text = "Exit codes:";
  for (const auto& [code, meaning] : codes) text += "\n  " + std::to_string(code) + "  " + meaning;
  return text;
}

void set_help_footer(CLI::App& cmd, const std::string& examples, const std::string& exit_codes) {
  std::istringstream lines(examples);
  std::string text = "Examples:\n";
  for (std::string line; std::getline(lines, line);) text += "  " + line + "\n";
  cmd.footer(text + "\n" + exit_codes);
}

namespace {

// An error's lines as the terminal shows them: a value quoted from a file or an option (a uuid, a status, a
// key) keeps its control characters as escapes (rules::shown_text), whichever message quotes it.
std::string shown_lines(const std::string& what) {
  std::string out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = what.find('\n', start);
    out += rules::shown_text(what.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    out += '\n';
    start = end + 1;
  }
}

// Every refusal of the command line reads as gpuperf's own errors do, "gpuperf: error: " and what was
// expected (option values are checked by cli/option_kinds.hpp), then the help of the command refused.
std::string failure_message(const CLI::App* app, const CLI::Error& e) {
  std::string command = app->get_name();
  const CLI::App* deepest = app;
  for (;;) {
    const auto parsed = deepest->get_subcommands();
    if (parsed.empty()) break;
    deepest = parsed.front();
    command += " " + deepest->get_name();
  }
  std::string what = e.what();
  if (what == "A subcommand is required") {
    std::string names;
    // Hidden commands (no group: internal ones such as bisect-step) are not offered.
    for (const CLI::App* sub : deepest->get_subcommands([](const CLI::App* c) { return !c->get_group().empty(); })) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    what = "'" + command + "' needs a command: " + names;
  }
  return app->get_name() + ": error: " + shown_lines(what) + "\nSee '" + command +
         " --help' for its options and examples.\n";
}

}  // namespace

int main(int argc, char** argv) {
  // The program's own name, not its build path: "Usage: gpuperf ...", and a user's bench (GPUPERF_BENCHMARK
  // and gpuperf::main) says "my_bench: error: ...".
  const std::string program = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "gpuperf";
  // A GPUPERF_BENCHMARK that was refused at start-up (a name registered twice, ...) makes every result of
  // this executable suspect: say where, and stop.
  if (const auto& errors = Registry::global().registration_errors(); !errors.empty()) {
    for (const auto& e : errors) {
      std::fprintf(stderr, "%s: error: benchmark registration: %s\n", program.c_str(), e.c_str());
    }
    return kExitUsage;
  }
  Context ctx;
  ctx.argv.assign(argv, argv + argc);
  if (const char* env = std::getenv("GPUPERF_DB"); env != nullptr && *env != '\0') {
    ctx.db_path = env;
  } else {
    ctx.db_path = "gpuperf.db";
  }

  CLI::App app{"gpuperf: performance regressions and profiles of CUDA kernels", program};
  app.set_version_flag("--version", std::string("gpuperf ") + GPUPERF_VERSION);
  app.require_subcommand(1);
  app.failure_message(failure_message);
  app.fallthrough();
  app.option_defaults()->always_capture_default();
  text_option(app.add_option("--db", ctx.db_path,
                             "Results database: an SQLite file, or a PostgreSQL URI such as "
                             "postgresql://runner@perf-db/gpuperf (default ./gpuperf.db or $GPUPERF_DB)"),
              "an SQLite file or a PostgreSQL URI");
  app.add_flag("-q,--quiet", ctx.quiet, "No progress output");
  app.add_option("--busy-timeout", ctx.busy_timeout,
                 "Seconds a write waits for another process's lock on the database (default 600 or "
                 "$GPUPERF_DB_BUSY_TIMEOUT)");
  set_help_footer(app,
                  "gpuperf run --label nightly            # verify, time and profile the suite; store the run\n"
                  "gpuperf check --baseline branch:main   # the pre-merge check\n"
                  "gpuperf report --out site              # HTML and Markdown trend reports\n"
                  "gpuperf record -- ./my_app --size 4096 # every kernel of an unmodified CUDA program\n"
                  "gpuperf COMMAND --help                 # a command's options and examples",
                  exit_codes_help());

  add_list_run_commands(app, ctx);
  add_profile_command(app, ctx);
  add_metrics_command(app, ctx);
  add_analysis_commands(app, ctx);
  add_report_command(app, ctx);
  add_import_export_commands(app, ctx);
  add_runs_commands(app, ctx);
  add_db_commands(app, ctx);
  add_merge_command(app, ctx);
  add_record_command(app, ctx);
  add_bisect_command(app, ctx);
  add_answer_commands(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A misspelt command or option: name it and the nearest valid one, as git does.
    if (e.get_exit_code() != 0) {
      const std::string unknown = unknown_word_message(app, std::vector<std::string>(argv + 1, argv + argc));
      if (!unknown.empty()) {
        std::fprintf(stderr, "%s\n", shown_lines(unknown).c_str());
        return kExitUsage;
      }
    }
    int rc = app.exit(e);  // prints help/version (rc 0) or the usage error
    return rc == 0 ? kExitOk : kExitUsage;
  }
  if (!ctx.action) return kExitUsage;
  try {
    return ctx.action();
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), shown_lines(e.what()).c_str());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", program.c_str(), shown_lines(e.what()).c_str());
    return kExitUsage;
  }
}

}  // namespace gpuperf::cli
