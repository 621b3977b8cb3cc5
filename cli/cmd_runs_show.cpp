#include "cli/cmd_runs_show.hpp"

#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/help.hpp"
#include "cli/open_store.hpp"
#include "core/errors.hpp"
#include "reports/escape.hpp"

namespace gpuperf::cli {
namespace {

int do_show(const Context& ctx, const std::string& ref) {
  const db::Store store = open_store(ctx, db::Access::read_only);
  const auto run = store.find_run(ref);
  if (!run)
    throw InputError("no run matches '" + ref + "' (a run id, a uuid or prefix, or a commit; see `gpuperf runs`)");
  std::printf("run       %s (id %lld)\n", run->uuid.c_str(), static_cast<long long>(run->id));
  std::printf("started   %s\n", run->started_at.c_str());
  std::printf("commit    %s  branch %s  label %s\n", reports::terminal_text(run->commit).c_str(),
              reports::terminal_text(run->branch).c_str(), reports::terminal_text(run->label).c_str());
  std::printf("machine   %s (%s, %s)\n", reports::terminal_text(run->hostname).c_str(),
              reports::terminal_text(run->gpu_name).c_str(), reports::terminal_text(run->fingerprint).c_str());
  if (run->excluded) std::printf("excluded  %s\n", reports::terminal_text(run->exclude_reason).c_str());
  std::fputs(run_answers_text(store, *run).c_str(), stdout);
  return kExitOk;
}

}  // namespace

std::string run_answers_text(const db::Store& store, const db::RunInfo& run) {
  std::string out;
  for (const db::Annotation& n : store.annotations()) {
    const bool on =
        (n.run_id && *n.run_id == run.id) || (!n.commit.empty() && run.commit.rfind(n.commit, 0) == 0) ||
        (!n.night.empty() && n.machine_id && *n.machine_id == run.machine_id && run.started_at.rfind(n.night, 0) == 0);
    if (!on) continue;
    out += "note      " + reports::terminal_text(n.text) +
           (n.by.empty() ? "" : " (" + reports::terminal_text(n.by) + ")") + "\n";
  }
  for (const db::Acknowledgement& a : store.acknowledgements()) {
    if (a.run_id != run.id) continue;
    out += std::string(a.undone     ? "undone    "
                       : a.accepted ? "accepted  "
                                    : "acked     ") +
           reports::terminal_text(a.instance.display_name() + " " + a.metric + ": " + a.reason) +
           (a.by.empty() ? "" : " (" + reports::terminal_text(a.by) + ")") + "\n";
  }
  return out;
}

void add_runs_show_command(CLI::App* runs, Context& ctx) {
  auto ref = std::make_shared<std::string>();
  CLI::App* show = runs->add_subcommand("show", "One run: its header, and the team's notes and acknowledgements on it");
  show->add_option("RUN", *ref, "Run id, uuid (or prefix of 8+), or commit (7+)")->required();
  set_help_footer(*show, "gpuperf runs show 42",
                  exit_codes({{0, "fine"}, {2, "no such run, no database at the path, one not gpuperf's"}}));
  show->callback([&ctx, ref] { ctx.action = [&ctx, ref] { return do_show(ctx, *ref); }; });
}

}  // namespace gpuperf::cli
