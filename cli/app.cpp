// gpuperf: the command-line front end. Each subcommand lives in its own cmd_*.cpp; this file only wires
// them together and turns exceptions into the documented exit codes (README.md, "Exit codes").
#include "cli/app.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/context.hpp"
#include "core/errors.hpp"
#include "kernels/benchmark.hpp"

#ifndef GPUPERF_VERSION
#define GPUPERF_VERSION "0.0.0"
#endif

namespace gpuperf::cli {

int main(int argc, char** argv) {
  // A GPUPERF_BENCHMARK that was refused at start-up (a name registered twice, ...) makes every result of
  // this executable suspect: say where, and stop.
  if (const auto& errors = Registry::global().registration_errors(); !errors.empty()) {
    for (const auto& e : errors) std::fprintf(stderr, "gpuperf: error: benchmark registration: %s\n", e.c_str());
    return kExitUsage;
  }
  Context ctx;
  ctx.argv.assign(argv, argv + argc);
  if (const char* env = std::getenv("GPUPERF_DB"); env != nullptr && *env != '\0') {
    ctx.db_path = env;
  } else {
    ctx.db_path = "gpuperf.db";
  }

  CLI::App app{"gpuperf: performance regressions and profiles of CUDA kernels"};
  app.set_version_flag("--version", std::string("gpuperf ") + GPUPERF_VERSION);
  app.require_subcommand(1);
  app.fallthrough();
  app.option_defaults()->always_capture_default();
  app.add_option("--db", ctx.db_path, "SQLite results database (default ./gpuperf.db or $GPUPERF_DB)");
  app.add_flag("-q,--quiet", ctx.quiet, "No progress output");
  app.footer(
      "Exit codes: 0 fine, 1 regression found, 2 bad usage or input, 3 environment (no GPU, no profiling\n"
      "permission, unwritable path), 4 a kernel gave a wrong answer.");

  add_list_run_commands(app, ctx);
  add_profile_command(app, ctx);
  add_analysis_commands(app, ctx);
  add_report_command(app, ctx);
  add_import_export_commands(app, ctx);
  add_runs_commands(app, ctx);
  add_db_commands(app, ctx);
  add_merge_command(app, ctx);
  add_record_command(app, ctx);
  add_bisect_command(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);  // prints help/version (rc 0) or the usage error
    return rc == 0 ? kExitOk : kExitUsage;
  }
  if (!ctx.action) return kExitUsage;
  try {
    return ctx.action();
  } catch (const Error& e) {
    std::fprintf(stderr, "gpuperf: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuperf: internal error: %s\n", e.what());
    return kExitUsage;
  }
}

}  // namespace gpuperf::cli
