#include "db/postgres/source_lines.hpp"

#include <utility>
#include <vector>

#include "db/source_lines.hpp"

namespace gpuperf::db::pg {

const char* const kSourceLinesMigration = R"sql(
CREATE TABLE outcome_source(
  run_id       bigint NOT NULL,
  benchmark_id bigint NOT NULL,
  status       text COLLATE "C" NOT NULL CHECK(status IN ('ok','incorrect','failed','unsupported','skipped')),
  message      text COLLATE "C" NOT NULL DEFAULT '',
  launches     bigint NOT NULL DEFAULT 0,
  lines_total  bigint NOT NULL DEFAULT 0,
  PRIMARY KEY(run_id, benchmark_id),
  FOREIGN KEY(run_id, benchmark_id) REFERENCES outcome(run_id, benchmark_id) ON DELETE CASCADE
);

CREATE TABLE source_line(
  run_id       bigint NOT NULL,
  benchmark_id bigint NOT NULL,
  idx          integer NOT NULL,
  file         text COLLATE "C" NOT NULL DEFAULT '',
  line         bigint NOT NULL DEFAULT 0,
  function     text COLLATE "C" NOT NULL DEFAULT '',
  sass_offset  bigint NOT NULL DEFAULT -1,
  text         text COLLATE "C" NOT NULL DEFAULT '',
  inst_executed double precision NOT NULL, thread_inst_executed double precision NOT NULL,
  global_ld_requests double precision NOT NULL, global_st_requests double precision NOT NULL,
  global_ld_sectors double precision NOT NULL, global_ld_sectors_ideal double precision NOT NULL,
  global_st_sectors double precision NOT NULL, global_st_sectors_ideal double precision NOT NULL,
  shared_wavefronts double precision NOT NULL, shared_wavefronts_ideal double precision NOT NULL,
  local_sectors double precision NOT NULL,
  PRIMARY KEY(run_id, benchmark_id, idx),
  FOREIGN KEY(run_id, benchmark_id) REFERENCES outcome_source(run_id, benchmark_id) ON DELETE CASCADE
);
)sql";

namespace {

std::string counter_columns() {
  std::string out;
  for (const LineCounter& c : kLineCounters) out += std::string(", ") + c.name;
  return out;
}

}  // namespace

void SourceLineRows::add(std::int64_t run_id, std::int64_t benchmark_id, const SourceLines& source) {
  if (!has_source_lines(source)) return;
  const SourceLines kept = bound_source_lines(source);
  const std::string key = std::to_string(run_id) + '\t' + std::to_string(benchmark_id) + '\t';
  heads_ += key + to_string(kept.status) + '\t';
  copy_text_field(heads_, kept.message);
  heads_ += '\t' + std::to_string(kept.launches) + '\t' + std::to_string(kept.lines_total) + '\n';
  for (std::size_t i = 0; i < kept.lines.size(); ++i) {
    const SourceLine& l = kept.lines[i];
    lines_ += key + std::to_string(i) + '\t';
    copy_text_field(lines_, l.file);
    lines_ += '\t' + std::to_string(l.line) + '\t';
    copy_text_field(lines_, l.function);
    lines_ += '\t' + std::to_string(l.sass_offset) + '\t';
    copy_text_field(lines_, l.text);
    for (const LineCounter& c : kLineCounters) lines_ += '\t' + round_trip(l.*c.member);
    lines_ += '\t';
    copy_text_field(lines_, l.inlined_at_file);
    lines_ += '\t' + std::to_string(l.inlined_at_line) + '\n';
  }
}

void SourceLineRows::flush(const Connection& c) {
  if (!heads_.empty()) {
    c.copy_in("COPY outcome_source(run_id, benchmark_id, status, message, launches, lines_total) FROM STDIN", heads_,
              "storing runs");
  }
  if (!lines_.empty()) {
    c.copy_in("COPY source_line(run_id, benchmark_id, idx, file, line, function, sass_offset, text" +
                  counter_columns() + ", inlined_at_file, inlined_at_line) FROM STDIN",
              lines_, "storing runs");
  }
  heads_.clear();
  lines_.clear();
}

namespace {

// The run's stored lines with their benchmark ids, in (benchmark, collector's) order; only those with text
// where `with_text_only`.
std::vector<std::pair<std::int64_t, SourceLine>> select_lines(const Connection& c, std::int64_t run_id,
                                                              bool with_text_only) {
  // A database from before migration 6 opened read-only has no call-site columns.
  const bool sites = c.exec(
                          "SELECT count(*) > 0 FROM pg_attribute WHERE attrelid = to_regclass('source_line') "
                          "AND attname = 'inlined_at_file' AND NOT attisdropped",
                          {}, "reading a run")
                         .boolean(0, 0);
  Result r =
      c.exec("SELECT benchmark_id, file, line, function, sass_offset, text" + counter_columns() +
                 (sites ? ", inlined_at_file, inlined_at_line" : ", '', 0") + " FROM source_line WHERE run_id = $1" +
                 (with_text_only ? " AND text <> ''" : "") + " ORDER BY benchmark_id, idx",
             Params().add(run_id), "reading a run's source lines");
  std::vector<std::pair<std::int64_t, SourceLine>> out;
  for (int i = 0; i < r.rows(); ++i) {
    SourceLine l;
    l.file = r.text(i, 1);
    l.line = r.int64(i, 2);
    l.function = r.text(i, 3);
    l.sass_offset = r.int64(i, 4);
    l.text = r.text(i, 5);
    for (std::size_t k = 0; k < kLineCounterCount; ++k) l.*kLineCounters[k].member = r.real(i, static_cast<int>(6 + k));
    l.inlined_at_file = r.text(i, static_cast<int>(6 + kLineCounterCount));
    l.inlined_at_line = r.int64(i, static_cast<int>(7 + kLineCounterCount));
    out.emplace_back(r.int64(i, 0), std::move(l));
  }
  return out;
}

}  // namespace

void read_source_lines(const Connection& c, std::int64_t run_id,
                       const std::unordered_map<std::int64_t, std::size_t>& result_of_benchmark, Run& run) {
  if (!c.exec("SELECT to_regclass('outcome_source') IS NOT NULL", {}, "reading a run").boolean(0, 0)) return;
  {
    Result r =
        c.exec("SELECT benchmark_id, status, message, launches, lines_total FROM outcome_source WHERE run_id = $1",
               Params().add(run_id), "reading a run's source lines");
    for (int i = 0; i < r.rows(); ++i) {
      auto it = result_of_benchmark.find(r.int64(i, 0));
      if (it == result_of_benchmark.end()) continue;  // the outcome's foreign key makes this impossible
      SourceLines& src = run.results[it->second].source;
      src.status = status_from_string(r.text(i, 1));
      src.message = r.text(i, 2);
      src.launches = r.int64(i, 3);
      src.lines_total = r.int64(i, 4);
    }
  }
  for (auto& [benchmark_id, line] : select_lines(c, run_id, false)) {
    auto it = result_of_benchmark.find(benchmark_id);
    if (it != result_of_benchmark.end()) run.results[it->second].source.lines.push_back(std::move(line));
  }
}

std::vector<SourceLine> read_lines_with_text(const Connection& c, std::int64_t run_id) {
  if (!c.exec("SELECT to_regclass('source_line') IS NOT NULL", {}, "reading a run").boolean(0, 0)) return {};
  std::vector<SourceLine> out;
  for (auto& row : select_lines(c, run_id, true)) out.push_back(std::move(row.second));
  return out;
}

}  // namespace gpuperf::db::pg
