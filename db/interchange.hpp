// The interchange format: gpuperf-results JSON, version 1 (README.md, "Database"; ../shared/DESIGN.md).
//
//   {"format": "gpuperf-results", "version": 1, "runs": [ {run}, ... ]}
//
// Reading validates the whole document before anything is returned: every error names the source, and
// the JSON path of the offending value, e.g.
//   runs.json: runs[0].results[3].metrics.duration.samples[7]: expected a finite number, got "NaN"
// or, for malformed JSON, the line and column. Summaries in a file are ignored: the store recomputes them
// from the raw samples. Writing produces one run per line, so files diff and stream well.
//
// A recorded run adds "command" (string) and "exit_status" (integer) to its run object. Both are optional
// and written only when set, so they need no new version: files of benchmark runs are unchanged, and an
// older gpuperf ignores them as it ignores any unknown field.
//
// A recorded process of a distributed job adds "rank", "local_rank" and "world_size" (integers, from RANK,
// LOCAL_RANK and WORLD_SIZE) on the same terms. Reading checks them together: 0 <= rank < world_size,
// 0 <= local_rank < world_size, world_size >= 1, each where given.
//
// A result whose source-line pass ran adds "source" (its per-line counters; db/interchange_source.hpp), on the
// same terms: optional, written only when there is something to say, validated whole on reading.
//
// A team's answers (db/answers.hpp) travel beside the runs as two optional top-level arrays, "acknowledgements"
// and "annotations" (db/answers_json.hpp gives their objects), on the same terms: version 1 still, written only
// when there are some, a file without them as valid as before, validated whole on reading.
//
// A run's environment (core/environment.hpp) is "environment": {"driver": "580.159.04", "lib.cublas": ...}
// (strings), and a result's code identity "code": {"fingerprint": "sass:...", "launch": "grid=..."}: optional
// on the same terms, so files without them stay valid and version 1 stays.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "db/answers.hpp"

namespace gpuperf::db {

inline constexpr const char* kInterchangeFormat = "gpuperf-results";
inline constexpr int kInterchangeVersion = 1;

// The longest strings a gpuperf-results file may hold, runs and answers alike (import refuses a longer one with
// its JSON path): a name (commit, branch, label, machine fields, params, metric, unit), a benchmark (a recorded
// kernel's demangled name: C++ templates reach kilobytes) and any other text (a message, a command line, a
// reason, a note). A 30 MB label would make `runs` print 420 MB.
inline constexpr std::size_t kMaxNameBytes = 1024, kMaxBenchmarkBytes = 16384, kMaxTextBytes = 65536;

struct InterchangeDocument {
  std::vector<Run> runs;
  Answers answers;
};

// Parses a whole document. `source` prefixes every error ("runs.json", "<stdin>"). Throws InputError.
InterchangeDocument parse_interchange_document(const std::string& text, const std::string& source);
std::vector<Run> parse_interchange(const std::string& text, const std::string& source);  // its runs

// Reads and parses a file; "-" reads standard input. Throws InputError (unreadable files included).
InterchangeDocument read_interchange_document(const std::string& path);
std::vector<Run> read_interchange_file(const std::string& path);  // its runs

// One run as the JSON object the format holds (compact, one line).
std::string run_to_interchange(const Run& run);

// Writes a document incrementally: the header at construction, one run per add(), the end at finish().
// Memory stays at one run, whatever the number of runs.
class InterchangeWriter {
 public:
  explicit InterchangeWriter(std::ostream& out);
  void add(const Run& run);
  // Ends the document, with `answers` after the runs when there are some.
  void finish(const Answers& answers = {});
  std::size_t count() const { return count_; }

 private:
  std::ostream& out_;
  std::size_t count_ = 0;
  bool finished_ = false;
};

// The whole document for `runs`, as InterchangeWriter writes it.
std::string to_interchange(const std::vector<Run>& runs);

}  // namespace gpuperf::db
