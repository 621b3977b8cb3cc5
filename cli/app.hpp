// The whole `gpuperf` command line as a function, over the benchmarks registered in this executable.
#pragma once

namespace gpuperf::cli {

// Parses `argv` (list, run, profile, check, compare, detect, report, import, export, runs, db, merge), runs
// the command and returns its exit code (README.md, "Exit codes"). Registration errors of GPUPERF_BENCHMARK
// (a name registered twice, ...) are reported first, with exit 2.
int main(int argc, char** argv);

}  // namespace gpuperf::cli
