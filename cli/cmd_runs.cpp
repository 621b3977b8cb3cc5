// gpuperf runs [exclude|include]: list the stored runs, and keep a bad run out of baselines and trends.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/context.hpp"
#include "cli/help.hpp"
#include "cli/open_store.hpp"
#include "cli/option_kinds.hpp"
#include "core/command_line.hpp"
#include "core/result.hpp"
#include "db/store.hpp"
#include "reports/escape.hpp"
#include "reports/text_table.hpp"

namespace gpuperf::cli {
namespace {

struct RunsArgs {
  std::string branch, machine, since, run_key;
  std::size_t last = 0;  // 0: all
  std::string format = "text";
};

struct ExcludeArgs {
  std::string run, reason;
};

db::RunFilter make_filter(const db::Store& store, const RunsArgs& a) {
  db::RunFilter f;
  if (!a.branch.empty()) f.branch = a.branch;
  if (!a.since.empty()) f.since = a.since;
  if (a.last > 0) f.last = a.last;
  if (!a.machine.empty()) {
    auto m = store.find_machine(a.machine);
    if (!m)
      throw InputError("no machine matches '" + a.machine +
                       "' (give an id, a fingerprint or a hostname; see `gpuperf db info`)");
    f.machine_id = m->id;
  }
  return f;
}

// "node1 (NVIDIA H200, GPU-4fc4ff4a)" (machine_name, as every command names it). A recorded process of a
// distributed job adds its rank: "node1 (NVIDIA H200, GPU-4fc4ff4a) rank 1/2".
std::string machine_cell(const db::RunInfo& r) {
  std::string cell = machine_name(r.hostname, r.gpu_name, r.fingerprint);
  if (r.rank) cell += " rank " + std::to_string(*r.rank) + (r.world_size ? "/" + std::to_string(*r.world_size) : "");
  return cell;
}

// "./train --epochs 2 --name 'run 1' [exit 1]": the command cut to kCommandWidth characters (the full line is
// in --format json), and how the program ended when that was not a clean exit 0.
std::string command_cell(const db::RunInfo& r) {
  constexpr std::size_t kCommandWidth = 40;
  std::string cell = r.command;
  if (cell.size() > kCommandWidth) {
    std::size_t cut = kCommandWidth - 3;
    while (cut > 0 && (static_cast<unsigned char>(cell[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 char
    cell = cell.substr(0, cut) + "...";
  }
  if (r.exit_status && *r.exit_status != 0) cell += " [" + describe_exit_status(*r.exit_status) + "]";
  return cell;
}

// The runs stored under `gpuperf run --run-key KEY`: one per GPU, each with the uuid the key gives on that
// machine (run_key_uuid), so a job finds its own runs again after a crash or a rerun.
std::vector<db::RunInfo> keep_run_key(const db::Store& store, std::vector<db::RunInfo> runs, const std::string& key) {
  std::set<std::string> uuids;
  for (const db::MachineRow& m : store.machines()) uuids.insert(run_key_uuid(key, m.fingerprint));
  runs.erase(std::remove_if(runs.begin(), runs.end(), [&](const db::RunInfo& r) { return !uuids.count(r.uuid); }),
             runs.end());
  return runs;
}

int do_list(const Context& ctx, const RunsArgs& a) {
  db::Store store = open_store(ctx, db::Access::read_only);
  auto runs = store.runs(make_filter(store, a));
  if (!a.run_key.empty()) runs = keep_run_key(store, std::move(runs), a.run_key);
  if (a.format == "json") {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& r : runs) {
      out.push_back(
          {{"id", r.id},
           {"uuid", r.uuid},
           {"started_at", r.started_at},
           {"finished_at", r.finished_at},
           {"commit", r.commit},
           {"branch", r.branch},
           {"label", r.label},
           {"tool_version", r.tool_version},
           {"machine",
            {{"id", r.machine_id}, {"fingerprint", r.fingerprint}, {"hostname", r.hostname}, {"gpu_name", r.gpu_name}}},
           {"instances", r.instance_count},
           {"status", to_string(r.status)},
           {"excluded", r.excluded},
           {"exclude_reason", r.exclude_reason}});
      // A recorded run's program (`gpuperf record`); benchmark runs list as they always did.
      if (!r.command.empty()) out.back()["command"] = r.command;
      if (r.exit_status) out.back()["exit_status"] = *r.exit_status;
      if (r.rank) out.back()["rank"] = *r.rank;
      if (r.local_rank) out.back()["local_rank"] = *r.local_rank;
      if (r.world_size) out.back()["world_size"] = *r.world_size;
    }
    std::cout << out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  if (runs.empty()) {
    const bool filtered = !a.branch.empty() || !a.machine.empty() || !a.since.empty() || !a.run_key.empty();
    std::fprintf(stderr, "no runs%s in %s\n", filtered ? " match" : "", shown_db(ctx).c_str());
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows{
      {"id", "uuid", "started", "commit", "branch", "label", "machine", "instances", "status", "excluded"}};
  // The command column appears only when a recorded run is listed.
  const bool any_recorded =
      std::any_of(runs.begin(), runs.end(), [](const db::RunInfo& r) { return !r.command.empty(); });
  if (any_recorded) rows.front().push_back("command");
  // Each uuid as long as it must be to name its run alone among every stored run (8 characters nearly always).
  std::vector<std::string> every_uuid;
  for (const db::RunInfo& r : store.runs()) every_uuid.push_back(r.uuid);
  std::sort(every_uuid.begin(), every_uuid.end());
  for (const auto& r : runs) {
    rows.push_back({std::to_string(r.id), db::unique_prefix(every_uuid, r.uuid), r.started_at, r.commit.substr(0, 10),
                    r.branch, r.label, machine_cell(r), std::to_string(r.instance_count), to_string(r.status),
                    r.excluded ? "yes: " + r.exclude_reason : ""});
    if (any_recorded) rows.back().push_back(command_cell(r));
  }
  const std::vector<std::string> header = rows.front();
  rows.erase(rows.begin());
  reports::write_table(std::cout, header, std::move(rows));
  return kExitOk;
}

int do_exclude(const Context& ctx, const ExcludeArgs& a, bool exclude) {
  db::Store store = open_existing_store(ctx);
  const db::RunInfo r = resolve_run(store, a.run);  // open_store.hpp
  store.set_excluded(r.id, exclude, a.reason);
  if (!ctx.quiet) {
    if (exclude) {
      std::printf("excluded run %lld (%s, %s): %s\n", static_cast<long long>(r.id), r.uuid.c_str(),
                  r.started_at.c_str(), reports::terminal_text(a.reason).c_str());
    } else {
      std::printf("included run %lld (%s, %s) again\n", static_cast<long long>(r.id), r.uuid.c_str(),
                  r.started_at.c_str());
    }
  }
  return kExitOk;
}

}  // namespace

void add_runs_commands(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<RunsArgs>();
  CLI::App* runs = app.add_subcommand("runs", "List stored runs, oldest first (read-only); exclude or include one");
  runs->add_option("--branch", args->branch, "Only runs of this branch");
  runs->add_option("--machine", args->machine,
                   "Only runs of this machine: id, fingerprint (or its printed prefix), name or hostname");
  date_option(
      runs->add_option("--since", args->since, "Only runs started at or after this ISO 8601 time (prefix compare)"));
  count_option(runs->add_option("--last", args->last, "Only the newest N runs"), 1);
  runs->add_option(
      "--run-key", args->run_key,
      "Only the runs stored by `gpuperf run --run-key KEY` (one per GPU), e.g. nightly/2026-11-22/3f2a1c9e");
  choice_option(runs->add_option("--format", args->format, "text (a table, the default; also: table) or json"),
                {"text", "table", "json"});
  set_help_footer(*runs,
                  "gpuperf runs --branch main --last 10\n"
                  "gpuperf runs exclude 42 --reason 'GPU shared with another job'",
                  exit_codes({{0, "fine"}, {2, "bad usage or input: no database at the path, one not gpuperf's"}}));
  runs->require_subcommand(0, 1);

  auto ex = std::make_shared<ExcludeArgs>();
  CLI::App* exclude = runs->add_subcommand(
      "exclude", "Keep a run out of baselines, comparisons and trends (its data stays; `runs include` undoes it)");
  exclude->add_option("RUN", ex->run, "Run id, uuid (or prefix of 8+), or commit (7+)")->required();
  text_option(exclude->add_option("--reason", ex->reason, "Why, e.g. 'GPU shared with another job'")->required(),
              "a reason, e.g. 'GPU shared with another job'");
  set_help_footer(*exclude, "gpuperf runs exclude 42 --reason 'GPU shared with another job'",
                  exit_codes({{0, "the run is excluded"},
                              {2, "no such run, no reason, no database at the path, or a damaged one (left untouched)"},
                              {3, "the database cannot be written"}}));
  exclude->callback([&ctx, ex] { ctx.action = [&ctx, ex] { return do_exclude(ctx, *ex, true); }; });

  auto in = std::make_shared<ExcludeArgs>();
  CLI::App* include = runs->add_subcommand("include", "Undo `runs exclude`");
  include->add_option("RUN", in->run, "Run id, uuid (or prefix of 8+), or commit (7+)")->required();
  set_help_footer(*include, "gpuperf runs include 42",
                  exit_codes({{0, "the run is included again"},
                              {2, "no such run, no database at the path, or a damaged one (left untouched)"},
                              {3, "the database cannot be written"}}));
  include->callback([&ctx, in] { ctx.action = [&ctx, in] { return do_exclude(ctx, *in, false); }; });
  add_runs_show_command(*runs, ctx);  // cli/cmd_runs_show.cpp

  // Subcommand callbacks run before their parent's: the listing only when no subcommand was given.
  runs->callback([&ctx, args, runs] {
    if (runs->get_subcommands().empty()) ctx.action = [&ctx, args] { return do_list(ctx, *args); };
  });
}

}  // namespace gpuperf::cli
