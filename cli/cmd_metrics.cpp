// gpuperf metrics: what gpuperf measures on a chip, from CUPTI's host API and the chip's name (no GPU needed):
// each metric of the set resolved or `unsupported` with the reason, the passes, the speed of light, the bound
// verdict, PM sampling and source lines (profiler/chip_plan.hpp). docs/gpus.md is its Markdown for every chip.
//
//   gpuperf metrics                         the GPU's own chip
//   gpuperf metrics --chip GA100            an A100's, on any machine
//   gpuperf metrics --chip all --format md  docs/gpus.md's tables
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/context.hpp"
#include "cli/help.hpp"
#include "cli/option_kinds.hpp"
#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "core/value_rules.hpp"
#include "profiler/chip_plan.hpp"
#include "profiler/collector.hpp"
#include "profiler/metric_catalog.hpp"
#include "reports/escape.hpp"
#include "reports/text_table.hpp"

namespace gpuperf::cli {
namespace {

struct MetricsArgs {
  std::vector<std::string> chips;
  std::string metrics = "default";
  std::string format = "text";
  int device = 0;
};

std::string joined(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// A plan's facts beside its metrics, as rows of (what, value).
std::vector<std::pair<std::string, std::string>> facts(const ChipPlan& p) {
  return {
      {"counters", std::to_string(p.perfworks) + " Perfworks metrics, " + std::to_string(p.passes) +
                       " passes in one configuration"},
      {"record's speed of light",
       p.speed_of_light + (p.speed_of_light_why.empty() ? "" : " (" + p.speed_of_light_why + ")")},
      {"bound verdict", p.bound},
      {"PM sampling", p.pm_sampling.empty() ? "no: " + p.pm_why
                                            : joined(p.pm_sampling) + " (" + std::to_string(p.pm_passes) + " pass)"},
      {"source lines", p.source_lines_why.empty() ? "yes (" + std::to_string(p.sass_offered) +
                                                        " SASS metrics offered, every counter the per-line pass reads)"
                                                  : "no: " + p.source_lines_why},
  };
}

nlohmann::ordered_json plan_json(const ChipPlan& p) {
  nlohmann::ordered_json j;
  j["chip"] = p.chip;
  j["metrics"] = nlohmann::ordered_json::array();
  for (const ChipMetric& m : p.metrics) {
    nlohmann::ordered_json row{
        {"name", m.name}, {"kind", m.kind}, {"perfworks", m.perfworks}, {"supported", m.supported}};
    if (!m.supported) row["reason"] = m.reason;
    j["metrics"].push_back(row);
  }
  j["perfworks"] = p.perfworks;
  j["passes"] = p.passes;
  j["record_speed_of_light"] = {{"names", p.speed_of_light}, {"why", p.speed_of_light_why}};
  j["bound"] = p.bound;
  j["pm_sampling"] = {{"metrics", p.pm_sampling}, {"passes", p.pm_passes}};
  if (p.pm_sampling.empty()) j["pm_sampling"]["why"] = p.pm_why;
  j["source_lines"] = {
      {"supported", p.source_lines_why.empty()}, {"sass_metrics_offered", p.sass_offered}, {"missing", p.sass_missing}};
  if (!p.source_lines_why.empty()) j["source_lines"]["why"] = p.source_lines_why;
  return j;
}

// The metrics as a matrix: a row per metric, a column per chip ("yes" or "-", with the reasons listed after).
void write_plans(std::ostream& out, const std::vector<ChipPlan>& plans, bool md) {
  std::vector<std::string> header{"metric", "kind"};
  for (const ChipPlan& p : plans) header.push_back(p.chip);
  const bool one = plans.size() == 1;
  if (one) header.push_back("Perfworks");
  // Every metric of any plan, in the first plan's order, then the others' extras (speed-of-light names differ).
  std::vector<std::pair<std::string, std::string>> names;
  for (const ChipPlan& p : plans) {
    for (const ChipMetric& m : p.metrics) {
      bool seen = false;
      for (const auto& n : names) seen = seen || n.first == m.name;
      if (!seen) names.emplace_back(m.name, m.kind);
    }
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;
  bool absent = false;  // a metric some chip's set lacks
  for (const auto& [name, kind] : names) {
    std::vector<std::string> row{name, kind};
    for (const ChipPlan& p : plans) {
      const ChipMetric* m = nullptr;
      for (const ChipMetric& c : p.metrics) m = c.name == name ? &c : m;
      const MetricTraits* t = find_metric(name);
      if (m == nullptr) {
        row.emplace_back("-");
        absent = true;
      } else if (m->supported) {
        // The chip's own spelling of a counter shows where it differs from the traits table's.
        row.emplace_back(!one && t != nullptr && !t->perfworks.empty() && m->perfworks != t->perfworks
                             ? "yes, as " + joined(m->perfworks)
                             : "yes");
      } else {
        row.emplace_back("unsupported");
        notes.push_back(name + " on " + p.chip + ": " + m->reason);
      }
      if (one) row.push_back(m != nullptr ? joined(m->perfworks) : "");
    }
    rows.push_back(std::move(row));
  }
  std::vector<std::vector<std::string>> fact_rows;
  std::vector<std::string> fact_header{"on the chip"};
  std::vector<std::vector<std::pair<std::string, std::string>>> chip_facts;
  for (const ChipPlan& p : plans) {
    fact_header.push_back(p.chip);
    chip_facts.push_back(facts(p));
  }
  for (std::size_t i = 0; i < chip_facts.front().size(); ++i) {
    std::vector<std::string> row{chip_facts.front()[i].first};
    for (const auto& f : chip_facts) row.push_back(f[i].second);
    fact_rows.push_back(std::move(row));
  }
  if (!md) {
    std::vector<std::string> chips;
    for (const ChipPlan& p : plans) chips.push_back(p.chip);
    out << "What gpuperf measures on " << joined(chips) << " (asked of CUPTI's host API by the chip's name)\n\n";
    reports::write_table(out, header, rows);
    if (absent) out << "(-: not in that chip's set)\n";
    out << "\n";
    for (const auto& row : fact_rows) {
      for (std::size_t c = 1; c < row.size(); ++c) {
        out << row[0] << (plans.size() > 1 ? " on " + plans[c - 1].chip : std::string()) << ": "
            << reports::terminal_text(row[c]) << "\n";
      }
    }
    if (!notes.empty()) out << "\nunsupported:\n";
    for (const std::string& n : notes) out << "  " << reports::terminal_text(n) << "\n";
    return;
  }
  const auto md_rows = [](std::vector<std::vector<std::string>> r) {
    for (auto& row : r) {
      for (auto& c : row) c = reports::md_escape(c);
    }
    return r;
  };
  std::vector<std::string> md_header;
  for (const std::string& h : header) md_header.push_back(reports::md_escape(h));
  reports::write_md_table(out, md_header, std::string(md_header.size(), 'l'), md_rows(rows));
  if (absent) out << "\n-: not in that chip's set.\n";
  out << "\n";
  std::vector<std::string> md_fact_header;
  for (const std::string& h : fact_header) md_fact_header.push_back(reports::md_escape(h));
  reports::write_md_table(out, md_fact_header, std::string(md_fact_header.size(), 'l'), md_rows(fact_rows));
  if (!notes.empty()) out << "\nUnsupported:\n\n";
  for (const std::string& n : notes) out << "- " << reports::md_escape(n) << "\n";
}

int do_metrics(const MetricsArgs& a) {
  std::vector<std::string> chips;
  for (const std::string& c : a.chips) {
    if (c == "all") {
      chips.insert(chips.end(), documented_chips().begin(), documented_chips().end());
    } else {
      chips.push_back(c);
    }
  }
  if (chips.empty()) {
    try {
      chips.push_back(device_chip_name(a.device));
    } catch (const EnvironmentError& e) {
      throw EnvironmentError(std::string(e.what()) + "; --chip CHIP asks of a chip by its name, with no GPU");
    }
  }
  const MetricSelection selection = parse_metrics_option(a.metrics);
  if (!selection.enabled) throw InputError("--metrics none: there is nothing to plan");
  std::vector<ChipPlan> plans;
  for (const std::string& chip : chips) plans.push_back(plan_for_chip(chip, selection.names));
  if (a.format == "json") {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const ChipPlan& p : plans) j.push_back(plan_json(p));
    std::cout << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  write_plans(std::cout, plans, a.format == "md");
  return kExitOk;
}

}  // namespace

void add_metrics_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<MetricsArgs>();
  CLI::App* cmd =
      app.add_subcommand("metrics",
                         "What gpuperf measures on a chip, from CUPTI's host API: each metric, passes, speed of light, "
                         "PM sampling, source lines (no GPU needed with --chip)");
  cmd->add_option("--chip", args->chips,
                  "A chip as CUPTI names it (GA100, AD104, GH100, GB202, ...; repeatable), or all: the chips of "
                  "docs/gpus.md (default: this machine's GPU)")
      ->check(CLI::Validator([](std::string& t) { return t == "all" ? std::string() : rules::chip(t); }, ""))
      ->type_name("CHIP|all");
  cmd->add_option("--metrics", args->metrics,
                  "default (the set `run` collects), all, or a comma-separated list of gpuperf and Perfworks names");
  choice_option(cmd->add_option("--format", args->format, "text, md or json"), {"text", "md", "json"});
  count_option(cmd->add_option("--device", args->device, "Without --chip: the CUDA device whose chip is asked"), 0);
  set_help_footer(*cmd,
                  "gpuperf metrics --chip GA100\n"
                  "gpuperf metrics --chip AD104 --chip GH100 --metrics default\n"
                  "gpuperf metrics --chip all --format md > gpus.md",
                  exit_codes({{0, "fine"},
                              {2, "bad usage or input: a chip CUPTI does not know, an unknown metric"},
                              {3, "no --chip and no GPU or driver; CUPTI missing"}}));
  cmd->callback([&ctx, args] { ctx.action = [args] { return do_metrics(*args); }; });
}

}  // namespace gpuperf::cli
