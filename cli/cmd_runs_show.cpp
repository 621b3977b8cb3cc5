// gpuperf runs show RUN: one stored run whole: what it is (commit, branch, program), the machine it ran on and
// the environment it ran with (core/environment.hpp), its results' code identities in a count, and the team's
// answers about it (db/answers.hpp): the notes on it and the acknowledgements of findings that start at it.
//
// The output is a list of sections, each a title and rows of (field, value), printed as aligned text or as one
// JSON object keyed by section: a new section (a run's annotations, say) is one more function in show_sections.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
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
#include "core/environment.hpp"
#include "core/result.hpp"
#include "db/answers.hpp"
#include "db/store.hpp"
#include "reports/escape.hpp"

namespace gpuperf::cli {
namespace {

struct ShowArgs {
  std::string run;
  std::string format = "text";
};

struct Section {
  std::string title;  // also its key in --format json
  std::vector<std::pair<std::string, std::string>> rows;
  bool lists = false;  // a field may repeat: in JSON each field is an array of its values
  void add(const std::string& field, const std::string& value) {
    if (!value.empty()) rows.emplace_back(field, value);
  }
};

Section run_section(const db::RunInfo& info, const Run& run) {
  Section s{"run", {}};
  s.add("id", std::to_string(info.id));
  s.add("uuid", run.uuid);
  s.add("started_at", run.started_at);
  s.add("finished_at", run.finished_at);
  s.add("commit", run.commit);
  s.add("branch", run.branch);
  s.add("label", run.label);
  s.add("tool_version", run.tool_version);
  s.add("status", to_string(run.status));
  if (run.excluded) s.add("excluded", "yes: " + run.exclude_reason);
  s.add("command", run.command);
  if (run.exit_status) s.add("exit_status", describe_exit_status(*run.exit_status));
  if (run.rank) s.add("rank", std::to_string(*run.rank));
  if (run.local_rank) s.add("local_rank", std::to_string(*run.local_rank));
  if (run.world_size) s.add("world_size", std::to_string(*run.world_size));
  return s;
}

Section machine_section(const Machine& m) {
  Section s{"machine", {}};
  s.add("hostname", m.hostname);
  s.add("gpu_name", m.gpu_name);
  s.add("gpu_uuid", m.gpu_uuid);
  s.add("cc", m.cc);
  if (m.sm_count > 0) s.add("sm_count", std::to_string(m.sm_count));
  s.add("driver", m.driver);
  s.add("cuda", m.cuda);
  return s;
}

// The machine's settings and the process's libraries and frameworks, as stored (keys in core/environment.hpp).
Section environment_section(const Run& run, bool libraries) {
  Section s{libraries ? "libraries" : "environment", {}};
  for (const auto& [k, v] : run.environment) {
    const bool lib = k.rfind(env::kLibraryPrefix, 0) == 0 || k.rfind(env::kFrameworkPrefix, 0) == 0;
    if (lib == libraries) s.rows.emplace_back(k, v);
  }
  return s;
}

Section results_section(const Run& run) {
  Section s{"results", {}};
  std::size_t with_code = 0;
  for (const Result& r : run.results) with_code += r.code.fingerprint.empty() ? 0 : 1;
  s.rows.emplace_back("instances", std::to_string(run.results.size()));
  s.rows.emplace_back("with_code_fingerprint", std::to_string(with_code));
  return s;
}

// The annotations on the run (on it, its commit, or its machine's night) and the acknowledgements of findings that
// start at it: "note", "acked", "accepted" or "undone" rows.
Section answers_section(const db::Store& store, const db::RunInfo& run) {
  Section s{"answers", {}, true};
  const auto by = [](const std::string& who) { return who.empty() ? std::string() : " (" + who + ")"; };
  for (const db::Annotation& n : store.annotations()) {
    const bool on =
        (n.run_id && *n.run_id == run.id) || (!n.commit.empty() && run.commit.rfind(n.commit, 0) == 0) ||
        (!n.night.empty() && n.machine_id && *n.machine_id == run.machine_id && run.started_at.rfind(n.night, 0) == 0);
    if (on) s.add("note", n.text + by(n.by));
  }
  db::AckFilter at_run;
  at_run.run_id = run.id;
  for (const db::Acknowledgement& a : store.acknowledgements(at_run)) {
    s.add(a.undone     ? "undone"
          : a.accepted ? "accepted"
                       : "acked",
          a.instance.display_name() + " " + a.metric + ": " + a.reason + by(a.by));
  }
  return s;
}

std::vector<Section> show_sections(const db::Store& store, const db::RunInfo& info, const Run& run) {
  return {run_section(info, run),         machine_section(run.machine), environment_section(run, false),
          environment_section(run, true), results_section(run),         answers_section(store, info)};
}

void print_text(const std::vector<Section>& sections) {
  for (const Section& s : sections) {
    std::cout << s.title << (s.rows.empty() ? "  (none recorded)" : "") << "\n";
    std::size_t width = 0;
    for (const auto& row : s.rows) width = std::max(width, row.first.size());
    for (const auto& [k, v] : s.rows) {
      std::cout << "  " << reports::terminal_text(k) << std::string(width - k.size() + 2, ' ')
                << reports::terminal_text(v) << "\n";
    }
  }
}

void print_json(const std::vector<Section>& sections) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const Section& s : sections) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::object();
    for (const auto& [k, v] : s.rows) {
      if (s.lists) {
        rows[k].push_back(v);
      } else {
        rows[k] = v;
      }
    }
    out[s.title] = std::move(rows);
  }
  std::cout << out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

int do_show(const Context& ctx, const ShowArgs& a) {
  db::Store store = open_store(ctx, db::Access::read_only);
  const db::RunInfo info = resolve_run(store, a.run);
  const Run run = store.load_run(info.id, false);
  const auto sections = show_sections(store, info, run);
  if (a.format == "json") {
    print_json(sections);
  } else {
    print_text(sections);
  }
  return kExitOk;
}

}  // namespace

void add_runs_show_command(CLI::App& runs, Context& ctx) {
  auto args = std::make_shared<ShowArgs>();
  CLI::App* show = runs.add_subcommand(
      "show",
      "Print one run whole: the run, its machine, its environment, and the team's notes and acknowledgements on it");
  show->add_option("RUN", args->run, "Run id, uuid (or prefix of 8+), or commit (7+)")->required();
  choice_option(show->add_option("--format", args->format, "text or json"), {"text", "json"});
  set_help_footer(*show, "gpuperf runs show 42\ngpuperf runs show 3f2a1c9e --format json",
                  exit_codes({{0, "fine"}, {2, "no such run, no database at the path, or one not gpuperf's"}}));
  show->callback([&ctx, args] { ctx.action = [&ctx, args] { return do_show(ctx, *args); }; });
}

}  // namespace gpuperf::cli
