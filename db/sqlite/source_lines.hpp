// The SQLite engine's source lines (schema migration 3): writing a result's bounded lines, reading a run's.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "core/result.hpp"
#include "db/sqlite/connection.hpp"

namespace gpuperf::db {

// The statements of one write batch, prepared once.
class SourceLineWriter {
 public:
  explicit SourceLineWriter(Connection& c);
  // Stores `result.source` under the outcome (run_id, benchmark_id), bounded (db/source_lines.hpp); nothing
  // for a result whose pass did not run.
  void write(std::int64_t run_id, std::int64_t benchmark_id, const SourceLines& source);

 private:
  Statement head_;
  Statement line_;
};

// Fills run.results[i].source for the run's outcomes, `result_of_benchmark` mapping a benchmark id to i.
// A version-2 database opened read-only has no source tables: its results keep the default (skipped).
void read_source_lines(const Connection& c, std::int64_t run_id,
                       const std::map<std::int64_t, std::size_t>& result_of_benchmark, Run& run);
// Engine::lines_with_text.
std::vector<SourceLine> read_lines_with_text(const Connection& c, std::int64_t run_id);

}  // namespace gpuperf::db
