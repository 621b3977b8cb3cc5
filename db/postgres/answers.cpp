// The PostgreSQL engine: a team's answers (db/answers.hpp), in the tables of migration 7 ("answers"). Writes
// take the write lock as a run's do; a role without INSERT on these tables (the reader) is refused before
// (db::check_can_answer, missing_answer_privileges).
#include "db/answers_sql.hpp"
#include "db/postgres/engine.hpp"

namespace gpuperf::db::pg {
namespace {

using answers_sql::kAnswersVersion;
using answers_sql::kSelectNotes;

// Row `row` of a result as answers_sql reads it.
struct Row {
  const Result& r;
  int row;
  std::int64_t int64(int col) const { return r.int64(row, col); }
  std::string text(int col) const { return r.text(row, col); }
  bool is_null(int col) const { return r.is_null(row, col); }
  bool flag(int col) const { return r.boolean(row, col); }
};

}  // namespace

std::string PgEngine::missing_answer_privileges() const {
  if (readable_version_ < kAnswersVersion) return {};  // the open refuses or migrates first
  Result r = conn_.exec(
      "SELECT t FROM unnest(ARRAY['acknowledgement', 'acknowledgement_undo', 'annotation']) AS t "
      "WHERE NOT has_table_privilege(t, 'INSERT') ORDER BY t",
      {}, "checking the role's privileges");
  std::string missing;
  for (int i = 0; i < r.rows(); ++i) missing += (missing.empty() ? "INSERT on table " : ", table ") + r.text(i, 0);
  return missing;
}

bool PgEngine::insert_answer(const char* sql, const Params& params, const char* what) {
  Transaction tx(conn_);
  begin_write(tx);
  const bool added = conn_.exec(sql, params, what).rows() > 0;
  tx.commit();
  return added;
}

bool PgEngine::add_acknowledgement(const Acknowledgement& a) {
  return insert_answer(
      "INSERT INTO acknowledgement(uuid, machine_id, benchmark_id, metric_id, run_id, reason, link, acked_by, "
      "acked_at, accepted) SELECT $1, $2, $3, mt.id, $5, $6, $7, $8, $9, $10 FROM metric mt WHERE mt.name = $4 "
      "ON CONFLICT(uuid) DO NOTHING RETURNING id",
      Params()
          .add(a.uuid)
          .add(a.machine_id)
          .add(a.benchmark_id)
          .add(a.metric)
          .add(a.run_id)
          .add(a.reason)
          .add(a.link)
          .add(a.by)
          .add(a.at)
          .add(a.accepted),
      "storing an acknowledgement");
}

int PgEngine::undo_acknowledgement(std::int64_t id, const std::string& by, const std::string& at) {
  Transaction tx(conn_);
  begin_write(tx);
  if (conn_.exec("SELECT 1 FROM acknowledgement WHERE id = $1", Params().add(id), "finding an acknowledgement")
          .rows() == 0) {
    return 2;
  }
  Result r = conn_.exec(
      "INSERT INTO acknowledgement_undo(ack_id, undone_by, undone_at) VALUES($1, $2, $3) "
      "ON CONFLICT(ack_id) DO NOTHING RETURNING ack_id",
      Params().add(id).add(by).add(at), "undoing an acknowledgement");
  tx.commit();
  return r.rows() > 0 ? 0 : 1;
}

std::vector<Acknowledgement> PgEngine::acknowledgements(const AckFilter& filter) const {
  std::vector<Acknowledgement> out;
  if (readable_version_ < kAnswersVersion) return out;
  Result r = conn_.exec(answers_sql::select_acks(filter), {}, "reading acknowledgements");
  for (int i = 0; i < r.rows(); ++i) out.push_back(answers_sql::acknowledgement_from(Row{r, i}));
  return out;
}

bool PgEngine::add_annotation(const Annotation& n) {
  return insert_answer(
      "INSERT INTO annotation(uuid, run_id, commit_sha, machine_id, night, text, noted_by, noted_at) "
      "VALUES($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT(uuid) DO NOTHING RETURNING id",
      Params().add(n.uuid).add(n.run_id).add(n.commit).add(n.machine_id).add(n.night).add(n.text).add(n.by).add(n.at),
      "storing an annotation");
}

std::vector<Annotation> PgEngine::annotations() const {
  std::vector<Annotation> out;
  if (readable_version_ < kAnswersVersion) return out;
  Result r = conn_.exec(kSelectNotes, {}, "reading annotations");
  for (int i = 0; i < r.rows(); ++i) out.push_back(answers_sql::annotation_from(Row{r, i}));
  return out;
}

}  // namespace gpuperf::db::pg
