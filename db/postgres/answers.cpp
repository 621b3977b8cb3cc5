// The PostgreSQL engine: a team's answers (db/answers.hpp), in the tables of migration 7 ("answers"). Writes
// take the write lock as a run's do; a role without INSERT on these tables (the reader) is refused before
// (db::check_can_answer, missing_answer_privileges).
#include "db/answers_sql.hpp"
#include "db/postgres/engine.hpp"

namespace gpuperf::db::pg {
namespace {

using answers_sql::kAnswersVersion;
using answers_sql::kSelectAcks;
using answers_sql::kSelectNotes;

std::optional<std::int64_t> optional_id(const Result& r, int row, int col) {
  return r.is_null(row, col) ? std::nullopt : std::optional<std::int64_t>(r.int64(row, col));
}

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

bool PgEngine::add_acknowledgement(const Acknowledgement& a) {
  Transaction tx(conn_);
  begin_write(tx);
  Result r = conn_.exec(
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
  tx.commit();
  return r.rows() > 0;
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

std::vector<Acknowledgement> PgEngine::acknowledgements() const {
  std::vector<Acknowledgement> out;
  if (readable_version_ < kAnswersVersion) return out;
  Result r = conn_.exec(kSelectAcks, {}, "reading acknowledgements");
  for (int i = 0; i < r.rows(); ++i) {
    Acknowledgement a;
    a.id = r.int64(i, 0);
    a.uuid = r.text(i, 1);
    a.machine_id = r.int64(i, 2);
    a.fingerprint = r.text(i, 3);
    a.benchmark_id = r.int64(i, 4);
    a.instance = BenchmarkInstance{r.text(i, 5), params_from_json(r.text(i, 6))};
    a.metric = r.text(i, 7);
    a.run_id = r.int64(i, 8);
    a.run_uuid = r.text(i, 9);
    a.commit = r.text(i, 10);
    a.reason = r.text(i, 11);
    a.link = r.text(i, 12);
    a.by = r.text(i, 13);
    a.at = r.text(i, 14);
    a.accepted = r.boolean(i, 15);
    a.undone = r.boolean(i, 16);
    a.undone_by = r.text(i, 17);
    a.undone_at = r.text(i, 18);
    out.push_back(std::move(a));
  }
  return out;
}

bool PgEngine::add_annotation(const Annotation& n) {
  Transaction tx(conn_);
  begin_write(tx);
  Result r = conn_.exec(
      "INSERT INTO annotation(uuid, run_id, commit_sha, machine_id, night, text, noted_by, noted_at) "
      "VALUES($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT(uuid) DO NOTHING RETURNING id",
      Params().add(n.uuid).add(n.run_id).add(n.commit).add(n.machine_id).add(n.night).add(n.text).add(n.by).add(n.at),
      "storing an annotation");
  tx.commit();
  return r.rows() > 0;
}

std::vector<Annotation> PgEngine::annotations() const {
  std::vector<Annotation> out;
  if (readable_version_ < kAnswersVersion) return out;
  Result r = conn_.exec(kSelectNotes, {}, "reading annotations");
  for (int i = 0; i < r.rows(); ++i) {
    Annotation n;
    n.id = r.int64(i, 0);
    n.uuid = r.text(i, 1);
    n.run_id = optional_id(r, i, 2);
    n.run_uuid = r.text(i, 3);
    n.commit = r.text(i, 4);
    n.machine_id = optional_id(r, i, 5);
    n.fingerprint = r.text(i, 6);
    n.night = r.text(i, 7);
    n.text = r.text(i, 8);
    n.by = r.text(i, 9);
    n.at = r.text(i, 10);
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace gpuperf::db::pg
