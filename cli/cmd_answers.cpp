// gpuperf ack | annotate: a team's answers to its history (docs/answers.md). `ack` answers a finding as
// `detect` and the nightly print it (machine, benchmark instance, metric, the run where the step starts) with
// a reason, optionally accepting the step as the series' new baseline; `ack --undo` takes it back. `annotate`
// leaves a note on a run, a commit or a machine's night. Both record who ($USER or --by) and when (now).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/context.hpp"
#include "cli/help.hpp"
#include "cli/open_store.hpp"
#include "cli/option_kinds.hpp"
#include "core/errors.hpp"
#include "core/short_name.hpp"
#include "db/answers_json.hpp"
#include "db/store.hpp"
#include "db/timestamp.hpp"
#include "reports/analysis/answers.hpp"
#include "reports/escape.hpp"
#include "reports/format.hpp"

namespace gpuperf::cli {
namespace {

struct AckArgs {
  std::string run, benchmark, metric, machine, reason, link, by, format = "text";  // metric: empty, every one
  bool accept = false, undo = false, list = false, no_finding = false, environment_step = false;
};

struct NoteArgs {
  std::string text, run, commit, machine, night, by, format = "text";
  bool list = false;
};

std::string who(const std::string& by) {
  if (!by.empty()) return by;
  const char* user = std::getenv("USER");
  return user != nullptr ? user : "";
}

db::MachineRow machine_of(const db::Store& store, const std::string& ref) {
  auto m = store.find_machine(ref);
  if (!m) throw InputError("--machine '" + ref + "' matches no machine (an id, a fingerprint or a hostname)");
  return *m;
}

db::RunInfo run_of(const db::Store& store, const std::string& ref) {
  const auto r = store.find_run(ref);
  if (!r) throw InputError("--run '" + ref + "' matches no run (a run id, a uuid or prefix, or a commit)");
  return *r;
}

// The run a finding starts at: a run reference; with --machine, a commit names that commit's run on it.
db::RunInfo finding_run(const db::Store& store, const AckArgs& a) {
  if (!a.machine.empty()) {
    const db::MachineRow m = machine_of(store, a.machine);
    db::RunFilter f;
    f.machine_id = m.id;
    const auto runs = store.runs(f);
    for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
      if (a.run.size() >= 7 && it->commit.rfind(a.run, 0) == 0) return *it;
      if (it->uuid == a.run || std::to_string(it->id) == a.run || (a.run.size() >= 8 && it->uuid.rfind(a.run, 0) == 0))
        return *it;
    }
    throw InputError("--run '" + a.run + "' matches no run of machine " + m.fingerprint + " (see `gpuperf runs`)");
  }
  return run_of(store, a.run);
}

// The instances as the tables print them: a recorded kernel's name folded (core/short_name.hpp) so that it
// tells the store's instances apart, its params kept.
ShortNames stored_names(const db::Store& store) { return ShortNames(store.benchmark_names()); }

std::pair<std::int64_t, BenchmarkInstance> finding_benchmark(const db::Store& store, const std::string& ref) {
  const auto found = store.find_benchmarks(ref);
  if (found.empty()) throw InputError("--benchmark '" + ref + "' names no stored benchmark instance");
  if (found.size() > 1) {
    std::string list;
    const ShortNames names = stored_names(store);
    for (const auto& [id, inst] : found) list += "\n  " + names.display_name(inst);
    throw InputError("--benchmark '" + ref + "' names several instances; give one as name[params]:" + list);
  }
  return found.front();
}

// The acknowledgements of this step that still answer it (not undone), newest last: at `run` or, when the
// run was named by its commit (`commit` not empty), at any run of that commit; of `metric`, or of every metric
// when it is empty.
std::vector<db::Acknowledgement> active_acks(const db::Store& store, const db::RunInfo& run, std::int64_t bench_id,
                                             const std::string& metric, const std::string& commit) {
  std::vector<db::Acknowledgement> out;
  db::AckFilter of_series;
  of_series.machine_id = run.machine_id;
  of_series.benchmark_id = bench_id;
  of_series.active_only = true;
  for (auto& a : store.acknowledgements(of_series)) {
    const bool at = a.run_id == run.id || (!commit.empty() && a.commit.rfind(commit, 0) == 0);
    if (at && (metric.empty() || a.metric == metric)) {
      out.push_back(std::move(a));
    }
  }
  return out;
}

// The commit prefix `ref` names when it names the run by its commit (not by its id or uuid); else "".
std::string commit_named(const std::string& ref, const db::RunInfo& run) {
  if (ref.size() < 7 || std::to_string(run.id) == ref || run.uuid.rfind(ref, 0) == 0) return "";
  return run.commit.rfind(ref, 0) == 0 ? ref : "";
}

// "run 30a39f1a (ec456ab89b)": a run as the answers name it.
std::string run_text(const std::string& uuid, const std::string& commit) {
  return "run " + uuid.substr(0, 8) + (commit.empty() ? "" : " (" + commit.substr(0, 10) + ")");
}

// "duration +25.0%, gld_efficiency -50.0% and 12 more": a step's findings, duration first.
std::string findings_text(std::vector<const analysis::ChangePoint*> step) {
  std::stable_partition(step.begin(), step.end(),
                        [](const analysis::ChangePoint* c) { return c->metric.name == "duration"; });
  std::string out;
  const std::size_t shown = std::min<std::size_t>(step.size(), 4);
  for (std::size_t i = 0; i < shown; ++i) {
    const analysis::ChangePoint& c = *step[i];
    out += (i == 0 ? "" : ", ") + c.metric.name + " " + reports::format_change(c.before, c.after, c.change_pct);
  }
  if (step.size() > shown) out += " and " + std::to_string(step.size() - shown) + " more";
  return out;
}

// The findings of the step an ack names: detect's findings of the instance on the run's machine and branch that
// the run answers (answers_change), or that start at a run of the commit `commit` names; of `metric` when given.
// Refused, naming the instance's findings nearest the run, when there is none.
std::vector<const analysis::ChangePoint*> step_findings(const analysis::InstanceFindings& found, const db::RunInfo& run,
                                                        const std::string& commit, const std::string& metric,
                                                        const std::string& instance) {
  std::vector<const analysis::ChangePoint*> at;
  for (const analysis::ChangePoint& c : found.changes) {
    const bool here = commit.empty() ? analysis::answers_change(c, found.series[c.series_index], run.id)
                                     : c.commit.rfind(commit, 0) == 0;
    if (here && (metric.empty() || c.metric.name == metric)) at.push_back(&c);
  }
  if (!at.empty()) return at;
  const std::string machine = machine_name(run.hostname, run.gpu_name, run.fingerprint);
  const std::string where = (commit.empty() ? run_text(run.uuid, run.commit) : "commit " + commit) + " on " + machine +
                            " (branch " + run.branch + ")";
  const std::string anyway = "; --no-finding records the answer anyway";
  if (found.changes.empty()) {
    throw InputError("detect finds no step of " + instance + " on " + machine + " (branch " + run.branch +
                     "), so this ack would answer nothing" + anyway);
  }
  // The instance's steps (a run each, its findings listed), nearest the run first (run ids grow in the order
  // runs are stored).
  std::vector<std::int64_t> runs;
  for (const analysis::ChangePoint& c : found.changes) {
    if (std::find(runs.begin(), runs.end(), c.run_id) == runs.end()) runs.push_back(c.run_id);
  }
  std::stable_sort(runs.begin(), runs.end(),
                   [&](std::int64_t x, std::int64_t y) { return std::llabs(x - run.id) < std::llabs(y - run.id); });
  std::string list;
  for (std::size_t i = 0; i < runs.size() && i < 5; ++i) {
    std::vector<const analysis::ChangePoint*> step;
    for (const analysis::ChangePoint& c : found.changes) {
      if (c.run_id == runs[i]) step.push_back(&c);
    }
    list += "\n  --run " + step.front()->run_uuid.substr(0, 8) + " (commit " + step.front()->commit.substr(0, 10) +
            "): " + findings_text(step);
  }
  throw InputError("no finding of " + instance + (metric.empty() ? "" : " " + metric) + " at " + where +
                   "; detect finds, nearest first:" + list + "\ngive one of those runs" + anyway);
}

// `ack --list` and `annotate --list`: the answers as JSON, or a line each with `print_line`, or `none`.
template <class Answer, class Json, class Line>
int print_answers(const std::vector<Answer>& answers, const std::string& format, Json to_json, Line print_line,
                  const char* none) {
  if (format == "json") {
    std::cout << to_json(answers).dump(2) << "\n";
    return kExitOk;
  }
  for (const Answer& a : answers) print_line(a);
  if (answers.empty()) std::printf("%s\n", none);
  return kExitOk;
}

int print_acks(const db::Store& store, const std::string& format) {
  const ShortNames names = stored_names(store);
  return print_answers(
      store.acknowledgements(), format, db::acknowledgements_json,
      [&names](const db::Acknowledgement& a) {
        std::printf("%lld  %s  %s %s  run %.8s  %s%s: %s%s%s\n", static_cast<long long>(a.id),
                    reports::terminal_text(a.fingerprint).c_str(),
                    reports::terminal_text(names.display_name(a.instance)).c_str(), a.metric.c_str(),
                    a.run_uuid.c_str(), a.undone ? "undone, was " : "", a.accepted ? "accepted" : "acknowledged",
                    reports::terminal_text(a.reason).c_str(),
                    a.link.empty() ? "" : (" (" + reports::terminal_text(a.link) + ")").c_str(),
                    (" by " + reports::terminal_text(a.by) + " " + a.at).c_str());
      },
      "no acknowledgements");
}

// Stores the answer `a` gives to one series (machine, instance, metric) at the run where its step starts.
void add_ack(db::Store& store, const AckArgs& a, std::int64_t machine_id, std::int64_t benchmark_id,
             const std::string& metric, std::int64_t run_id) {
  db::Acknowledgement k;
  k.machine_id = machine_id;
  k.benchmark_id = benchmark_id;
  k.metric = metric;
  k.run_id = run_id;
  k.reason = a.reason;
  k.link = a.link;
  k.by = who(a.by);
  k.accepted = a.accept;
  store.add_acknowledgement(k);
}

// `ack --environment-step`: every kernel of the environment step at the run, one acknowledgement each (their
// duration findings), or, with --undo, every acknowledgement of them at the step's runs.
int ack_environment_step(db::Store& store, const AckArgs& a, const db::RunInfo& run, const std::string& commit) {
  const auto step = analysis::environment_step_findings(store, run.machine_id, run.branch, run.id, commit);
  const std::string machine = machine_name(run.hostname, run.gpu_name, run.fingerprint);
  if (step.changes.empty()) {
    std::string seen;
    for (const std::string& s : step.steps_seen) seen += "\n  " + s;
    throw InputError("no environment step at " +
                     (commit.empty() ? run_text(run.uuid, run.commit) : "commit " + commit) + " on " + machine +
                     " (branch " + run.branch + ")" +
                     (seen.empty() ? std::string("; detect finds none there") : "; detect finds:" + seen));
  }
  std::size_t n = 0;
  for (const analysis::ChangePoint& c : step.changes) {
    const db::Series& s = step.series[c.series_index];
    if (a.undo) {
      db::AckFilter of_series;
      of_series.machine_id = s.key.machine_id;
      of_series.benchmark_id = s.key.benchmark_id;
      of_series.active_only = true;
      for (const db::Acknowledgement& k : store.acknowledgements(of_series)) {
        if (k.metric == s.key.metric.name && analysis::answers_change(c, s, k.run_id)) {
          store.undo_acknowledgement(k.id, who(a.by), "");
          ++n;
        }
      }
      continue;
    }
    add_ack(store, a, s.key.machine_id, s.key.benchmark_id, s.key.metric.name, c.run_id);
    ++n;
  }
  const std::string what = "the environment step on " + machine + " from " +
                           run_text(step.changes.front().run_uuid, step.changes.front().commit) + " (" +
                           step.description + ")";
  if (a.undo) {
    if (n == 0) throw InputError("no acknowledgement of " + what + " to undo (see `gpuperf ack --list`)");
    std::printf("undid %zu acknowledgements of %s\n", n, reports::terminal_text(what).c_str());
    return kExitOk;
  }
  std::printf("%s %s, %zu kernels: %s\n", a.accept ? "accepted as the new baseline" : "acknowledged",
              reports::terminal_text(what).c_str(), n, reports::terminal_text(a.reason).c_str());
  return kExitOk;
}

int do_ack(const Context& ctx, const AckArgs& a) {
  if (a.list) return print_acks(open_store(ctx, db::Access::read_only), a.format);
  if (a.environment_step && (!a.benchmark.empty() || !a.metric.empty() || a.no_finding)) {
    throw InputError(
        "--environment-step answers every kernel of the step: give --run, not --benchmark, --metric "
        "or --no-finding");
  }
  if (a.run.empty() || (a.benchmark.empty() && !a.environment_step)) {
    throw InputError("ack needs the finding: --run RUN --benchmark NAME[...] (or --run RUN --environment-step)");
  }
  if (!a.undo && a.reason.find_first_not_of(" \t") == std::string::npos) {
    throw InputError("ack needs --reason: why the step is expected or known (e.g. 'new kernel, correct and slower')");
  }
  db::check_can_answer(ctx.db_path, open_options(ctx));  // a reader role: exit 2 before anything is written
  db::Store store = open_existing_store(ctx);
  const db::RunInfo run = finding_run(store, a);
  const std::string commit = commit_named(a.run, run);
  if (a.environment_step) return ack_environment_step(store, a, run, commit);
  const auto [bench_id, instance] = finding_benchmark(store, a.benchmark);
  const std::string name = stored_names(store).display_name(instance);
  if (a.undo) {
    const auto acks = active_acks(store, run, bench_id, a.metric, commit);
    const std::string what = name + (a.metric.empty() ? "" : " " + a.metric) + " on " + run.fingerprint + " at " +
                             (commit.empty() ? run_text(run.uuid, run.commit) : "commit " + commit);
    if (acks.empty()) throw InputError("no acknowledgement of " + what + " to undo (see `gpuperf ack --list`)");
    for (const auto& k : acks) store.undo_acknowledgement(k.id, who(a.by), "");
    std::printf("undid %zu acknowledgement%s of %s\n", acks.size(), acks.size() == 1 ? "" : "s",
                reports::terminal_text(what).c_str());
    return kExitOk;
  }
  if (!a.metric.empty()) {
    bool metric_known = false;
    for (const auto& m : store.metrics()) metric_known = metric_known || m.name == a.metric;
    if (!metric_known) throw InputError("--metric '" + a.metric + "' is not a stored metric");
  }
  // What the ack answers: each (metric, run) of the step's findings, or, with --no-finding, the one series at
  // the run given.
  std::vector<std::pair<std::string, db::RunInfo>> answered;
  std::string said;
  if (a.no_finding) {
    answered.emplace_back(a.metric.empty() ? "duration" : a.metric, run);
    said = answered.front().first + " (no finding)";
  } else {
    const auto found = analysis::instance_findings(store, run.machine_id, bench_id, instance, run.branch);
    const auto step = step_findings(found, run, commit, a.metric, name);
    for (const analysis::ChangePoint* c : step) {
      const auto at = store.find_run(std::to_string(c->run_id));
      if (!at) continue;
      bool again = false;
      for (const auto& [m, r] : answered) again = again || (m == c->metric.name && r.id == at->id);
      if (!again) answered.emplace_back(c->metric.name, *at);
    }
    said = std::to_string(step.size()) + (step.size() == 1 ? " finding, " : " findings, ") + findings_text(step);
  }
  for (const auto& [metric, at] : answered) add_ack(store, a, at.machine_id, bench_id, metric, at.id);
  const db::RunInfo& first = answered.front().second;
  const std::string what = name + " on " + machine_name(run.hostname, run.gpu_name, run.fingerprint) + " from " +
                           run_text(first.uuid, first.commit) + " (" + said + ")";
  std::printf("%s %s: %s\n", a.accept ? "accepted as the new baseline" : "acknowledged",
              reports::terminal_text(what).c_str(), reports::terminal_text(a.reason).c_str());
  return kExitOk;
}

int print_notes(const db::Store& store, const std::string& format) {
  return print_answers(
      store.annotations(), format, db::annotations_json,
      [](const db::Annotation& n) {
        const std::string on = n.run_id            ? "run " + n.run_uuid.substr(0, 8)
                               : !n.commit.empty() ? "commit " + n.commit.substr(0, 10)
                                                   : "night " + n.night + " of " + n.fingerprint;
        const std::string who_when = (n.by.empty() ? "" : reports::terminal_text(n.by) + ", ") + n.at;
        std::printf("%lld  %s: %s (%s)\n", static_cast<long long>(n.id), reports::terminal_text(on).c_str(),
                    reports::terminal_text(n.text).c_str(), who_when.c_str());
      },
      "no annotations");
}

// A note's commit: 7+ characters that start the commit of a stored run (any machine, any branch).
void known_commit(const db::Store& store, const std::string& commit) {
  if (commit.size() < 7) {
    throw InputError("--commit '" + commit + "' is too short: give the sha or a prefix of 7+ characters");
  }
  for (const db::RunInfo& r : store.runs()) {
    if (r.commit.rfind(commit, 0) == 0) return;
  }
  throw InputError("--commit '" + commit + "' is the commit of no stored run (see `gpuperf runs`)");
}

// A note's night: a day (checked by --night's own rule) from the machine's first run to tomorrow (UTC), so a
// note can be left ahead of tonight's run, not on a night the machine's history cannot show.
void night_of(const db::Store& store, const db::MachineRow& m, const std::string& night) {
  db::RunFilter f;
  f.machine_id = m.id;
  const auto runs = store.runs(f);
  const std::string first = runs.empty() ? std::string() : runs.front().started_at.substr(0, 10);
  const std::string tomorrow = db::utc_timestamp(std::time(nullptr) + 24 * 3600).substr(0, 10);
  if ((!first.empty() && night < first) || night > tomorrow) {
    throw InputError("--night " + night + ": " + m.fingerprint + "'s history runs from " +
                     (first.empty() ? "tonight" : first) + " to tomorrow (" + tomorrow +
                     ", UTC); a note goes on a night of it");
  }
}

int do_annotate(const Context& ctx, const NoteArgs& a) {
  if (a.list) return print_notes(open_store(ctx, db::Access::read_only), a.format);
  if (a.text.empty()) throw InputError("annotate needs its TEXT, e.g. 'driver 590 installed'");
  db::check_can_answer(ctx.db_path, open_options(ctx));
  db::Store store = open_existing_store(ctx);
  db::Annotation n;
  std::string on;
  if (!a.run.empty()) {
    const db::RunInfo r = run_of(store, a.run);
    n.run_id = r.id;
    on = "run " + r.uuid.substr(0, 8);
  }
  if (!a.commit.empty()) {
    n.commit = a.commit;
    on = "commit " + a.commit;
    known_commit(store, a.commit);
  }
  if (!a.night.empty()) {
    if (a.machine.empty()) throw InputError("--night needs --machine: the machine whose night it is");
    const db::MachineRow m = machine_of(store, a.machine);
    night_of(store, m, a.night);
    n.machine_id = m.id;
    n.night = a.night;
    on = "night " + a.night + " of " + m.fingerprint;
  } else if (!a.machine.empty()) {
    throw InputError("--machine goes with --night DATE (a note on a machine's night)");
  }
  n.text = a.text;
  n.by = who(a.by);
  store.add_annotation(n);
  std::printf("noted on %s: %s\n", reports::terminal_text(on).c_str(), reports::terminal_text(a.text).c_str());
  return kExitOk;
}

// The options both answers share: who answers, and listing them as text or JSON.
void add_answer_options(CLI::App& cmd, std::string& by, bool& list, std::string& format, const char* by_help,
                        const char* list_help) {
  cmd.add_option("--by", by, by_help);
  cmd.add_flag("--list", list, list_help);
  choice_option(cmd.add_option("--format", format, "--list as text or json"), {"text", "json"});
}

void add_ack_command(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<AckArgs>();
  CLI::App* ack = app.add_subcommand(
      "ack", "Acknowledge a finding of detect or the nightly: expected, known or accepted as the new baseline");
  ack->add_option("--run", a->run,
                  "The run where the step starts (id, uuid or prefix), or its commit (the run of that commit where "
                  "the step starts)");
  ack->add_option("--benchmark", a->benchmark, "The benchmark instance, name[params] as detect prints it");
  metric_option(ack->add_option("--metric", a->metric,
                                "Only this metric's finding (default: every metric of the instance that steps "
                                "there, the finding and its hints)"));
  ack->add_flag("--environment-step", a->environment_step,
                "Answer the environment step at --run whole: every kernel that stepped with it, as detect lists "
                "them under 'environment step'");
  ack->add_flag("--no-finding", a->no_finding,
                "Record the answer though detect finds no step there (of --metric, default duration)");
  ack->add_option("--machine", a->machine,
                  "The machine (id, fingerprint, name or hostname); with it --run may be a commit");
  ack->add_option("--reason", a->reason, "Why (required): 'new kernel is correct and slower', 'tracked in #123'");
  ack->add_option("--link", a->link, "A link to the issue or discussion");
  ack->add_flag("--accept", a->accept,
                "The step is the new level: check and compare take their baseline for this series from this run on");
  ack->add_flag("--undo", a->undo, "Take back this finding's acknowledgement (it stays in the history as undone)");
  add_answer_options(*ack, a->by, a->list, a->format, "Who answers (default $USER)",
                     "List every acknowledgement, undone ones too");
  set_help_footer(*ack,
                  "gpuperf ack --run 3f2a1c9e --benchmark 'matmul/naive[n=1024]' --reason 'tracked in #123'\n"
                  "gpuperf ack --run ec456ab89b --benchmark 'matmul/naive[n=1024]' --metric duration --reason "
                  "'tracked in #123'\n"
                  "gpuperf ack --run 3f2a1c9e --benchmark 'matmul/naive[n=1024]' --accept --reason 'new kernel'\n"
                  "gpuperf ack --run 3f2a1c9e --benchmark 'matmul/naive[n=1024]' --undo\n"
                  "gpuperf ack --run c0ffee1040 --environment-step --reason 'driver 590: expected, tracked in #9'\n"
                  "gpuperf ack --list",
                  exit_codes({{0, "recorded"},
                              {2,
                               "bad input: no such run, instance or metric, no reason, no finding there (without "
                               "--no-finding), nothing to undo; a PostgreSQL role that may not answer (the reader)"},
                              {3, "the database cannot be written"}}));
  ack->callback([&ctx, a] { ctx.action = [&ctx, a] { return do_ack(ctx, *a); }; });
}

void add_annotate_command(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<NoteArgs>();
  CLI::App* note =
      app.add_subcommand("annotate", "Leave a note on a run, a commit or a machine's night (shown on the charts)");
  note->add_option("TEXT", a->text, "The note, e.g. 'driver 590 installed'");
  note->add_option("--run", a->run, "On this run (id, uuid or prefix, or commit)");
  note->add_option("--commit", a->commit, "On this commit (its sha or a prefix of 7+ of a stored run's commit)");
  note->add_option("--machine", a->machine, "With --night: the machine (id, fingerprint, name or hostname)");
  day_option(note->add_option("--night", a->night, "On this night of --machine, YYYY-MM-DD (UTC)"));
  add_answer_options(*note, a->by, a->list, a->format, "Who notes it (default $USER)", "List every annotation");
  set_help_footer(*note,
                  "gpuperf annotate --machine gpu-a --night 2026-11-20 'driver 590 installed'\n"
                  "gpuperf annotate --commit 3f2a1c9e 'switched to cuBLAS'\n"
                  "gpuperf annotate --list",
                  exit_codes({{0, "recorded"},
                              {2,
                               "bad input: not exactly one of --run, --commit, --night; no such run, commit or "
                               "machine; a night that is no calendar day or outside the machine's history; "
                               "a PostgreSQL role that may not answer (the reader)"},
                              {3, "the database cannot be written"}}));
  note->callback([&ctx, a] { ctx.action = [&ctx, a] { return do_annotate(ctx, *a); }; });
}

}  // namespace

void add_answer_commands(CLI::App& app, Context& ctx) {
  add_ack_command(app, ctx);
  add_annotate_command(app, ctx);
}

}  // namespace gpuperf::cli
