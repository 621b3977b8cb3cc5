// The SQLite engine: a team's answers (db/answers.hpp), in the tables of migration 7 ("answers").
#include "db/answers_sql.hpp"
#include "db/sqlite/engine.hpp"

namespace gpuperf::db {
namespace {

using answers_sql::kAnswersVersion;
using answers_sql::kSelectNotes;

// The statement's current row as answers_sql reads it.
struct Row {
  const Statement& s;
  std::int64_t int64(int col) const { return s.int64(col); }
  std::string text(int col) const { return s.text(col); }
  bool is_null(int col) const { return s.is_null(col); }
  bool flag(int col) const { return s.int64(col) != 0; }
};

// Runs an answer's INSERT ... ON CONFLICT(uuid) DO NOTHING, its values bound by `bind`, in its own
// transaction: whether it added the row.
template <class Bind>
bool insert_answer(Connection& conn, const char* sql, Bind bind) {
  Transaction tx(conn);
  Statement s(conn, sql);
  bind(s);
  s.run();
  const bool added = conn.changes() > 0;
  tx.commit();
  return added;
}

}  // namespace

bool SqliteEngine::add_acknowledgement(const Acknowledgement& a) {
  return insert_answer(
      conn_,
      "INSERT INTO acknowledgement(uuid, machine_id, benchmark_id, metric_id, run_id, reason, link, acked_by, "
      "acked_at, accepted) SELECT ?1, ?2, ?3, mt.id, ?5, ?6, ?7, ?8, ?9, ?10 FROM metric mt WHERE mt.name = ?4 "
      "ON CONFLICT(uuid) DO NOTHING",
      [&](Statement& s) {
        s.bind_all(a.uuid, a.machine_id, a.benchmark_id, a.metric, a.run_id, a.reason, a.link, a.by, a.at, a.accepted);
      });
}

int SqliteEngine::undo_acknowledgement(std::int64_t id, const std::string& by, const std::string& at) {
  Transaction tx(conn_);
  Statement found(conn_, "SELECT count(*) FROM acknowledgement WHERE id = ?1");
  found.bind(1, id);
  if (!found.step() || found.int64(0) == 0) return 2;
  Statement s(conn_,
              "INSERT INTO acknowledgement_undo(ack_id, undone_by, undone_at) VALUES(?1, ?2, ?3) "
              "ON CONFLICT(ack_id) DO NOTHING");
  s.bind_all(id, by, at).run();
  const int r = conn_.changes() > 0 ? 0 : 1;
  tx.commit();
  return r;
}

std::vector<Acknowledgement> SqliteEngine::acknowledgements(const AckFilter& filter) const {
  std::vector<Acknowledgement> out;
  if (readable_version_ < kAnswersVersion) return out;
  Statement s(conn_, answers_sql::select_acks(filter));
  while (s.step()) out.push_back(answers_sql::acknowledgement_from(Row{s}));
  return out;
}

bool SqliteEngine::add_annotation(const Annotation& n) {
  return insert_answer(conn_,
                       "INSERT INTO annotation(uuid, run_id, commit_sha, machine_id, night, text, noted_by, noted_at) "
                       "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT(uuid) DO NOTHING",
                       [&](Statement& s) {
                         s.bind(1, n.uuid);
                         if (n.run_id) s.bind(2, *n.run_id);
                         s.bind(3, n.commit);
                         if (n.machine_id) s.bind(4, *n.machine_id);
                         s.bind(5, n.night).bind(6, n.text).bind(7, n.by).bind(8, n.at);
                       });
}

std::vector<Annotation> SqliteEngine::annotations() const {
  std::vector<Annotation> out;
  if (readable_version_ < kAnswersVersion) return out;
  Statement s(conn_, kSelectNotes);
  while (s.step()) out.push_back(answers_sql::annotation_from(Row{s}));
  return out;
}

}  // namespace gpuperf::db
