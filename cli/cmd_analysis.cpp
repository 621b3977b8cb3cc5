// gpuperf compare | check | detect: regressions between two runs, before a merge, and over history
// (README.md, "Regressions: compare, check, detect"). The statistics live in reports/analysis/.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/context.hpp"
#include "cli/help.hpp"
#include "cli/measure.hpp"
#include "cli/open_store.hpp"
#include "cli/option_kinds.hpp"
#include "cli/record_run.hpp"
#include "core/command_line.hpp"
#include "core/errors.hpp"
#include "db/store.hpp"
#include "kernels/benchmark.hpp"
#include "profiler/collector.hpp"
#include "profiler/gpu/device_info.hpp"
#include "profiler/metric_catalog.hpp"
#include "profiler/runner.hpp"
#include "reports/analysis/answers.hpp"
#include "reports/analysis/compare.hpp"
#include "reports/analysis/detect.hpp"
#include "reports/analysis/identity_findings.hpp"
#include "reports/analysis/line_findings.hpp"
#include "reports/analysis/line_history.hpp"
#include "reports/analysis/not_enough_data.hpp"
#include "reports/analysis/program_history.hpp"
#include "reports/analysis/recent_samples.hpp"
#include "reports/analysis/run_refs.hpp"
#include "reports/escape.hpp"
#include "reports/report_files.hpp"
#include "reports/verdict_writer.hpp"

namespace gpuperf::cli {
namespace {

using reports::Format;

// What compare and check share: thresholds, row selection and output.
struct VerdictArgs {
  std::string format = "text";
  std::string junit;
  bool all = false;
  std::vector<std::string> thresholds;
  double alpha = 0.01;
  std::string filter;
  std::vector<std::string> metrics;
  std::vector<std::string> gate;  // --gate: metrics that fail the job besides the default gate
  std::size_t history = 10;
  bool allow_missing = false;                // --allow-missing: a partial candidate passes
  std::vector<std::string> kernel_families;  // --kernel-family FAMILY=REGEX, repeatable
};

struct CompareArgs {
  std::string base, candidate;
  VerdictArgs out;
  bool across_chips = false;  // --across-chips: compare runs of two GPU generations anyway
};

struct CheckArgs {
  std::string baseline;
  int device = 0;
  MeasureArgs measure;  // its filter also narrows the rows
  VerdictArgs out;
  bool record = false;  // --record -- APP ARGS: record the program instead of running the suite
  RecordArgs program;
  bool metrics_given = false;  // --metrics on the command line: with --record, profile the program too
};

struct DetectArgs {
  std::string branch = "main";
  std::vector<std::string> machines;  // --machine, repeatable: only these machines' series (none: all)
  std::string since, filter;
  std::string as_of, before_run;  // a run reference: the history as it stood when that run was stored / before
  std::vector<std::string> metrics;
  std::size_t last = 0, recent = 0, min_segment = 4;
  std::vector<std::string> thresholds;
  double alpha = 0.005;
  bool no_hints = false;
  bool confirmed_only = false;
  double unconfirmed_alpha = analysis::TailOptions{}.alpha;
  double night_one = analysis::TailOptions{}.night_one_min_effect_pct;
  bool fail_on_regression = false;
  std::vector<std::string> gate;
  std::string format = "text";
  std::string junit;
  std::string json_file;
};

std::regex make_regex(const std::string& pattern) {
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw InputError("--filter '" + pattern + "' is not a valid regular expression: " + e.what());
  }
}

analysis::CompareOptions compare_options(const VerdictArgs& a) {
  analysis::CompareOptions o;
  if (!(a.alpha > 0 && a.alpha < 1)) throw InputError("--alpha must lie in (0, 1)");
  o.thresholds.alpha = a.alpha;
  for (const auto& spec : a.thresholds) o.thresholds.apply(spec);
  o.history_runs = a.history;
  for (const auto& spec : a.gate) o.gate.add(spec);
  for (const auto& spec : a.kernel_families) o.families.add(spec);
  return o;
}

// A metric asked for by --metric that has no row or series in the selection: said, not an empty answer.
void say_missing_metrics(const std::vector<std::string>& asked, const std::vector<std::string>& present,
                         const char* what) {
  for (const auto& name : asked) {
    if (std::find(present.begin(), present.end(), name) != present.end()) continue;
    std::fprintf(stderr, "gpuperf: note: --metric %s: no %s of this metric in the selection\n", name.c_str(), what);
  }
}

// The gate's rows that were not measured at all: --gate NAME with no row of NAME.
void say_missing_gates(const analysis::GateSet& gate, const std::vector<std::string>& present) {
  for (const auto& name : gate.extra) {
    if (std::find(present.begin(), present.end(), name) != present.end()) continue;
    std::fprintf(stderr, "gpuperf: note: --gate %s: no data of this metric in the selection; it gates nothing\n",
                 name.c_str());
  }
}

// The base branch's series on the candidate's machine, for CompareOptions::history_runs (summaries only).
std::vector<db::Series> base_history(const db::Store& store, const db::RunInfo& base, std::int64_t machine_id,
                                     const VerdictArgs& a) {
  if (a.history == 0 || base.branch.empty()) return {};
  db::HistoryFilter f;
  f.branch = base.branch;
  f.machine_id = machine_id;
  return store.history(f);
}

// Keeps the rows the user asked for (--filter on the instance name, --metric).
void select_rows(analysis::CompareReport& report, const VerdictArgs& a) {
  if (a.filter.empty() && a.metrics.empty()) return;
  const std::regex re = make_regex(a.filter);
  std::vector<analysis::CompareRow> kept;
  for (auto& r : report.rows) {
    if (!a.filter.empty() && !std::regex_search(r.instance.display_name(), re)) continue;
    if (!a.metrics.empty() && std::find(a.metrics.begin(), a.metrics.end(), r.metric.name) == a.metrics.end()) {
      continue;
    }
    kept.push_back(std::move(r));
  }
  report.rows.swap(kept);
}

std::vector<std::string> row_metrics(const analysis::CompareReport& report) {
  std::vector<std::string> names;
  for (const auto& r : report.rows) names.push_back(r.metric.name);
  return names;
}

int emit_compare(analysis::CompareReport& report, const VerdictArgs& a) {
  const Format format = reports::parse_format(a.format);
  select_rows(report, a);
  report.allow_missing = a.allow_missing;
  say_missing_metrics(a.metrics, row_metrics(report), "rows");
  std::vector<std::string> gated_present = row_metrics(report);
  if (report.program) gated_present.emplace_back(analysis::kProgramTimeMetric);
  say_missing_gates(report.gate, gated_present);
  reports::write_compare(std::cout, report, format, a.all);
  std::cout.flush();
  if (!a.junit.empty()) {
    std::ostringstream junit;
    reports::write_compare_junit(junit, report);
    reports::write_file_atomically(a.junit, junit.str());
  }
  return report.regression() ? kExitRegression : kExitOk;
}

// Two runs of different GPU generations (compute capability: a T4 against an H100) are no baseline of each other:
// their timings and counters measure other hardware, and a metric one chip lacks would read as missing. Refused
// (exit 2) unless `across` (compare --across-chips); two GPUs of one generation are two machines (a warning).
void refuse_across_chips(const db::Store& store, const db::RunInfo& base, const db::RunInfo& cand, bool across,
                         const char* how) {
  if (base.machine_id == cand.machine_id) return;
  std::string base_cc, cand_cc;
  for (const db::MachineRow& m : store.machines()) {
    if (m.id == base.machine_id) base_cc = m.machine.cc;
    if (m.id == cand.machine_id) cand_cc = m.machine.cc;
  }
  if (base_cc.empty() || cand_cc.empty() || base_cc == cand_cc) return;
  const std::string what = "run " + store.run_prefix(base.uuid) + " ran on " + base.gpu_name + " (compute capability " +
                           base_cc + "), run " + store.run_prefix(cand.uuid) + " on " + cand.gpu_name +
                           " (compute capability " + cand_cc + ")";
  if (!across) {
    throw InputError(what +
                     ": another GPU generation is no baseline (its timings and counters measure other "
                     "hardware; a metric one chip lacks would read as missing); " +
                     how);
  }
  std::fprintf(stderr, "gpuperf: warning: %s: compared across GPU generations as asked\n",
               reports::terminal_text(what).c_str());
}

// The header's run names as `runs` prints them: each uuid's prefix that names its run alone.
void name_sides(const db::Store& store, analysis::CompareReport& report) {
  for (analysis::RunSide* side : {&report.base, &report.candidate}) {
    if (!side->uuid.empty()) side->uuid_shown = store.run_prefix(side->uuid);
  }
}

int do_compare(const Context& ctx, const CompareArgs& a) {
  const analysis::CompareOptions options = compare_options(a.out);
  reports::parse_format(a.out.format);  // a bad format fails before any work
  db::Store store = open_store(ctx, db::Access::read_only);
  // A specific run fixes the machine; a moving reference (branch:, label:) then means its latest run on
  // that machine. Two moving references: the candidate's machine decides.
  const bool base_moves = analysis::is_moving_ref(store, a.base);
  db::RunInfo base, cand;
  // A moving side also keeps to the other side's kind: a suite run against a suite run, a recorded program
  // against a recording of it.
  if (base_moves) {
    cand = analysis::resolve_run_ref(store, a.candidate);
    base = analysis::resolve_run_ref(store, a.base, cand.machine_id, &cand);
  } else {
    base = analysis::resolve_run_ref(store, a.base);
    const bool cand_moves = analysis::is_moving_ref(store, a.candidate);
    cand = analysis::resolve_run_ref(store, a.candidate, cand_moves ? std::optional(base.machine_id) : std::nullopt,
                                     cand_moves ? &base : nullptr);
  }
  refuse_across_chips(store, base, cand, a.across_chips, "--across-chips compares them anyway");
  if (base.machine_id != cand.machine_id) {
    std::fprintf(stderr, "gpuperf: warning: comparing runs of two machines (%s, %s): timings are not comparable\n",
                 reports::terminal_text(base.fingerprint).c_str(), reports::terminal_text(cand.fingerprint).c_str());
  }
  if (base.id == cand.id) {  // `compare 12 12`, or two references that name one run
    std::fprintf(stderr,
                 "gpuperf: warning: '%s' and '%s' are the same run (#%lld): every row compares the run with itself\n",
                 reports::terminal_text(a.base).c_str(), reports::terminal_text(a.candidate).c_str(),
                 static_cast<long long>(base.id));
  }
  for (const auto* r : {&base, &cand}) {
    if (r->excluded) {
      std::fprintf(stderr, "gpuperf: warning: run %s is excluded (%s)\n", r->uuid.c_str(),
                   reports::terminal_text(r->exclude_reason).c_str());
    }
  }
  std::vector<db::Series> history = base_history(store, base, cand.machine_id, a.out);
  Run base_run = store.load_run(base.id, true);
  const auto accepted = analysis::rebase_on_accepted(store, base, cand, base_run, history);
  Run cand_run = store.load_run(cand.id, true);
  analysis::LineTextHistory texts(store);  // lines collected away from their sources: the history's text
  texts.fill(base_run, base.id);
  texts.fill(cand_run, cand.id);
  analysis::CompareReport report = analysis::compare_runs(base_run, cand_run, options, base.id, cand.id, &history);
  name_sides(store, report);
  analysis::add_program_runs(store, report, base, cand, options);
  analysis::mark_accepted(report.rows, accepted);
  return emit_compare(report, a.out);
}

// check's comparison of a run it has just stored (`run_id`) with --baseline: on that run's machine when the
// baseline moves (a branch); prints the verdict and returns its exit code.
int compare_with_baseline(const db::Store& store, const CheckArgs& a, const analysis::CompareOptions& options,
                          const Run& run, std::int64_t run_id) {
  const auto info = store.find_run(std::to_string(run_id));
  const bool moving = analysis::is_moving_ref(store, a.baseline);
  const db::RunInfo base =
      analysis::resolve_run_ref(store, a.baseline, moving ? std::optional(info->machine_id) : std::nullopt, &*info);
  if (base.id == run_id) throw InputError("--baseline '" + a.baseline + "' resolves to the run just made");
  refuse_across_chips(store, base, *info, false, "give a baseline of this GPU's generation");
  VerdictArgs out = a.out;
  if (out.filter.empty()) out.filter = a.measure.filter;
  std::vector<db::Series> history = base_history(store, base, info->machine_id, out);
  Run base_run = store.load_run(base.id, true);
  const auto accepted = analysis::rebase_on_accepted(store, base, *info, base_run, history);
  analysis::LineTextHistory texts(store);  // lines collected away from their sources: the history's text
  texts.fill(base_run, base.id);
  Run candidate = run;
  texts.fill(candidate, run_id);
  analysis::CompareReport report = analysis::compare_runs(base_run, candidate, options, base.id, run_id, &history);
  name_sides(store, report);
  analysis::add_program_runs(store, report, base, *info, options);
  analysis::mark_accepted(report.rows, accepted);
  return emit_compare(report, out);
}

// check --record: record the program (one run per GPU it used) and compare each run with the baseline on
// that run's machine. The program's failure outranks a regression (exit 5).
int do_check_record(const Context& ctx, const CheckArgs& a, const analysis::CompareOptions& options) {
  RecordArgs program = a.program;
  program.commit = a.measure.commit;
  program.branch = a.measure.branch;
  program.label = a.measure.label.empty() ? "check" : a.measure.label;
  // The suite's default metrics cost little; a program's cost a replay per profiled launch: only on request.
  program.metrics = a.metrics_given ? a.measure.metrics : "none";
  program.no_source_lines = a.measure.no_source_lines;
  const Recorded recorded = record_and_store(ctx, program);
  int verdict = kExitOk;
  db::Store store = open_store(ctx, db::Access::read_write);
  for (std::size_t i = 0; i < recorded.runs.size(); ++i) {
    verdict = std::max(verdict, compare_with_baseline(store, a, options, recorded.runs[i], recorded.run_ids[i]));
  }
  const int program_code = program_exit_code(recorded, program);
  return program_code != kExitOk ? program_code : verdict;
}

int do_check(const Context& ctx, const CheckArgs& a) {
  const analysis::CompareOptions options = compare_options(a.out);
  if (a.record != !a.program.command.empty()) {
    throw InputError(
        a.record ? "check --record needs the program: check --record --baseline REF -- APP [ARGS...]"
                 : "a program to run was given without --record: check --record --baseline REF -- APP [ARGS...]");
  }
  reports::parse_format(a.out.format);
  if (!a.record) parse_metrics_option(a.measure.metrics);  // bad names fail before any work
  {
    // The baseline must exist (on some machine, of the kind checked: a suite run for the suite, a recorded
    // run for a program) before the suite or the program spends minutes on the GPU.
    db::Store store = open_store(ctx, db::Access::read_only);
    db::RunInfo kind;
    if (a.record) kind.command = command_line(a.program.command);  // this program's, else any recording
    analysis::resolve_run_ref(store, a.baseline, std::nullopt, &kind);
  }
  check_store_writable(ctx);
  if (a.record) return do_check_record(ctx, a, options);
  const auto instances = select_instances(a.measure.filter);
  gpu::select_device(a.device);  // exit 3 on a machine without a GPU
  MeasureArgs m = a.measure;
  if (m.label.empty()) m.label = "check";
  const Measured measured = measure(ctx, m, instances, a.device);
  const Run& run = measured.run;

  db::Store store = open_store(ctx, db::Access::read_write);
  const std::int64_t run_id = store_runs(ctx, store, {run}).front();
  const int verdict = compare_with_baseline(store, a, options, run, run_id);
  const int incorrect = exit_code_for(run);
  if (incorrect != kExitOk) return incorrect;  // a wrong answer outranks a slowdown
  if (!measured.profiling_error.empty()) {
    std::fprintf(stderr, "gpuperf: warning: profiling failed: %s\n", measured.profiling_error.c_str());
  }
  return verdict;
}

// detect's options from its arguments, each checked (InputError naming the option).
analysis::DetectOptions detect_options(const DetectArgs& a) {
  analysis::DetectOptions options;
  if (!(a.alpha > 0 && a.alpha < 1)) throw InputError("--alpha must lie in (0, 1)");
  options.thresholds.alpha = a.alpha;
  for (const auto& spec : a.thresholds) {
    options.thresholds.apply(spec);
    options.tail.thresholds.apply(spec);  // a user's floor holds for unconfirmed changes too
  }
  options.unconfirmed = !a.confirmed_only;
  if (!(a.unconfirmed_alpha > 0 && a.unconfirmed_alpha < 0.5)) {
    throw InputError("--unconfirmed-alpha must lie in (0, 0.5)");
  }
  options.tail.alpha = a.unconfirmed_alpha;
  if (!(a.night_one >= 0)) throw InputError("--night-one-threshold must be a percentage >= 0");
  options.tail.night_one_min_effect_pct = a.night_one;
  if (a.min_segment < 2) throw InputError("--min-segment must be at least 2");
  options.min_segment = a.min_segment;
  if (a.recent > 0) options.recent = a.recent;
  options.hints = !a.no_hints;
  for (const auto& spec : a.gate) options.gate.add(spec);
  if (!a.filter.empty()) make_regex(a.filter);
  return options;
}

// Each change's machine named as every command names it (machine_name).
void name_machines(std::vector<analysis::ChangePoint>& changes, const db::Store& store) {
  for (const auto& m : store.machines()) {
    for (auto& c : changes) {
      if (c.machine == m.fingerprint)
        c.machine_name = machine_name(m.machine.hostname, m.machine.gpu_name, m.fingerprint);
    }
  }
}

int do_detect(const Context& ctx, const DetectArgs& a) {
  const Format format = reports::parse_format(a.format);
  const analysis::DetectOptions options = detect_options(a);
  db::Store store = open_store(ctx, db::Access::read_only);
  db::HistoryFilter f;
  f.branch = a.branch;
  if (!a.since.empty()) f.since = a.since;
  if (a.last > 0) f.last_runs = a.last;
  f.metrics = a.metrics;
  f.benchmark_regex = a.filter;
  // Each machine asked for once, in fingerprint order: the order the series of an unfiltered read come in.
  std::vector<std::pair<std::string, std::int64_t>> machines;
  for (const auto& ref : a.machines) {
    auto m = store.find_machine(ref);
    if (!m) throw InputError("--machine '" + ref + "' matches no machine (an id, a fingerprint or a hostname)");
    machines.emplace_back(m->fingerprint, m->id);
  }
  std::sort(machines.begin(), machines.end());
  machines.erase(std::unique(machines.begin(), machines.end()), machines.end());
  if (!a.as_of.empty() || !a.before_run.empty()) {
    const bool before = a.as_of.empty();
    const std::string& ref = before ? a.before_run : a.as_of;
    const std::string option = before ? "--before-run" : "--as-of";
    const auto run = store.find_run(ref);
    if (!run) {
      throw InputError(option + " '" + ref + "' matches no run (give a run id, a uuid or a unique prefix of 8+ " +
                       "characters, or a commit sha of 7+; see `gpuperf runs`)");
    }
    f.up_to_run_id = before ? run->id - 1 : run->id;
  }
  {
    db::RunFilter rf;
    rf.branch = a.branch;
    rf.last = 1;
    if (store.runs(rf).empty()) throw InputError("branch '" + a.branch + "' has no runs (give --branch NAME)");
  }
  // One history read per machine asked for (each an indexed query of that machine's runs), so a nightly on a
  // shared server reads its own runners' series, not every runner's.
  std::vector<db::Series> series;
  auto read = [&] {  // the series `f` selects, with their newest runs' samples
    std::vector<db::Series> part = store.history(f);
    analysis::attach_recent_samples(store, f, part, analysis::recent_runs_for_samples(options));
    series.insert(series.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  };
  if (machines.empty()) read();
  for (const auto& machine : machines) {
    f.machine_id = machine.second;
    read();
  }
  {
    std::vector<std::string> present;
    for (const auto& s : series) present.push_back(s.key.metric.name);
    say_missing_metrics(a.metrics, present, "series");
    say_missing_gates(options.gate, present);
  }
  auto changes = analysis::detect_changes(series, options);
  name_machines(changes, store);
  analysis::attach_line_changes(changes, store);                   // the source lines that moved at each change
  const auto steps = analysis::attach_identities(changes, store);  // same code or not; environment steps
  analysis::attach_acknowledgements(changes, series, store.acknowledgements());
  std::map<std::int64_t, std::string> commands;  // read once, when a short series asks for its run's command
  const auto command_of = [&store, &commands](std::int64_t run_id) {
    if (commands.empty()) {
      for (const db::RunInfo& r : store.runs()) commands.emplace(r.id, r.command);
    }
    const auto it = commands.find(run_id);
    return it == commands.end() ? std::string() : it->second;
  };
  const auto too_short = analysis::short_series(series, options, a.branch, command_of);
  // Recorded programs' total GPU time over the same runs: read in whole only when no --filter or --metric
  // narrowed the series (a partial sum is no program's time).
  std::vector<analysis::ChangePoint> programs;
  if (a.filter.empty() && a.metrics.empty()) {
    programs = analysis::detect_changes(analysis::program_time_series(series), options);
    name_machines(programs, store);
  }
  const std::vector<std::string> names = store.benchmark_names();  // each printed name accepted back
  reports::write_changes(std::cout, changes, format, steps, too_short, programs, names);
  std::cout.flush();
  if (!a.junit.empty()) {
    std::ostringstream junit;
    reports::write_changes_junit(junit, changes, series.size());
    reports::write_file_atomically(a.junit, junit.str());
  }
  if (!a.json_file.empty()) {
    std::ostringstream json;
    reports::write_changes(json, changes, Format::json, steps, too_short, programs);
    reports::write_file_atomically(a.json_file, json.str());
  }
  if (a.fail_on_regression) {
    for (const auto& c : programs) {
      if (c.kind == analysis::ChangeKind::regression && c.gated) return kExitRegression;
    }
    for (const auto& c : changes) {
      if (c.kind == analysis::ChangeKind::regression && c.gated && !analysis::is_answered(c)) return kExitRegression;
    }
  }
  return kExitOk;
}

void add_verdict_options(CLI::App* cmd, VerdictArgs& a) {
  choice_option(cmd->add_option("--format", a.format, "text, md (GitHub-flavoured, for a PR comment) or json"),
                {"text", "md", "markdown", "json"});
  cmd->add_option("--junit", a.junit, "Also write JUnit XML here (one test case per row)");
  cmd->add_flag("--all", a.all, "List every row in text and md, also those that are the same");
  cmd->add_flag("--allow-missing", a.allow_missing,
                "Pass a partial candidate: instances of the base that the candidate lacks (a filtered run) do not "
                "fail the job (default: they fail it, exit 1, named)");
  cmd->add_option("--threshold", a.thresholds,
                  "Minimum effect per metric, METRIC=PERCENT (repeatable; '*=PCT' for the other noisy metrics). "
                  "Defaults: duration, gbps, gflops 2; achieved_occupancy, dram bytes, issue_active, throughputs 5; "
                  "stall ratios 10; shared transactions 2; bank conflicts 25; other deterministic counters 0.01 "
                  "(rounding)");
  cmd->add_option("--alpha", a.alpha, "Significance level of the Mann-Whitney test (default 0.01)");
  cmd->add_option("--kernel-family", a.kernel_families,
                  "A recorded program's kernel family by name, FAMILY=REGEX (repeatable; case-insensitive, tried "
                  "before the built-in table: attention, GEMM, normalization, reduction, copy, elementwise, "
                  "communication, other)")
      ->type_name("FAMILY=REGEX");
  metric_option(cmd->add_option("--metric", a.metrics, "Only these metrics (repeatable)"));
  metric_option(cmd->add_option("--gate", a.gate,
                                "Also fail (exit 1, JUnit failure) on these metrics' slower rows: METRIC[,METRIC...] "
                                "or all (repeatable). Default gate: duration, failed or incorrect kernels and the "
                                "deterministic counters; sampled and rate counters are listed, not failed. "
                                "program_time: a recorded program's total GPU time (off by default)"),
                true);
  count_option(
      cmd->add_option("--history", a.history,
                      "The base branch's last N runs on this machine: a noisy change at a level they show is "
                      "ambiguous, not a change; a metric measured once per run is judged against them (at least 3). "
                      "The window ends at the base run (default 10; 0: off)"),
      0);
}

}  // namespace

namespace {

void add_compare_command(CLI::App& app, Context& ctx) {
  auto cmp = std::make_shared<CompareArgs>();
  CLI::App* compare =
      app.add_subcommand("compare",
                         "Compare two runs per benchmark instance and metric: same, faster, slower, ambiguous, new, "
                         "missing or failed; exit 1 on a regression");
  compare->add_option("base", cmp->base, "Base: run id, uuid (prefix), commit, branch:NAME, label:NAME or a branch")
      ->required();
  compare->add_option("candidate", cmp->candidate, "Candidate, in the same forms")->required();
  add_verdict_options(compare, cmp->out);
  compare->add_option("--filter", cmp->out.filter, "ECMAScript regex on instance names: only matching rows");
  compare->add_flag("--across-chips", cmp->across_chips,
                    "Compare runs of two GPU generations (compute capabilities) anyway; refused without it");
  set_help_footer(*compare,
                  "gpuperf compare branch:main 3f2a1c9e\n"
                  "gpuperf compare label:release-1.2 branch:feature --format md > comment.md",
                  exit_codes({{0, "no regression"},
                              {1,
                               "a regression: a gated row slower (duration, deterministic counters, --gate), a "
                               "kernel failed in the candidate, instances of the base missing from it (a benchmark "
                               "run's; a recorded program's gone kernels are reported, not failed), or with --gate "
                               "program_time a recorded program's GPU time slower"},
                              {2,
                               "bad usage or input: a run reference that names no run, an unknown metric name, a "
                               "database not gpuperf's"}}));
  compare->callback([&ctx, cmp] { ctx.action = [&ctx, cmp] { return do_compare(ctx, *cmp); }; });
}

void add_check_command(CLI::App& app, Context& ctx) {
  auto chk = std::make_shared<CheckArgs>();
  CLI::App* check =
      app.add_subcommand("check",
                         "Pre-merge check: run the suite on this GPU, store the run, compare it with the latest run of "
                         "--baseline on this machine; exit 1 on a regression, 4 on a wrong answer");
  check->add_option("--baseline", chk->baseline, "Baseline: branch:NAME, label:NAME, a branch, a run id or commit")
      ->required();
  count_option(check->add_option("--device", chk->device, "CUDA device ordinal"), 0);
  add_measure_options(check, chk->measure);  // --label defaults to "check" here
  add_verdict_options(check, chk->out);
  check->add_flag("--record", chk->record,
                  "Record a CUDA program (-- APP ARGS, as `gpuperf record`) instead of running the suite, and compare "
                  "its kernels with the baseline");
  add_record_options(check, chk->program, false);
  check->add_option("command", chk->program.command, "With --record: -- APP [ARGS...]");
  set_help_footer(*check,
                  "gpuperf check --baseline branch:main --junit check.xml\n"
                  "gpuperf check --record --baseline label:first -- ./my_app --size 4096",
                  exit_codes({{0, "no regression against the baseline"},
                              {1,
                               "a regression of a gated metric against the baseline (see --gate; program_time for "
                               "a recorded program's GPU time), or instances of the baseline missing from the suite's "
                               "run (--allow-missing; a recorded program's gone kernels never fail)"},
                              {2,
                               "bad usage or input: an unknown option or value, a database not gpuperf's"
                               "; no baseline run"},
                              {3, "no GPU or driver, no profiling permission, a database that cannot be written"},
                              {4, "a kernel gave a wrong answer"},
                              {5, "--record: the recorded program failed (its run is stored with its exit status)"}}));
  check->callback([&ctx, chk, check] {
    chk->metrics_given = check->count("--metrics") > 0;
    ctx.action = [&ctx, chk] { return do_check(ctx, *chk); };
  });
}

void add_detect_command(CLI::App& app, Context& ctx) {
  auto det = std::make_shared<DetectArgs>();
  CLI::App* detect =
      app.add_subcommand("detect",
                         "Change points in the history of a branch, per machine, instance and metric (excluded runs "
                         "skipped), with root-cause hints for duration changes");
  detect->add_option("--branch", det->branch, "Branch whose history to read (default main)");
  detect->add_option("--machine", det->machines,
                     "Only this machine: id, fingerprint or hostname (repeatable: only these machines)");
  detect->add_option("--filter", det->filter, "ECMAScript regex on instance names");
  metric_option(detect->add_option("--metric", det->metrics, "Only these metrics (repeatable)"));
  metric_option(detect->add_option("--gate", det->gate,
                                   "--fail-on-regression also fails on these metrics' regressions: "
                                   "METRIC[,METRIC...] or all (repeatable). Default gate: duration and the "
                                   "deterministic counters"),
                true);
  date_option(detect->add_option("--since", det->since, "Only runs started at or after this ISO 8601 time"));
  count_option(detect->add_option("--last", det->last, "Only each machine's newest N runs"), 1);
  auto* as_of = detect->add_option("--as-of", det->as_of,
                                   "Answer as of this run: only the runs stored up to it (run ids grow in the "
                                   "order runs are stored; id, uuid or commit)");
  detect->add_option("--before-run", det->before_run, "Answer as just before this run was stored")->excludes(as_of);
  count_option(detect->add_option("--recent", det->recent,
                                  "Report only changes that start within the newest N runs of a series"),
               1);
  count_option(
      detect->add_option("--min-segment", det->min_segment, "Runs needed on each side of a change (default 4)"), 2);
  detect->add_option("--threshold", det->thresholds,
                     "Minimum change per metric, METRIC=PERCENT (repeatable; '*=PCT' for all noisy metrics, "
                     "default 1)");
  detect->add_option("--alpha", det->alpha, "Significance of the permutation test per split (default 0.005)");
  detect->add_flag("--no-hints", det->no_hints, "No root-cause hints");
  detect->add_flag("--confirmed-only", det->confirmed_only,
                   "Only changes with --min-segment runs on each side: no unconfirmed changes in the newest runs");
  detect->add_option("--unconfirmed-alpha", det->unconfirmed_alpha,
                     "Unconfirmed changes: chance per night and direction that normal run-to-run noise passes the "
                     "prediction bound (default " +
                         std::to_string(det->unconfirmed_alpha).substr(0, 5) + ")");
  detect->add_option("--night-one-threshold", det->night_one,
                     "Unconfirmed changes resting on one run must also reach this percent (default 0: judged "
                     "by the series' own noise and the levels it visited)");
  detect->add_flag("--fail-on-regression", det->fail_on_regression,
                   "Exit 1 when a regression of a gated metric is found (an unconfirmed one counts; see --gate)");
  choice_option(detect->add_option("--format", det->format, "text, md or json"), {"text", "md", "markdown", "json"});
  detect->add_option("--junit", det->junit, "Also write JUnit XML here (a regression is a failure)");
  detect->add_option("--json", det->json_file,
                     "Also write the changes as JSON here (what --format json prints), from the same read");
  set_help_footer(
      *detect,
      "gpuperf detect --branch main --recent 3 --fail-on-regression\n"
      "gpuperf detect --metric duration --format md\n"
      "gpuperf detect --machine node1 --before-run 512 --format json   # as it stood before run 512",
      exit_codes({{0, "fine (change points are listed; without --fail-on-regression a regression is not a failure)"},
                  {1, "--fail-on-regression and a regression of a gated metric among the newest runs (see --gate)"},
                  {2, "bad usage or input: a branch or machine with no runs, a database not gpuperf's"}}));
  detect->callback([&ctx, det] { ctx.action = [&ctx, det] { return do_detect(ctx, *det); }; });
}

}  // namespace

void add_analysis_commands(CLI::App& app, Context& ctx) {
  add_compare_command(app, ctx);
  add_check_command(app, ctx);
  add_detect_command(app, ctx);
}

}  // namespace gpuperf::cli
