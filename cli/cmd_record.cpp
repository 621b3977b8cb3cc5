// `gpuperf record [options] -- APP [ARGS...]`: runs an unmodified CUDA program under gpuperf's injection
// library and stores every kernel it launched as a run, one kernel identity per instance and one launch per
// duration sample (README.md, "Recording a program"). One run per GPU the program used.
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/context.hpp"
#include "cli/help.hpp"
#include "cli/option_kinds.hpp"
#include "cli/record_run.hpp"
#include "db/interchange.hpp"
#include "reports/analysis/kind_split.hpp"
#include "reports/kind_split_text.hpp"

namespace gpuperf::cli {
namespace {

struct RecordCommandArgs {
  RecordArgs record;
  std::string format = "text";
};

int do_record(const Context& ctx, const RecordCommandArgs& a) {
  const Recorded recorded = record_and_store(ctx, a.record);
  if (a.format == "json") {
    std::cout << db::to_interchange(recorded.runs);
  } else {
    for (const Run& r : recorded.runs) {
      std::cout << "== " << r.machine.gpu_name << " (" << r.machine.gpu_uuid << ") ==\n" << format_top_kernels(r, 15);
    }
    // Each rank's GPU time split between compute and communication kernels (the built-in patterns and
    // --communication-kernel's), one line a run that has any communication kernel (a program on one GPU that
    // talks to nobody gets none).
    for (const Run& r : recorded.runs) {
      const std::string line = reports::kind_split_line(r, analysis::kind_split(r, a.record.communication_kernels));
      if (!line.empty()) std::cout << line << "\n";
    }
  }
  std::cout.flush();
  return program_exit_code(recorded, a.record);
}

}  // namespace

void add_record_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<RecordCommandArgs>();
  CLI::App* cmd = app.add_subcommand(
      "record",
      "Run a CUDA program unmodified and store every kernel it launched as a run (gpuperf record -- APP ARGS)");
  add_record_options(cmd, args->record);
  cmd->add_option("--commit", args->record.commit, "Commit to record (default: git rev-parse HEAD)");
  cmd->add_option("--branch", args->record.branch, "Branch to record (default: the checkout's branch)");
  cmd->add_option("--label", args->record.label, "Label of the stored run (default: record)");
  choice_option(cmd->add_option("--format", args->format, "text (top kernels) or json (the interchange format)"),
                {"text", "json"});
  cmd->add_option("command", args->record.command, "-- APP [ARGS...]: the program and its arguments")->required();
  set_help_footer(*cmd,
                  "gpuperf record -- ./my_app --size 4096\n"
                  "gpuperf record --label nightly --kernel-regex 'gemm|softmax' -- python3 train.py --steps 20",
                  exit_codes({{0, "recorded"},
                              {2, "bad usage, or nothing to record"},
                              {3, "no GPU or CUPTI, or another tool attached"},
                              {5, "the program failed (its run is stored with its exit status)"}}));
  cmd->callback([&ctx, args] { ctx.action = [&ctx, args] { return do_record(ctx, *args); }; });
}

}  // namespace gpuperf::cli
