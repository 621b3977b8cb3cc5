// A minimal front end for your own benchmarks: runs everything registered with GPUPERF_BENCHMARK in this
// executable through gpuperf's runner and prints the same summary as `gpuperf run`; with --db it also stores
// the run, so `gpuperf compare`, `report` and `detect` see it.
//
//   gpuperf_example [--filter REGEX] [--quick] [--hot] [--db results.db] [--label L]
#include <cstdio>

#include <CLI/CLI.hpp>

#include "core/errors.hpp"
#include "db/store.hpp"
#include "kernels/benchmark.hpp"
#include "profiler/runner.hpp"
#include "profiler/summary_table.hpp"

int main(int argc, char** argv) {
  std::string filter, db_path, label;
  bool quick = false, hot = false;
  CLI::App app{"gpuperf example: time the benchmarks registered in this executable"};
  app.add_option("--filter", filter, "ECMAScript regex searched in instance names");
  app.add_flag("--quick", quick, "Fewer samples");
  app.add_flag("--hot", hot, "Warm caches (default: flush L2 before each sample)");
  app.add_option("--db", db_path, "Store the run in this gpuperf database");
  app.add_option("--label", label, "Label to store with the run");
  CLI11_PARSE(app, argc, argv);

  try {
    gpuperf::RunOptions options;
    options.timing = quick ? gpuperf::TimingOptions::quick() : gpuperf::TimingOptions{};
    if (hot) options.timing.mode = gpuperf::TimingMode::hot;
    options.label = label;
    const auto instances = gpuperf::Registry::global().instances(filter);
    if (instances.empty()) throw gpuperf::InputError("no registered benchmark matches '" + filter + "'");
    const gpuperf::Run run = gpuperf::run_benchmarks(instances, options);
    std::fputs(gpuperf::format_run_summary(run).c_str(), stdout);
    if (!db_path.empty()) gpuperf::db::Store(db_path).insert_run(run);
    return gpuperf::exit_code_for(run);
  } catch (const gpuperf::Error& e) {
    std::fprintf(stderr, "gpuperf_example: error: %s\n", e.what());
    return e.exit_code();
  }
}
