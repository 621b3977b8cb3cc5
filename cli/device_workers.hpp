// `gpuperf run --device all|N,M`: one worker process per GPU, in parallel, into the same database.
//
// Processes, not threads: CUPTI's activity tracing and range profiler are process-wide, so each GPU's
// measurement gets a process of its own; SQLite's BEGIN IMMEDIATE and busy timeout serialise the writes.
#pragma once

#include <string>
#include <vector>

namespace gpuperf::cli {

// "all" (every device this process sees; EnvironmentError without a GPU), "3", or "0,2". Throws InputError
// for anything else, a negative ordinal or a repeated one.
std::vector<int> parse_device_list(const std::string& spec);

struct WorkerResult {
  int device = 0;
  int exit_code = 0;
  std::string out;  // the worker's standard output
  std::string err;  // its standard error
};

// Runs this executable once per device with `argv` (the whole command line, argv[0] included) rewritten
// to `--device K`, all at once, and waits for every worker. Throws EnvironmentError when a worker cannot
// be started.
std::vector<WorkerResult> run_device_workers(const std::vector<std::string>& argv, const std::vector<int>& devices);

}  // namespace gpuperf::cli
