// What every subcommand shares: the database path, the output format, and the way it reports.
#pragma once

#include <unistd.h>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gpuperf::cli {

struct Context {
  std::string db_path;            // --db, else $GPUPERF_DB, else ./gpuperf.db
  bool quiet = false;             // --quiet: no progress lines
  std::string busy_timeout;       // --busy-timeout SECONDS; empty: $GPUPERF_DB_BUSY_TIMEOUT, else 10 minutes
  std::vector<std::string> argv;  // the command line as given, for commands that start workers of themselves
  // Set by the chosen subcommand's callback; main() runs it and maps exceptions to exit codes.
  std::function<int()> action;

  // Progress belongs on a terminal only: piped output stays machine-readable.
  bool progress_enabled() const { return !quiet && isatty(STDERR_FILENO) != 0; }
};

// Each subcommand file adds its commands here; see main.cpp for the order.
void add_db_commands(CLI::App& app, Context& ctx);         // db info | check | migrate
void add_runs_commands(CLI::App& app, Context& ctx);       // runs [exclude|include|show]
void add_runs_show_command(CLI::App& runs, Context& ctx);  // runs show RUN (cli/cmd_runs_show.cpp)
void add_import_export_commands(CLI::App& app, Context& ctx);
void add_list_run_commands(CLI::App& app, Context& ctx);  // list, run
void add_profile_command(CLI::App& app, Context& ctx);
void add_metrics_command(CLI::App& app, Context& ctx);    // metrics --chip CHIP (cli/cmd_metrics.cpp)
void add_analysis_commands(CLI::App& app, Context& ctx);  // compare, check, detect
void add_report_command(CLI::App& app, Context& ctx);
void add_merge_command(CLI::App& app, Context& ctx);
void add_record_command(CLI::App& app, Context& ctx);   // record -- APP ARGS
void add_bisect_command(CLI::App& app, Context& ctx);   // bisect, and its hidden bisect-step
void add_answer_commands(CLI::App& app, Context& ctx);  // ack, annotate

}  // namespace gpuperf::cli
