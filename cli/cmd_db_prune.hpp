// gpuperf db prune: raw samples kept for recent runs only (cmd_db_prune.cpp).
#pragma once

#include <chrono>
#include <string>

namespace CLI {
class App;
}

namespace gpuperf::cli {

struct Context;

// Adds `prune` under the `db` command.
void add_db_prune_command(CLI::App& db, Context& ctx);

// The cutoff of `--samples-older-than AGE` as stored timestamps compare: AGE is a number of days ("180d") or
// a date or timestamp ("2026-05-01", "2026-05-01T00:00:00Z"), taken against `now`. InputError for anything
// else, and for a cutoff less than kMinPruneDays before `now` (the newest runs' samples are what detect's
// test of an unconfirmed change and `compare` read).
std::string prune_cutoff(const std::string& age, std::chrono::system_clock::time_point now);
constexpr int kMinPruneDays = 30;

}  // namespace gpuperf::cli
