// gpuperf report: HTML and Markdown trend reports from the store's history.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/context.hpp"
#include "cli/help.hpp"
#include "cli/open_store.hpp"
#include "cli/option_kinds.hpp"
#include "core/errors.hpp"
#include "db/store.hpp"
#include "gpuperf/version.hpp"
#include "reports/analysis/detect.hpp"
#include "reports/analysis/recent_samples.hpp"
#include "reports/report_files.hpp"
#include "reports/report_input.hpp"
#include "reports/writers.hpp"

namespace gpuperf::cli {
namespace {

struct ReportArgs {
  std::string out;  // a directory; "" (not given) or "-": the Markdown report on standard output
  std::vector<std::string> formats{"html", "md"};
  std::string branch, since;
  std::vector<std::string> machines;
  std::size_t last = 0;
  bool timings = false;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int do_report(const Context& ctx, const ReportArgs& args) {
  bool html = false, md = false;
  for (const auto& f : args.formats) {
    if (f == "html") {
      html = true;
    } else if (f == "md" || f == "markdown") {
      md = true;
    } else {
      throw InputError("--format: unknown report format '" + f + "' (expected html, md or both: html,md)");
    }
  }
  // README's pull-request comment is `gpuperf report --format md > comment.md`: without a directory, the
  // Markdown goes to standard output. An HTML report is a file with its charts, so it needs --out.
  const bool to_stdout = args.out.empty() || args.out == "-";
  if (to_stdout && html) {
    throw InputError(std::string(args.out.empty() ? "--out DIR is required for the HTML report"
                                                  : "--out - prints Markdown only; the HTML report needs --out DIR") +
                     " (or give --format md to print the Markdown report on standard output)");
  }

  reports::ReportQuery query;
  if (!args.branch.empty()) query.branch = args.branch;
  query.machines = args.machines;
  if (!args.since.empty()) query.since = args.since;
  if (args.last > 0) query.last = args.last;

  // Stage timings for --timings: where a slow report spends its time.
  std::vector<std::pair<const char*, double>> stages;
  auto t0 = std::chrono::steady_clock::now();
  db::Store store = open_store(ctx, db::Access::read_only);
  if (query.branch) require_branch(store, *query.branch);
  double detect_s = 0;
  reports::ReportInput input = reports::load_report_input(
      store, query,
      [&detect_s](const std::vector<db::Series>& series) {
        const auto t = std::chrono::steady_clock::now();
        auto changes = analysis::detect_changes(series);
        detect_s = seconds_since(t);
        return changes;
      },
      analysis::recent_runs_for_samples(analysis::DetectOptions{}));
  stages.emplace_back("read the store (runs, history, baselines)", seconds_since(t0) - detect_s);
  stages.emplace_back("detect change points", detect_s);
  input.tool_version = GPUPERF_VERSION;
  t0 = std::chrono::steady_clock::now();
  const reports::ReportModel model = reports::build_report_model(std::move(input));
  stages.emplace_back("build the report model", seconds_since(t0));

  const std::filesystem::path dir(args.out);
  std::vector<std::string> written;
  if (html) {
    const auto path = dir / "report.html";
    t0 = std::chrono::steady_clock::now();
    const std::string text = reports::render_html(model);
    stages.emplace_back("render HTML", seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    reports::write_file_atomically(path, text);
    stages.emplace_back("write report.html", seconds_since(t0));
    written.push_back(path.string());
  }
  if (md && to_stdout) {
    t0 = std::chrono::steady_clock::now();
    reports::MarkdownOptions options;
    options.html_link = "";  // no HTML report beside it
    const std::string text = reports::render_markdown(model, options);
    stages.emplace_back("render Markdown", seconds_since(t0));
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    if (std::ferror(stdout)) throw EnvironmentError("writing the report to standard output failed");
  } else if (md) {
    reports::MarkdownOptions options;
    options.html_link = html ? "report.html" : "";
    const auto path = dir / "report.md";
    t0 = std::chrono::steady_clock::now();
    const std::string text = reports::render_markdown(model, options);
    stages.emplace_back("render Markdown", seconds_since(t0));
    reports::write_file_atomically(path, text);
    written.push_back(path.string());
  }
  if (args.timings) {
    for (const auto& [what, s] : stages) std::fprintf(stderr, "gpuperf report: %8.3f s  %s\n", s, what);
  }
  if (!ctx.quiet) {
    std::fprintf(stderr, "gpuperf report: %zu runs on %zu machine%s, %zu regression%s, %zu improvement%s\n",
                 model.total_runs(), model.machines.size(), model.machines.size() == 1 ? "" : "s",
                 model.total_regressions(), model.total_regressions() == 1 ? "" : "s", model.total_improvements(),
                 model.total_improvements() == 1 ? "" : "s");
  }
  for (const auto& w : written) std::printf("%s\n", w.c_str());
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Write trend reports (HTML with charts, Markdown for PR comments and job summaries)");
  text_option(cmd->add_option("--out", args->out,
                              "Directory for report.html and report.md (created if missing); without it, or "
                              "with -, --format md prints the Markdown report on standard output"),
              "a directory, or - for standard output");
  choice_option(cmd->add_option("--format", args->formats, "Formats to write: html, md (or markdown; default both)")
                    ->delimiter(','),
                {"html", "md", "markdown"});
  cmd->add_option("--branch", args->branch, "Only runs of this branch (default: all branches)");
  cmd->add_option(
      "--machine", args->machines,
      "Only this machine: id, fingerprint (or its printed prefix), name or hostname (repeatable; default: all)");
  date_option(
      cmd->add_option("--since", args->since, "Only runs started at or after this ISO 8601 date (e.g. 2026-06-01)"));
  count_option(cmd->add_option("--last", args->last, "Only each machine's newest N runs"), 1);
  cmd->add_flag("--timings", args->timings, "Print how long each stage took (to standard error)");
  set_help_footer(
      *cmd,
      "gpuperf report --out site\n"
      "gpuperf report --out site --branch main --last 30 --format md\n"
      "gpuperf report --format md --last 2 > comment.md    # a pull-request comment",
      exit_codes({{0, "the report is written"},
                  {2, "bad usage or input: --out missing for HTML, a branch with no runs, a database not gpuperf's"},
                  {3, "the output directory cannot be written"}}));
  cmd->callback([&ctx, args] { ctx.action = [&ctx, args] { return do_report(ctx, *args); }; });
}

}  // namespace gpuperf::cli
