// What `gpuperf run` and `gpuperf check` share: their measurement options and the measuring itself
// (instances -> device -> collector -> runner), so the two commands cannot drift apart.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/context.hpp"
#include "core/result.hpp"
#include "kernels/benchmark.hpp"

namespace CLI {
class App;
}

namespace gpuperf::cli {

struct MeasureArgs {
  std::string filter;  // ECMAScript regex on instance names; empty: the default suite
  bool quick = false;
  bool hot = false;
  std::string commit, branch, label;
  std::string metrics = "default";  // none, default, all, or a list of gpuperf and Perfworks names
  std::uint64_t seed = 0;           // 0: fresh random inputs per run
  // Per-source-line counters (an instrumented pass after the metrics): on with hardware metrics unless
  // --no-source-lines; --source-lines asks for them with --metrics none too.
  bool source_lines = false;
  bool no_source_lines = false;
};

// --filter --quick --hot --commit --branch --label --metrics --seed --[no-]source-lines, with one wording for both
// commands.
void add_measure_options(CLI::App* cmd, MeasureArgs& a);

// Registry::global(), holding whatever this executable registered (the built-in suite when it links
// gpuperf::builtin_kernels, its own GPUPERF_BENCHMARKs). InputError (exit 2) when it holds none.
const Registry& registered_benchmarks();

// The registry's instances matching `filter`. InputError when none match.
std::vector<InstanceRef> select_instances(const std::string& filter);

struct Measured {
  Run run;
  std::string profiling_error;  // non-empty when hardware metrics could not be collected (timings kept)
};

// Verifies, times and (unless --metrics none) profiles `instances` on `device`, which the caller has
// selected already (gpu::select_device). Progress goes to a terminal only. Nothing is stored here.
Measured measure(const Context& ctx, const MeasureArgs& a, const std::vector<InstanceRef>& instances, int device);

}  // namespace gpuperf::cli
