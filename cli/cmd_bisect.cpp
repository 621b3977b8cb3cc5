// gpuperf bisect: which commit between a good and a bad one changed a benchmark's metric (README.md,
// "Bisect: which commit"). git's own bisection drives it in a worktree of its own; each commit is built,
// measured and stored (label bisect) by `gpuperf bisect-step`, which git calls back; the decision is
// compare's test (reports/analysis/bisect_rule.hpp).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/bisect_commit.hpp"
#include "cli/bisect_git.hpp"
#include "cli/context.hpp"
#include "cli/help.hpp"
#include "cli/option_kinds.hpp"
#include "cli/subprocess.hpp"
#include "core/errors.hpp"
#include "db/store.hpp"
#include "reports/analysis/bisect_rule.hpp"
#include "reports/analysis/detect.hpp"
#include "reports/analysis/identity_findings.hpp"
#include "reports/analysis/line_findings.hpp"
#include "reports/analysis/line_history.hpp"
#include "reports/analysis/not_enough_data.hpp"
#include "reports/analysis/recent_samples.hpp"
#include "reports/bisect_writer.hpp"

namespace gpuperf::cli {
namespace {

using reports::BisectReport;
using reports::BisectStepRow;

constexpr int kExitInterrupted = 130;

struct BisectArgs {
  std::string good, bad, build, bench, filter, metric = "duration", metrics = "default";
  std::string format = "text", repo = ".", branch = "main";
  int device = 0, tries = 3;
  bool quick = false, finding = false, record = false;
  double alpha = 0.01;
  std::vector<std::string> thresholds, command;
};

std::string this_host() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

// --finding: good, bad, instance and metric of the newest regression `detect` finds on this machine (this
// host's GPUs; every machine when this host has stored nothing), its duration change where the run has one.
void from_finding(const Context& ctx, BisectArgs& a) {
  db::Store store(ctx.db_path, db::Access::read_only);
  std::set<std::string> here;
  for (const db::MachineRow& m : store.machines()) {
    if (m.machine.hostname == this_host()) here.insert(m.fingerprint);
  }
  db::HistoryFilter f;
  f.branch = a.branch;
  analysis::DetectOptions options;
  std::vector<db::Series> series = store.history(f);
  analysis::attach_recent_samples(store, f, series, analysis::recent_runs_for_samples(options));
  // Kept for as long as `newest` points into it.
  const std::vector<analysis::ChangePoint> changes = analysis::detect_changes(series, options);
  // The newest regression, a duration change before a counter's of the same run: the duration is what a user
  // bisects, and the counters that moved with it are its hints.
  const analysis::ChangePoint* newest = nullptr;
  const auto later = [](const analysis::ChangePoint& c, const analysis::ChangePoint& than) {
    if (c.started_at != than.started_at) return c.started_at > than.started_at;
    return c.metric.name == "duration" && than.metric.name != "duration";
  };
  for (const analysis::ChangePoint& c : changes) {
    if (c.kind != analysis::ChangeKind::regression || c.commit.empty() || c.previous_commit.empty()) continue;
    if (!here.empty() && here.count(c.machine) == 0) continue;
    if (newest == nullptr || later(c, *newest)) newest = &c;
  }
  if (newest == nullptr) {
    throw InputError("--finding: detect finds no regression with commits on both sides on branch '" + a.branch +
                     "' of " + ctx.db_path + (here.empty() ? "" : " on this machine"));
  }
  a.good = newest->previous_commit;
  a.bad = newest->commit;
  a.filter = analysis::exact_filter(newest->instance);
  a.metric = newest->metric.name;
  std::fprintf(stderr, "bisect: newest finding: %s %s %+.1f%% between %s and %s\n",
               newest->instance.display_name().c_str(), a.metric.c_str(), newest->change_pct,
               a.good.substr(0, 10).c_str(), a.bad.substr(0, 10).c_str());
}

// The bisection's temporary folder, removed with everything in it at the end.
class Scratch {
 public:
  Scratch() {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/gpuperf-bisect-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) {
      throw EnvironmentError("cannot create a temporary folder (" + tmpl + "): " + std::strerror(errno));
    }
    path_ = tmpl;
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void stop_if_interrupted() {
  if (interrupted() != 0) {
    throw Error("interrupted (signal " + std::to_string(interrupted()) +
                    "): the bisection stopped, its worktree is removed, your checkout is untouched",
                kExitInterrupted);
  }
}

double median_of(const Run& run, const BenchmarkInstance& instance, const std::string& metric) {
  for (const Result& r : run.results) {
    if (r.instance.name != instance.name || params_key(r.instance.params) != params_key(instance.params)) continue;
    const Measurement* m = r.find(metric);
    if (m == nullptr) return 0;
    return m->summary.n > 0 || m->samples.empty() ? m->summary.median : summarize(m->samples).median;
  }
  return 0;
}

// One end: its stored bisect run on this machine, else build and measure it (not stored yet: an end that
// fails, or a change that does not reproduce, stores nothing).
struct End {
  std::string name, sha;
  Run run;
  std::int64_t id = 0;  // 0 until stored
  BisectStepRow row;
};

End measure_end(const Context& ctx, BisectConfig& cfg, const Worktree& wt, const std::string& name,
                const std::string& sha, BisectReport& report) {
  End e{name, sha, {}, 0, {}};
  e.row.commit = sha;
  e.row.verdict = name;
  if (db::location_exists(ctx.db_path)) {
    const db::Store store(ctx.db_path, db::Access::read_only);
    const std::vector<std::int64_t> ids = stored_runs(cfg, store, sha);
    if (!ids.empty()) {
      e.id = ids.back();
      e.run = store.load_run(e.id);
      e.row.runs_reused = 1;
      e.row.why = "stored run " + std::to_string(e.id) + " reused";
      ++report.runs_reused;
    }
  }
  if (e.id == 0) {
    wt.checkout(sha);
    CommitStep step;
    std::string failure;
    if (!build_commit(cfg, sha, step, &failure)) {
      stop_if_interrupted();
      throw InputError("the build command fails at the " + name + " end (" + sha.substr(0, 12) + "), so nothing " +
                       "can be bisected; nothing was stored: " + failure);
    }
    ++report.commits_built;
    stop_if_interrupted();
    std::optional<Run> run = measure_commit(cfg, sha, step, &failure);
    stop_if_interrupted();
    if (!run) throw InputError("the " + name + " end (" + sha.substr(0, 12) + ") cannot be measured: " + failure);
    ++report.runs_measured;
    e.run = std::move(*run);
    e.row.built = true;
    e.row.runs_measured = 1;
    e.row.why = "measured";
  }
  if (cfg.fingerprint.empty()) cfg.fingerprint = e.run.machine.fingerprint();
  return e;
}

std::string rows_text(const std::vector<analysis::CompareRow>& rows) {
  std::string out;
  for (const auto& r : rows) {
    char buf[300];
    std::snprintf(buf, sizeof buf, "\n  %s %s: %s (%+.1f%%)%s%s", r.instance.display_name().c_str(),
                  r.metric.name.c_str(), analysis::to_string(r.verdict), r.change_pct, r.note.empty() ? "" : ": ",
                  r.note.c_str());
    out += buf;
  }
  return out.empty() ? "\n  (neither end has this metric for an instance matching the filter)" : out;
}

// The newest stored run of `sha` for the report, else `fallback` (an end, or the good end for a parent
// that git never had to measure).
Run run_for(const BisectConfig& cfg, const db::Store& store, const std::string& sha, const Run& fallback) {
  const std::vector<std::int64_t> ids = stored_runs(cfg, store, sha);
  return ids.empty() ? fallback : store.load_run(ids.back());
}

// Refuses an incomplete or contradictory command line before any work.
void check_args(const BisectArgs& a) {
  if (a.good.empty() || a.bad.empty()) throw InputError("bisect needs --good REF and --bad REF (or --finding)");
  if (a.build.empty()) throw InputError("bisect needs --build 'CMD': how to build a commit in its checkout");
  if (a.record != !a.command.empty()) {
    throw InputError(a.record ? "bisect --record needs the program: -- APP [ARGS...]"
                              : "a program was given without --record: bisect ... --record -- APP [ARGS...]");
  }
  if (!a.record && a.bench.empty())
    throw InputError("bisect needs --bench PATH (the built bench executable) or --record");
  if (!a.record && a.filter.empty()) throw InputError("bisect needs --filter INSTANCE: the instances to measure");
  if (a.tries < 1) throw InputError("--tries must be at least 1");
  if (!(a.alpha > 0 && a.alpha < 1)) throw InputError("--alpha must lie in (0, 1)");
}

// What each `bisect-step` process needs to measure a commit (written to the scratch folder as JSON).
BisectConfig make_config(const Context& ctx, const BisectArgs& a) {
  BisectConfig cfg;
  cfg.build = a.build;
  cfg.bench = a.bench;
  cfg.record = a.command;
  cfg.filter = a.filter;
  cfg.metric = a.metric;
  cfg.metrics = a.record && a.metrics == "default" ? "none" : a.metrics;
  cfg.device = a.device;
  cfg.quick = a.quick;
  cfg.tries = a.tries;
  cfg.alpha = a.alpha;
  cfg.thresholds = a.thresholds;
  cfg.compare_options();  // a bad --threshold fails before any work
  cfg.hostname = this_host();
  cfg.db_path = db::absolute_location(ctx.db_path);
  cfg.self = std::filesystem::read_symlink("/proc/self/exe").string();
  return cfg;
}

// The two ends as full shas, good an ancestor of bad, and the commits between them.
void resolve_range(const std::string& repo, const BisectArgs& a, BisectReport& report) {
  report.good = resolve_commit(repo, a.good);
  report.bad = resolve_commit(repo, a.bad);
  report.filter = a.filter;
  report.metric = a.metric;
  if (report.good == report.bad) throw InputError("--good and --bad name the same commit " + report.good.substr(0, 12));
  if (!is_ancestor(repo, report.good, report.bad)) {
    throw InputError("--good " + a.good + " is not an ancestor of --bad " + a.bad + ": bisect needs good before bad");
  }
  report.commits_in_range = commits_between(repo, report.good, report.bad);
}

// The steps git's bisection took, as each bisect-step process recorded them; an aborted step stops here.
void collect_steps(const BisectConfig& cfg, BisectReport& report) {
  for (const CommitStep& s : read_steps(cfg)) {
    if (s.verdict == "abort") throw EnvironmentError("bisect stopped at " + s.commit.substr(0, 12) + ": " + s.why);
    report.commits_built += s.built ? 1 : 0;
    report.runs_measured += static_cast<int>(s.measured.size());
    report.runs_reused += static_cast<int>(s.reused.size());
    report.steps.push_back(
        {s.commit, s.verdict, s.why, static_cast<int>(s.measured.size()), static_cast<int>(s.reused.size()), s.built});
  }
}

// The one culprit's levels (good end, its parent, itself, bad end) and what moved with it.
void describe_culprit(const Context& ctx, const BisectConfig& cfg, const std::string& repo, const std::string& sha,
                      const End& good, const End& bad, const std::vector<analysis::TrackedChange>& tracked,
                      BisectReport& report) {
  report.culprit = commit_info(repo, sha);
  const db::Store store(ctx.db_path, db::Access::read_only);
  Run at = run_for(cfg, store, report.culprit.sha, bad.run);
  Run before = report.culprit.parent == report.good ? good.run : run_for(cfg, store, report.culprit.parent, good.run);
  analysis::LineTextHistory texts(store);  // lines collected away from their sources: the history's text
  texts.fill(at, 0);
  texts.fill(before, 0);
  for (const auto& t : tracked) {
    report.levels.push_back({t.instance.display_name(), t.ends.metric, median_of(good.run, t.instance, cfg.metric),
                             median_of(before, t.instance, cfg.metric), median_of(at, t.instance, cfg.metric),
                             median_of(bad.run, t.instance, cfg.metric)});
  }
  const analysis::CompareOptions options = cfg.compare_options();
  report.moved = analysis::moved_with(before, at, tracked, options);
  report.bounds = analysis::bound_changes(before, at, tracked);
  for (const auto& t : tracked) {  // the source lines that moved at the culprit
    auto lines =
        analysis::result_line_changes(analysis::find_result(before, t.instance), analysis::find_result(at, t.instance));
    if (!lines.empty()) report.lines.push_back({t.instance.display_name(), std::move(lines)});
  }
}

void write_report(const std::string& format, const BisectReport& report) {
  if (format == "json") {
    reports::write_bisect_json(std::cout, report);
  } else if (format == "md" || format == "markdown") {
    reports::write_bisect_markdown(std::cout, report);
  } else {
    reports::write_bisect_text(std::cout, report);
  }
  std::cout.flush();
}

int do_bisect(const Context& ctx, BisectArgs a) {
  const auto t0 = std::chrono::steady_clock::now();
  if (a.finding) from_finding(ctx, a);
  check_args(a);
  BisectConfig cfg = make_config(ctx, a);
  const std::string repo = git_toplevel(a.repo);
  BisectReport report;
  resolve_range(repo, a, report);

  forward_interrupts();
  const Scratch scratch;
  cfg.scratch = scratch.path();
  {
    const Worktree wt(repo, scratch.path() + "/worktree", report.good);
    cfg.worktree = wt.dir();
    if (!ctx.quiet) std::fprintf(stderr, "bisect: measuring the ends in %s\n", wt.dir().c_str());
    End good = measure_end(ctx, cfg, wt, "good", report.good, report);
    End bad = measure_end(ctx, cfg, wt, "bad", report.bad, report);
    const analysis::CompareOptions options = cfg.compare_options();
    const auto tracked = analysis::reproduced_changes(good.run, bad.run, cfg.metric, options);
    if (tracked.empty()) {
      throw InputError("the change does not reproduce: " + a.metric + " at the bad end " + report.bad.substr(0, 12) +
                       " is not different from the good end " + report.good.substr(0, 12) +
                       " by compare's test; nothing was stored" +
                       rows_text(analysis::end_rows(good.run, bad.run, cfg.metric, options)));
    }
    {
      db::Store store(ctx.db_path, db::Access::read_write);
      for (End* e : {&good, &bad}) {
        if (e->id == 0) e->id = store.insert_run(e->run).run_id;
      }
    }
    std::vector<BenchmarkInstance> instances;
    for (const auto& t : tracked) instances.push_back(t.instance);
    // The kernels' code is byte for byte the same at both ends: no commit can be the culprit; say so and stop.
    report.same_code = analysis::same_code_at_ends(good.run, bad.run, instances);
    if (!report.same_code.empty()) {
      report.steps = {good.row, bad.row};
      report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      write_report(a.format, report);
      return kExitOk;
    }
    cfg.good_run = good.id;
    cfg.bad_run = bad.id;
    report.steps = {good.row, bad.row};
    const std::string state = scratch.path() + "/state.json";
    std::ofstream(state) << cfg.to_json();
    if (!ctx.quiet)
      std::fprintf(stderr, "bisect: %zu commits, git bisect run in the worktree\n", report.commits_in_range);
    const BisectOutcome outcome =
        bisect_run(wt, report.good, report.bad, {cfg.self, "--db", cfg.db_path, "--quiet", "bisect-step", state},
                   scratch.path() + "/bisect.log");
    stop_if_interrupted();
    collect_steps(cfg, report);
    if (outcome.culprits.empty()) {
      throw EnvironmentError("git bisect run named no commit (exit " + std::to_string(outcome.exit_code) + "):\n" +
                             outcome.log.substr(outcome.log.size() > 2000 ? outcome.log.size() - 2000 : 0));
    }
    report.resolved = outcome.culprits.size() == 1;
    report.candidates = outcome.culprits;
    if (report.resolved) describe_culprit(ctx, cfg, repo, outcome.culprits.front(), good, bad, tracked, report);
  }
  report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  write_report(a.format, report);
  return kExitOk;
}

}  // namespace

void add_bisect_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<BisectArgs>();
  CLI::App* cmd = app.add_subcommand(
      "bisect",
      "Find the commit between --good and --bad that changed a benchmark's metric: git bisect in a "
      "worktree of its own, each commit built (--build), measured (--bench) and stored (label bisect)");
  cmd->add_option("--good", args->good, "A commit where the metric is as it should be");
  cmd->add_option("--bad", args->bad, "A later commit where it changed (good must be its ancestor)");
  cmd->add_option("--build", args->build, "Shell command that builds a commit, run in its checkout (sh -c)");
  cmd->add_option("--bench", args->bench,
                  "The bench executable the build makes, relative to the checkout (gpuperf or a gpuperf::main "
                  "executable; any program that answers `run --filter RE ... --format json`)");
  cmd->add_option("--filter", args->filter, "ECMAScript regex on instance names: the instances to measure");
  metric_option(cmd->add_option("--metric", args->metric, "The metric to bisect (default duration)"));
  cmd->add_option("--metrics", args->metrics, "The bench's --metrics (default: default; with --record: none)");
  count_option(cmd->add_option("--device", args->device, "CUDA device ordinal"), 0);
  cmd->add_flag("--quick", args->quick, "Fewer samples per instance (the bench's --quick)");
  count_option(
      cmd->add_option("--tries", args->tries, "Measurements of an ambiguous commit before it is skipped (default 3)"),
      1);
  cmd->add_option("--alpha", args->alpha, "Significance level of compare's test (default 0.01)");
  cmd->add_option("--threshold", args->thresholds, "Minimum effect, METRIC=PERCENT, as for compare (repeatable)");
  cmd->add_flag("--finding", args->finding,
                "Take good, bad, instance and metric from the newest regression `detect` finds on this machine");
  cmd->add_option("--branch", args->branch, "With --finding: the branch whose history to read (default main)");
  cmd->add_option("--repo", args->repo, "The git checkout whose history to bisect (default: the current folder)");
  choice_option(cmd->add_option("--format", args->format, "text, md (for an issue or PR comment) or json"),
                {"text", "md", "markdown", "json"});
  cmd->add_flag("--record", args->record, "Record a program the build makes (-- APP ARGS) instead of a bench");
  cmd->add_option("command", args->command, "With --record: -- APP [ARGS...]");
  set_help_footer(
      *cmd,
      "gpuperf bisect --good v1.2 --bad main --build 'cmake --build build -j' --bench build/cli/gpuperf \\\n"
      "    --filter '^memory/coalesced' --metric duration\n"
      "gpuperf bisect --finding --build 'cmake --build build -j' --bench build/cli/gpuperf --format md",
      exit_codes({{0, "a culprit (or, with skipped commits, a list of candidates) was found"},
                  {2,
                   "bad input: a reference that names nothing, good not an ancestor of bad, the build failing at an "
                   "end, a change that does not reproduce"},
                  {3, "the environment: no GPU, git failing"},
                  {130, "interrupted (Ctrl-C, SIGTERM): its worktree removed, the checkout untouched"}}));
  cmd->callback([&ctx, args] { ctx.action = [&ctx, args] { return do_bisect(ctx, *args); }; });

  auto state = std::make_shared<std::string>();
  CLI::App* step = app.add_subcommand("bisect-step", "");  // hidden: `git bisect run` calls it per commit
  step->group("");
  step->add_option("state", *state, "The bisection's state file")->required();
  step->callback([&ctx, state] {
    ctx.action = [state] {
      forward_interrupts();
      return bisect_step(BisectConfig::from_file(*state));
    };
  });
}

}  // namespace gpuperf::cli
