// gpuperf runs show RUN: one run's header and the team's answers about it (issue 54 adds its machine and
// environment to the same command).
#pragma once

#include <string>

#include "cli/context.hpp"
#include "db/store.hpp"

namespace CLI {
class App;
}

namespace gpuperf::cli {

// Adds `show` under `runs`.
void add_runs_show_command(CLI::App* runs, Context& ctx);

// The annotations on `run` (on it, its commit, or its machine's night) and the acknowledgements of findings
// that start at it, as lines for `runs show`; "" when there are none.
std::string run_answers_text(const db::Store& store, const db::RunInfo& run);

}  // namespace gpuperf::cli
