// gpuperf merge: combine the databases of several runners (or several nights) into one history.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/context.hpp"
#include "cli/help.hpp"
#include "cli/open_store.hpp"
#include "db/merge.hpp"
#include "db/store.hpp"
#include "reports/escape.hpp"

namespace gpuperf::cli {
namespace {

struct MergeArgs {
  std::vector<std::string> sources;
  std::string into;
};

int do_merge(const Context& ctx, const MergeArgs& a) {
  // Sources are read in full before the target is opened: a bad source leaves the target untouched
  // (not even created). A new target appears only complete, with every run.
  const db::ParsedFiles parsed = db::read_databases(a.sources);
  const db::ImportReport r = db::import_into(a.into, parsed, open_options(ctx));
  if (!ctx.quiet) {
    std::printf(
        "merged %zu run%s from %zu database%s into %s: %zu new, %zu skipped (already there); "
        "%zu results, %zu samples\n",
        r.runs, r.runs == 1 ? "" : "s", parsed.files, parsed.files == 1 ? "" : "s",
        db::display_location(a.into).c_str(), r.inserted, r.skipped, r.results, r.samples);
    if (r.answers > 0) std::printf("%zu acknowledgement(s) and annotation(s) new\n", r.answers);
  }
  for (const std::string& d : r.differing) {
    std::fprintf(stderr, "gpuperf: warning: %s\n", reports::terminal_text(d).c_str());
  }
  return kExitOk;
}

}  // namespace

void add_merge_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* merge = app.add_subcommand(
      "merge", "Combine databases from several runners into one (idempotent on run uuid; machines kept apart)");
  merge->add_option("SOURCE", args->sources, "Databases to read (read-only)")->required();
  merge->add_option("--into", args->into, "Database to merge into: a file (created if missing) or a PostgreSQL URI")
      ->required();
  set_help_footer(
      *merge,
      "gpuperf merge runner-a.db runner-b.db --into all.db\n"
      "gpuperf merge runner-a.db runner-b.db --into postgresql://admin@perf-db/gpuperf",
      exit_codes({{0, "merged (runs already there are skipped)"},
                  {2, "a source that is missing or not gpuperf's, or metrics whose units contradict: nothing written"},
                  {3, "the destination cannot be written"}}));
  merge->callback([&ctx, args] { ctx.action = [&ctx, args] { return do_merge(ctx, *args); }; });
}

}  // namespace gpuperf::cli
