// gpuperf import | export: runs in and out of the database in the interchange format (README "Database").
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/context.hpp"
#include "cli/help.hpp"
#include "cli/open_store.hpp"
#include "cli/option_kinds.hpp"
#include "db/import_export.hpp"
#include "db/store.hpp"
#include "reports/escape.hpp"

namespace gpuperf::cli {
namespace {

struct ExportArgs {
  std::vector<std::string> runs;
  std::string branch, machine, since, output;
};

int do_import(const Context& ctx, const std::vector<std::string>& files) {
  // Every file is read and validated before the database is opened: a bad file leaves no trace, not even
  // a new empty database. A new database appears only complete, with these runs.
  const db::ParsedFiles parsed = db::read_interchange_files(files);
  const db::ImportReport r = db::import_into(ctx.db_path, parsed, open_options(ctx));
  if (!ctx.quiet) {
    std::printf(
        "imported %zu run%s into %s: %zu new, %zu skipped (already there); %zu results, %zu samples "
        "from %zu file%s\n",
        r.runs, r.runs == 1 ? "" : "s", shown_db(ctx).c_str(), r.inserted, r.skipped, r.results, r.samples, r.files,
        r.files == 1 ? "" : "s");
    if (r.answers > 0) std::printf("%zu acknowledgement(s) and annotation(s) new\n", r.answers);
  }
  for (const std::string& d : r.differing) {
    std::fprintf(stderr, "gpuperf: warning: %s\n", reports::terminal_text(d).c_str());
  }
  return kExitOk;
}

int do_export(const Context& ctx, const ExportArgs& a) {
  db::Store store = open_store(ctx, db::Access::read_only);
  db::RunFilter f;
  if (!a.branch.empty()) require_branch(store, a.branch);
  if (!a.branch.empty()) f.branch = a.branch;
  if (!a.since.empty()) f.since = a.since;
  if (!a.machine.empty()) {
    auto m = store.find_machine(a.machine);
    if (!m) throw InputError("no machine matches '" + a.machine + "' (give an id, a fingerprint or a hostname)");
    f.machine_id = m->id;
  }
  std::vector<std::int64_t> ids;
  const auto matching = store.runs(f);  // excluded runs too: their flag travels with them
  if (a.runs.empty()) {
    for (const auto& r : matching) ids.push_back(r.id);
  } else {
    for (const auto& ref : a.runs) {
      auto r = store.find_run(ref);
      if (!r) throw InputError("no run matches '" + ref + "' (see `gpuperf runs`)");
      bool passes = false;
      for (const auto& m : matching) passes = passes || m.id == r->id;
      if (passes && std::find(ids.begin(), ids.end(), r->id) == ids.end()) ids.push_back(r->id);
    }
  }
  std::size_t n = 0;
  if (a.output.empty() || a.output == "-") {
    n = db::export_runs(store, ids, std::cout);
  } else {
    n = db::export_runs_to_file(store, ids, a.output);
  }
  if (!ctx.quiet && (ctx.progress_enabled() || !a.output.empty() || n == 0)) {
    std::fprintf(stderr, "exported %zu run%s%s%s\n", n, n == 1 ? "" : "s", a.output.empty() ? "" : " to ",
                 a.output.c_str());
  }
  return kExitOk;
}

}  // namespace

void add_import_export_commands(CLI::App& app, Context& ctx) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* imp =
      app.add_subcommand("import",
                         "Add runs from gpuperf-results JSON files; all files in one transaction, runs already present "
                         "(same uuid) skipped");
  imp->add_option("FILE", *files, "Interchange files; - reads standard input")->required();
  set_help_footer(*imp,
                  "gpuperf import runs.json more-runs.json\n"
                  "gpuperf export --branch main | gpuperf --db copy.db import -",
                  exit_codes({{0, "imported (runs already there are skipped)"},
                              {2, "a malformed or contradicting file (the JSON path is named): nothing written"},
                              {3, "the database cannot be written"}}));
  imp->callback([&ctx, files] { ctx.action = [&ctx, files] { return do_import(ctx, *files); }; });

  auto args = std::make_shared<ExportArgs>();
  CLI::App* exp = app.add_subcommand("export", "Write runs as gpuperf-results JSON (read-only; default: every run)");
  exp->add_option("--run", args->runs, "A run: id, uuid (or prefix of 8+), or commit (7+); repeatable");
  exp->add_option("--branch", args->branch, "Only runs of this branch");
  exp->add_option("--machine", args->machine,
                  "Only runs of this machine: id, fingerprint (or its printed prefix), name or hostname");
  date_option(exp->add_option("--since", args->since, "Only runs started at or after this ISO 8601 time"));
  exp->add_option("-o,--output", args->output,
                  "Write here (atomically: a temporary file renamed into place) instead of standard output");
  set_help_footer(
      *exp,
      "gpuperf export --branch main --since 2026-11-01 -o runs.json\n"
      "gpuperf export --run 42",
      exit_codes({{0, "fine"},
                  {2, "bad usage or input: a run, branch or machine that names nothing, a database not gpuperf's"},
                  {3, "the output file cannot be written"}}));
  exp->callback([&ctx, args] { ctx.action = [&ctx, args] { return do_export(ctx, *args); }; });
}

}  // namespace gpuperf::cli
