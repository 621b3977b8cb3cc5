#include "db/sqlite/source_lines.hpp"

#include <string>
#include <utility>
#include <vector>

#include "db/source_lines.hpp"

namespace gpuperf::db {
namespace {

// "inst_executed, thread_inst_executed, ..." and "?9, ?10, ..." for the counters after the 8 key columns.
std::string counter_columns(const char* prefix) {
  std::string out;
  for (const LineCounter& c : kLineCounters) out += std::string(", ") + prefix + c.name;
  return out;
}

// The inlined call site's columns come after the counters.
constexpr int kSiteColumn = static_cast<int>(9 + kLineCounterCount);

std::string insert_line_sql() {
  std::string values;
  for (std::size_t i = 0; i < kLineCounterCount + 2; ++i) values += ", ?" + std::to_string(9 + i);
  return "INSERT INTO source_line(run_id, benchmark_id, idx, file, line, function, sass_offset, text" +
         counter_columns("") + ", inlined_at_file, inlined_at_line) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8" + values +
         ")";
}

// The run's stored lines with their benchmark ids, in (benchmark, collector's) order; only those with text
// where `with_text_only`.
std::vector<std::pair<std::int64_t, SourceLine>> select_lines(const Connection& c, std::int64_t run_id,
                                                              bool with_text_only) {
  // A file from before migration 6 opened read-only has no call-site columns.
  const bool sites =
      query_int(c, "SELECT count(*) FROM pragma_table_info('source_line') WHERE name = 'inlined_at_file'") > 0;
  Statement s(c, "SELECT benchmark_id, file, line, function, sass_offset, text" + counter_columns("") +
                     (sites ? ", inlined_at_file, inlined_at_line" : ", '', 0") +
                     " FROM source_line WHERE run_id = ?1" + (with_text_only ? " AND text <> ''" : "") +
                     " ORDER BY benchmark_id, idx");
  s.bind(1, run_id);
  std::vector<std::pair<std::int64_t, SourceLine>> out;
  while (s.step()) {
    SourceLine l;
    l.file = s.text(1);
    l.line = s.int64(2);
    l.function = s.text(3);
    l.sass_offset = s.int64(4);
    l.text = s.text(5);
    for (std::size_t k = 0; k < kLineCounterCount; ++k) l.*kLineCounters[k].member = s.real(static_cast<int>(6 + k));
    l.inlined_at_file = s.text(static_cast<int>(6 + kLineCounterCount));
    l.inlined_at_line = s.int64(static_cast<int>(7 + kLineCounterCount));
    out.emplace_back(s.int64(0), std::move(l));
  }
  return out;
}

}  // namespace

SourceLineWriter::SourceLineWriter(Connection& c)
    : head_(c,
            "INSERT INTO outcome_source(run_id, benchmark_id, status, message, launches, lines_total) "
            "VALUES(?1, ?2, ?3, ?4, ?5, ?6)"),
      line_(c, insert_line_sql()) {}

void SourceLineWriter::write(std::int64_t run_id, std::int64_t benchmark_id, const SourceLines& source) {
  if (!has_source_lines(source)) return;
  const SourceLines kept = bound_source_lines(source);
  head_.bind_all(run_id, benchmark_id, to_string(kept.status), kept.message, kept.launches, kept.lines_total).run();
  for (std::size_t i = 0; i < kept.lines.size(); ++i) {
    const SourceLine& l = kept.lines[i];
    line_.bind_all(run_id, benchmark_id, i, l.file, l.line, l.function, l.sass_offset, l.text);
    for (std::size_t k = 0; k < kLineCounterCount; ++k) line_.bind(static_cast<int>(9 + k), l.*kLineCounters[k].member);
    line_.bind(kSiteColumn, l.inlined_at_file);
    line_.bind(kSiteColumn + 1, l.inlined_at_line);
    line_.run();
  }
}

void read_source_lines(const Connection& c, std::int64_t run_id,
                       const std::map<std::int64_t, std::size_t>& result_of_benchmark, Run& run) {
  if (query_int(c, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'outcome_source'") == 0) return;
  {
    Statement s(c, "SELECT benchmark_id, status, message, launches, lines_total FROM outcome_source WHERE run_id = ?1");
    s.bind(1, run_id);
    while (s.step()) {
      auto it = result_of_benchmark.find(s.int64(0));
      if (it == result_of_benchmark.end()) continue;  // the outcome's foreign key makes this impossible
      SourceLines& src = run.results[it->second].source;
      src.status = status_from_string(s.text(1));
      src.message = s.text(2);
      src.launches = s.int64(3);
      src.lines_total = s.int64(4);
    }
  }
  for (auto& [benchmark_id, line] : select_lines(c, run_id, false)) {
    auto it = result_of_benchmark.find(benchmark_id);
    if (it != result_of_benchmark.end()) run.results[it->second].source.lines.push_back(std::move(line));
  }
}

std::vector<SourceLine> read_lines_with_text(const Connection& c, std::int64_t run_id) {
  if (query_int(c, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'source_line'") == 0) return {};
  std::vector<SourceLine> out;
  for (auto& row : select_lines(c, run_id, true)) out.push_back(std::move(row.second));
  return out;
}

}  // namespace gpuperf::db
