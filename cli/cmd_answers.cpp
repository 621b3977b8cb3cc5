// gpuperf ack | annotate: a team's answers to its history (docs/answers.md). `ack` answers a finding as
// `detect` and the nightly print it (machine, benchmark instance, metric, the run where the step starts) with
// a reason, optionally accepting the step as the series' new baseline; `ack --undo` takes it back. `annotate`
// leaves a note on a run, a commit or a machine's night. Both record who ($USER or --by) and when (now).
#include <cstdio>
#include <cstdlib>
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
#include "db/answers_json.hpp"
#include "db/store.hpp"
#include "reports/escape.hpp"

namespace gpuperf::cli {
namespace {

struct AckArgs {
  std::string run, benchmark, metric = "duration", machine, reason, link, by, format = "text";
  bool accept = false, undo = false, list = false;
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

std::pair<std::int64_t, BenchmarkInstance> finding_benchmark(const db::Store& store, const std::string& ref) {
  const auto found = store.find_benchmarks(ref);
  if (found.empty()) throw InputError("--benchmark '" + ref + "' names no stored benchmark instance");
  if (found.size() > 1) {
    std::string list;
    for (const auto& [id, inst] : found) list += "\n  " + inst.display_name();
    throw InputError("--benchmark '" + ref + "' names several instances; give one as name[params]:" + list);
  }
  return found.front();
}

// The acknowledgements of this finding that still answer it (not undone), newest last.
std::vector<db::Acknowledgement> active_acks(const db::Store& store, std::int64_t machine_id, std::int64_t bench_id,
                                             const std::string& metric, std::int64_t run_id) {
  std::vector<db::Acknowledgement> out;
  for (auto& a : store.acknowledgements()) {
    if (!a.undone && a.machine_id == machine_id && a.benchmark_id == bench_id && a.metric == metric &&
        a.run_id == run_id) {
      out.push_back(std::move(a));
    }
  }
  return out;
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
  return print_answers(
      store.acknowledgements(), format, db::acknowledgements_json,
      [](const db::Acknowledgement& a) {
        std::printf("%lld  %s  %s %s  run %.8s  %s%s: %s%s%s\n", static_cast<long long>(a.id),
                    reports::terminal_text(a.fingerprint).c_str(),
                    reports::terminal_text(a.instance.display_name()).c_str(), a.metric.c_str(), a.run_uuid.c_str(),
                    a.undone ? "undone, was " : "", a.accepted ? "accepted" : "acknowledged",
                    reports::terminal_text(a.reason).c_str(),
                    a.link.empty() ? "" : (" (" + reports::terminal_text(a.link) + ")").c_str(),
                    (" by " + reports::terminal_text(a.by) + " " + a.at).c_str());
      },
      "no acknowledgements");
}

int do_ack(const Context& ctx, const AckArgs& a) {
  if (a.list) return print_acks(open_store(ctx, db::Access::read_only), a.format);
  if (a.run.empty() || a.benchmark.empty()) throw InputError("ack needs the finding: --run RUN --benchmark NAME[...]");
  if (!a.undo && a.reason.find_first_not_of(" \t") == std::string::npos) {
    throw InputError("ack needs --reason: why the step is expected or known (e.g. 'new kernel, correct and slower')");
  }
  db::check_can_answer(ctx.db_path, open_options(ctx));  // a reader role: exit 2 before anything is written
  db::Store store = open_existing_store(ctx);
  const db::RunInfo run = finding_run(store, a);
  const auto [bench_id, instance] = finding_benchmark(store, a.benchmark);
  const std::string what = instance.display_name() + " " + a.metric + " on " + run.fingerprint + " from run " +
                           run.uuid.substr(0, 8) + (run.commit.empty() ? "" : " (" + run.commit.substr(0, 10) + ")");
  if (a.undo) {
    const auto acks = active_acks(store, run.machine_id, bench_id, a.metric, run.id);
    if (acks.empty()) throw InputError("no acknowledgement of " + what + " to undo (see `gpuperf ack --list`)");
    for (const auto& k : acks) store.undo_acknowledgement(k.id, who(a.by), "");
    std::printf("undid the acknowledgement of %s\n", reports::terminal_text(what).c_str());
    return kExitOk;
  }
  bool metric_known = false;
  for (const auto& m : store.metrics()) metric_known = metric_known || m.name == a.metric;
  if (!metric_known) throw InputError("--metric '" + a.metric + "' is not a stored metric");
  db::Acknowledgement k;
  k.machine_id = run.machine_id;
  k.benchmark_id = bench_id;
  k.metric = a.metric;
  k.run_id = run.id;
  k.reason = a.reason;
  k.link = a.link;
  k.by = who(a.by);
  k.accepted = a.accept;
  store.add_acknowledgement(k);
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
  }
  if (!a.night.empty()) {
    if (a.machine.empty()) throw InputError("--night needs --machine: the machine whose night it is");
    const db::MachineRow m = machine_of(store, a.machine);
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
  ack->add_option("--run", a->run, "The run where the step starts (id, uuid or prefix, or its commit)");
  ack->add_option("--benchmark", a->benchmark, "The benchmark instance, name[params] as detect prints it");
  ack->add_option("--metric", a->metric, "The metric (default duration)");
  ack->add_option("--machine", a->machine, "The machine (id, fingerprint or hostname); with it --run may be a commit");
  ack->add_option("--reason", a->reason, "Why (required): 'new kernel is correct and slower', 'tracked in #123'");
  ack->add_option("--link", a->link, "A link to the issue or discussion");
  ack->add_flag("--accept", a->accept,
                "The step is the new level: check and compare take their baseline for this series from this run on");
  ack->add_flag("--undo", a->undo, "Take back this finding's acknowledgement (it stays in the history as undone)");
  add_answer_options(*ack, a->by, a->list, a->format, "Who answers (default $USER)",
                     "List every acknowledgement, undone ones too");
  set_help_footer(*ack,
                  "gpuperf ack --run 3f2a1c9e --benchmark 'matmul/naive[n=1024]' --reason 'tracked in #123'\n"
                  "gpuperf ack --run 3f2a1c9e --benchmark 'matmul/naive[n=1024]' --accept --reason 'new kernel'\n"
                  "gpuperf ack --run 3f2a1c9e --benchmark 'matmul/naive[n=1024]' --undo\n"
                  "gpuperf ack --list",
                  exit_codes({{0, "recorded"},
                              {2,
                               "bad input: no such run, instance or metric, no reason, nothing to undo; a "
                               "PostgreSQL role that may not answer (the reader)"},
                              {3, "the database cannot be written"}}));
  ack->callback([&ctx, a] { ctx.action = [&ctx, a] { return do_ack(ctx, *a); }; });
}

void add_annotate_command(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<NoteArgs>();
  CLI::App* note =
      app.add_subcommand("annotate", "Leave a note on a run, a commit or a machine's night (shown on the charts)");
  note->add_option("TEXT", a->text, "The note, e.g. 'driver 590 installed'");
  note->add_option("--run", a->run, "On this run (id, uuid or prefix, or commit)");
  note->add_option("--commit", a->commit, "On this commit (its sha or a prefix of 7+)");
  note->add_option("--machine", a->machine, "With --night: the machine (id, fingerprint or hostname)");
  note->add_option("--night", a->night, "On this night of --machine, YYYY-MM-DD (UTC)");
  add_answer_options(*note, a->by, a->list, a->format, "Who notes it (default $USER)", "List every annotation");
  set_help_footer(*note,
                  "gpuperf annotate --machine gpu-a --night 2026-11-20 'driver 590 installed'\n"
                  "gpuperf annotate --commit 3f2a1c9e 'switched to cuBLAS'\n"
                  "gpuperf annotate --list",
                  exit_codes({{0, "recorded"},
                              {2,
                               "bad input: not exactly one of --run, --commit, --night; no such run or machine; "
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
