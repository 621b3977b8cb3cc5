// The SQLite engine: a team's answers (db/answers.hpp), in the tables of migration 7 ("answers").
#include "db/answers_sql.hpp"
#include "db/sqlite/engine.hpp"

namespace gpuperf::db {
namespace {

using answers_sql::kAnswersVersion;
using answers_sql::kSelectAcks;
using answers_sql::kSelectNotes;

std::optional<std::int64_t> optional_id(const Statement& s, int col) {
  return s.is_null(col) ? std::nullopt : std::optional<std::int64_t>(s.int64(col));
}

}  // namespace

bool SqliteEngine::add_acknowledgement(const Acknowledgement& a) {
  Transaction tx(conn_);
  Statement s(conn_,
              "INSERT INTO acknowledgement(uuid, machine_id, benchmark_id, metric_id, run_id, reason, link, acked_by, "
              "acked_at, accepted) SELECT ?1, ?2, ?3, mt.id, ?5, ?6, ?7, ?8, ?9, ?10 FROM metric mt WHERE mt.name = ?4 "
              "ON CONFLICT(uuid) DO NOTHING");
  s.bind_all(a.uuid, a.machine_id, a.benchmark_id, a.metric, a.run_id, a.reason, a.link, a.by, a.at, a.accepted).run();
  const bool added = conn_.changes() > 0;
  tx.commit();
  return added;
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

std::vector<Acknowledgement> SqliteEngine::acknowledgements() const {
  std::vector<Acknowledgement> out;
  if (readable_version_ < kAnswersVersion) return out;
  Statement s(conn_, kSelectAcks);
  while (s.step()) {
    Acknowledgement a;
    a.id = s.int64(0);
    a.uuid = s.text(1);
    a.machine_id = s.int64(2);
    a.fingerprint = s.text(3);
    a.benchmark_id = s.int64(4);
    a.instance = BenchmarkInstance{s.text(5), params_from_json(s.text(6))};
    a.metric = s.text(7);
    a.run_id = s.int64(8);
    a.run_uuid = s.text(9);
    a.commit = s.text(10);
    a.reason = s.text(11);
    a.link = s.text(12);
    a.by = s.text(13);
    a.at = s.text(14);
    a.accepted = s.int64(15) != 0;
    a.undone = s.int64(16) != 0;
    a.undone_by = s.text(17);
    a.undone_at = s.text(18);
    out.push_back(std::move(a));
  }
  return out;
}

bool SqliteEngine::add_annotation(const Annotation& n) {
  Transaction tx(conn_);
  Statement s(conn_,
              "INSERT INTO annotation(uuid, run_id, commit_sha, machine_id, night, text, noted_by, noted_at) "
              "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT(uuid) DO NOTHING");
  s.bind(1, n.uuid);
  if (n.run_id) s.bind(2, *n.run_id);
  s.bind(3, n.commit);
  if (n.machine_id) s.bind(4, *n.machine_id);
  s.bind(5, n.night).bind(6, n.text).bind(7, n.by).bind(8, n.at).run();
  const bool added = conn_.changes() > 0;
  tx.commit();
  return added;
}

std::vector<Annotation> SqliteEngine::annotations() const {
  std::vector<Annotation> out;
  if (readable_version_ < kAnswersVersion) return out;
  Statement s(conn_, kSelectNotes);
  while (s.step()) {
    Annotation n;
    n.id = s.int64(0);
    n.uuid = s.text(1);
    n.run_id = optional_id(s, 2);
    n.run_uuid = s.text(3);
    n.commit = s.text(4);
    n.machine_id = optional_id(s, 5);
    n.fingerprint = s.text(6);
    n.night = s.text(7);
    n.text = s.text(8);
    n.by = s.text(9);
    n.at = s.text(10);
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace gpuperf::db
