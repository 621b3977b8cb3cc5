// The kinds of option values, each checked by one rule (core/value_rules.hpp) the same way in every command,
// and shown the same way in --help. A refusal is exit 2 with "gpuperf: error: --OPTION: <what was expected>,
// got '<value>'" (cli/app.cpp prints it).
//   date_option(cmd->add_option("--since", a.since, "..."));            // TYPE DATE
//   count_option(cmd->add_option("--last", a.last, "..."), 1);          // TYPE COUNT (1 or more; N: 0 or more)
//   choice_option(cmd->add_option("--format", a.format, "..."), {"text", "json"});  // TYPE text|json
#pragma once

#include <string>
#include <vector>

namespace CLI {
class Option;
}

namespace gpuperf::cli {

// An ISO 8601 date or its prefix (rules::date).
CLI::Option* date_option(CLI::Option* option);
// One calendar day, YYYY-MM-DD (rules::day).
CLI::Option* day_option(CLI::Option* option);

// A whole number of at least `min` (0: an ordinal or "0 turns it off"; 1: a count). Its help shows no
// default of 0 where 0 is refused (an option left unset).
CLI::Option* count_option(CLI::Option* option, long long min);

// One of `choices` (for a list option, each element).
CLI::Option* choice_option(CLI::Option* option, const std::vector<std::string>& choices);

// A metric name (for a list option, each element), checked as analysis::check_metric_name() does: an
// unknown one is refused with the close names. `list`: a comma-separated list, with "all" and "default"
// allowed (--gate).
CLI::Option* metric_option(CLI::Option* option, bool list = false);

// Text that must say something (rules::not_blank): `what` is what it should be, e.g. "a reason".
CLI::Option* text_option(CLI::Option* option, const std::string& what);

// A GPU chip name (rules::chip).
CLI::Option* chip_option(CLI::Option* option);

}  // namespace gpuperf::cli
