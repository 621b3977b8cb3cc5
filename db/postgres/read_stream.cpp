// The PostgreSQL engine's streamed read of many whole runs (export): the runs' rows as load_run reads them,
// and their samples, the bulk of a history (about 60 million rows after a year of 16 runners' nights), by
// binary COPY, many runs to one COPY, decoded as they arrive (db/postgres/copy_binary.hpp) and handed on a
// batch of runs at a time. load_run instead reads each result's samples as one array; for a whole history
// that meant one query and one array result per run, all built on the server before the first byte came
// back (issue 42: export 2.1x SQLite's).
#include <string>
#include <vector>

#include "db/postgres/copy_binary.hpp"
#include "db/postgres/engine.hpp"

namespace gpuperf::db::pg {
namespace {

// Results whose samples one COPY streams: with a suite run's ~230 results and ~10,000 samples, about 17 runs
// and 170,000 rows; the batch of runs waiting for their samples is then a few MB, whatever the history's size.
constexpr std::size_t kResultsPerCopy = 4000;

// Per result id in the array, in the array's order, its samples in measurement order: the outer unnest is
// the nested loop's outer side, so its order is the output's, and the inner subquery (never pulled up: it
// has an ORDER BY) is one range of sample's primary key per result, whatever the table's statistics say
// (the plan read.cpp's samples_of explains). COPY takes no parameters, so the ids are an array literal;
// they are integers read from the database, nothing a user typed.
std::string copy_samples_sql(const std::vector<std::int64_t>& result_ids) {
  return "COPY (SELECT q.id, s.value, s.sm_clock_mhz FROM unnest('" + array_literal(result_ids) +
         "'::bigint[]) AS q(id) CROSS JOIN LATERAL (SELECT s.value, s.sm_clock_mhz FROM sample s "
         "WHERE s.result_id = q.id ORDER BY s.idx) s) TO STDOUT (FORMAT binary)";
}

}  // namespace

void PgEngine::load_runs(const std::vector<std::int64_t>& run_ids, const std::function<void(Run&&)>& each) const {
  struct Slot {
    std::size_t run;  // index in the batch
    ResultSlot result;
  };
  std::vector<Run> batch;
  std::vector<Slot> slots;
  std::vector<ResultSlot> of_run;
  std::vector<std::int64_t> ids;
  std::vector<CopyField> fields;
  for (std::size_t at = 0; at < run_ids.size();) {
    batch.clear();
    slots.clear();
    // One snapshot a batch: a prune or a run stored meanwhile shows in the runs' rows and their samples
    // alike, or in neither.
    Transaction tx(conn_, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    while (at < run_ids.size() && (batch.empty() || slots.size() < kResultsPerCopy)) {
      batch.push_back(read_run(run_ids[at], of_run));
      for (const ResultSlot& x : of_run) slots.push_back(Slot{batch.size() - 1, x});
      ++at;
    }
    if (!slots.empty()) {
      ids.clear();
      for (const Slot& x : slots) ids.push_back(x.result.result_id);
      // Rows come grouped by result in the array's order; `k` follows them. A result without samples (a
      // pruned one) sends no rows and is passed over.
      std::size_t k = 0;
      CopyBinaryDecoder decoder;
      conn_.copy_out(
          copy_samples_sql(ids),
          [&](std::string_view piece) {
            decoder.feed(piece);
            while (decoder.next(fields)) {
              if (fields.size() != 3) {
                throw CopyFormatError("a sample row of " + std::to_string(fields.size()) + " fields, not 3");
              }
              const std::int64_t id = fields[0].int8();
              while (k < slots.size() && slots[k].result.result_id != id) ++k;
              if (k == slots.size()) {
                throw CopyFormatError("samples of result " + std::to_string(id) +
                                      " arrived out of the order they were asked in");
              }
              const Slot& x = slots[k];
              Measurement& m = batch[x.run].results[x.result.instance].metrics[x.result.metric];
              m.samples.push_back(fields[1].float8());
              if (!fields[2].is_null()) m.sm_clock_mhz.push_back(fields[2].float8());
            }
          },
          "exporting runs' samples");
      decoder.finish();
    }
    tx.commit();
    for (Run& run : batch) each(std::move(run));
  }
}

}  // namespace gpuperf::db::pg
