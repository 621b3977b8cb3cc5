// Moving runs between interchange files and a store, all or nothing.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "db/store.hpp"

namespace gpuperf::db {

struct ImportReport {
  std::size_t files = 0;
  std::size_t runs = 0;      // runs in the files
  std::size_t inserted = 0;  // new to the database
  std::size_t skipped = 0;   // their uuid was already there (import is idempotent)
  std::size_t results = 0;   // metric results of the inserted runs
  std::size_t samples = 0;   // raw samples of the inserted runs
  std::size_t answers = 0;   // acknowledgements and annotations new to the database (db/answers.hpp)
  // Skipped runs whose stored namesake differs (another commit, other results or values): one line each,
  // "run UUID (id N): stored with commit abc, the file says def"; the stored run is kept as it was.
  std::vector<std::string> differing;
};

struct ParsedFiles {
  std::size_t files = 0;
  std::vector<Run> runs;
  // Where each run came from, "FILE: runs[3]", for messages; empty when the runs came from databases.
  std::vector<std::string> sources;
  Answers answers;  // the files' or databases' acknowledgements and annotations
  // Where each answer came from, "FILE: acknowledgements[0]", "FILE: annotations[2]"; empty from databases.
  std::vector<std::string> ack_sources, note_sources;
};

// InputError, naming the JSON path, for a metric whose unit, direction or determinism contradicts the
// database's `stored` traits of that name or an earlier use of the name in the same import.
void check_metric_meanings(const ParsedFiles& parsed, const std::vector<MetricInfo>& stored);

// Reads and validates every file ("-" is standard input). Throws InputError naming the file and path.
ParsedFiles read_interchange_files(const std::vector<std::string>& paths);

// Checks the runs' metrics against the database's (check_metric_meanings) and that every answer names a run
// (or machine) of the input or the database, then writes all the runs in one transaction (runs whose uuid is
// already stored are skipped), then the answers (db/answers_transfer.hpp).
ImportReport import_runs(Store& store, const ParsedFiles& parsed);

// Imports into the database at `path`, opened read-write with `options`. A database file that does not exist
// yet is built whole under a temporary name, runs included, and renamed into place: a failure or a kill
// leaves no file, and readers never see it without its runs. When another process creates it meanwhile,
// the runs go into that one (a uuid already there is skipped as usual).
ImportReport import_into(const std::string& path, const ParsedFiles& parsed, const OpenOptions& options = {});

// Both: a bad file anywhere means nothing is written.
ImportReport import_files(Store& store, const std::vector<std::string>& paths);

// Writes the runs with these ids, in this order, as one document, with the answers that belong with them
// (db/answers_transfer.hpp). Returns the number of runs written.
std::size_t export_runs(const Store& store, const std::vector<std::int64_t>& run_ids, std::ostream& out);

// Like export_runs, into `path` through a temporary file in the same directory that is renamed over it
// once complete: readers never see half a file, and a failure leaves no file behind.
// Throws EnvironmentError when the directory cannot be written.
std::size_t export_runs_to_file(const Store& store, const std::vector<std::int64_t>& run_ids, const std::string& path);

}  // namespace gpuperf::db
