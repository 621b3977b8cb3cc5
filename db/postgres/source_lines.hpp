// The PostgreSQL engine's source lines (schema migration 3, as db/sqlite/schema.cpp describes it): a write
// batch gathers the rows for COPY beside its outcomes; a run's lines are read back in two queries.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/result.hpp"
#include "db/postgres/connection.hpp"

namespace gpuperf::db::pg {

// Migration 3's statements.
extern const char* const kSourceLinesMigration;

class SourceLineRows {
 public:
  // Gathers `source`, bounded (db/source_lines.hpp), under the outcome (run_id, benchmark_id); nothing for a
  // result whose pass did not run.
  void add(std::int64_t run_id, std::int64_t benchmark_id, const SourceLines& source);
  // Sends what was gathered; call after the outcomes are sent (the rows' foreign key).
  void flush(const Connection& c);
  std::size_t bytes() const { return heads_.size() + lines_.size(); }

 private:
  std::string heads_, lines_;  // COPY text format
};

// Fills run.results[i].source for the run's outcomes, `result_of_benchmark` mapping a benchmark id to i.
// A database at schema 2 (read only) has no source tables: its results keep the default (skipped).
void read_source_lines(const Connection& c, std::int64_t run_id,
                       const std::unordered_map<std::int64_t, std::size_t>& result_of_benchmark, Run& run);
// Engine::lines_with_text.
std::vector<SourceLine> read_lines_with_text(const Connection& c, std::int64_t run_id);

}  // namespace gpuperf::db::pg
