#include "cli/option_kinds.hpp"

#include <algorithm>
#include <string>

#include <CLI/CLI.hpp>

#include "core/value_rules.hpp"
#include "reports/analysis/gate.hpp"

namespace gpuperf::cli {
namespace {

// A validator with no description of its own: the option's type name says what it takes.
template <typename Rule>
CLI::Validator rule_validator(Rule rule) {
  return CLI::Validator([rule](std::string& text) { return rule(text); }, "");
}

}  // namespace

CLI::Option* date_option(CLI::Option* option) {
  return option->check(rule_validator([](const std::string& t) { return rules::date(t); }))->type_name("DATE");
}

CLI::Option* day_option(CLI::Option* option) {
  return option->check(rule_validator([](const std::string& t) { return rules::day(t); }))->type_name("YYYY-MM-DD");
}

CLI::Option* count_option(CLI::Option* option, long long min) {
  option->check(rule_validator([min](const std::string& t) { return rules::whole_number(t, min); }));
  option->type_name(min <= 0 ? "N" : "COUNT");
  if (min > 0 && option->get_default_str() == "0") option->default_str("");
  return option;
}

CLI::Option* choice_option(CLI::Option* option, const std::vector<std::string>& choices) {
  std::string names;
  for (const auto& c : choices) names += (names.empty() ? "" : "|") + c;
  return option->check(rule_validator([choices](const std::string& t) { return rules::one_of(t, choices); }))
      ->type_name(names);
}

CLI::Option* metric_option(CLI::Option* option, bool list) {
  return option
      ->check(rule_validator([list](const std::string& t) {
        if (!list) return analysis::unknown_metric(t);
        std::string item;
        std::size_t from = 0;
        while (from <= t.size()) {
          const std::size_t comma = std::min(t.find(',', from), t.size());
          item = t.substr(from, comma - from);
          from = comma + 1;
          if (item.empty()) return "an empty item in '" + t + "'";
          // program_time: a recorded program's total kernel time (--gate only; not a metric of a kernel).
          if (item == "all" || item == "default" || item == analysis::kProgramTimeMetric) continue;
          if (std::string msg = analysis::unknown_metric(item); !msg.empty()) return msg;
        }
        return std::string();
      }))
      ->type_name(list ? "METRIC[,METRIC...]" : "METRIC");
}

CLI::Option* text_option(CLI::Option* option, const std::string& what) {
  return option->check(rule_validator([what](const std::string& t) { return rules::not_blank(t, what); }));
}

CLI::Option* chip_option(CLI::Option* option) {
  return option->check(rule_validator([](const std::string& t) { return rules::chip(t); }))->type_name("CHIP");
}

}  // namespace gpuperf::cli
