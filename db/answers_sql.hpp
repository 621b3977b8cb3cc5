// The reads of a team's answers, in the SQL both engines understand (db/sqlite/answers.cpp,
// db/postgres/answers.cpp read their rows in this column order). Not a public header.
#pragma once

namespace gpuperf::db::answers_sql {

inline constexpr int kAnswersVersion = 7;  // the migration that made the answers' tables

// id, uuid, machine_id, fingerprint, benchmark_id, name, params_json, metric, run_id, run uuid, commit, reason,
// link, by, at, accepted, undone, undone_by, undone_at; in id order.
inline constexpr const char* kSelectAcks =
    "SELECT a.id, a.uuid, a.machine_id, m.fingerprint, a.benchmark_id, b.name, b.params_json, mt.name, a.run_id, "
    "r.uuid, r.commit_sha, a.reason, a.link, a.acked_by, a.acked_at, a.accepted, u.ack_id IS NOT NULL, "
    "coalesce(u.undone_by, ''), coalesce(u.undone_at, '') FROM acknowledgement a "
    "JOIN machine m ON m.id = a.machine_id JOIN benchmark b ON b.id = a.benchmark_id "
    "JOIN metric mt ON mt.id = a.metric_id JOIN run r ON r.id = a.run_id "
    "LEFT JOIN acknowledgement_undo u ON u.ack_id = a.id ORDER BY a.id";

// id, uuid, run_id, run uuid, commit, machine_id, fingerprint, night, text, by, at; in id order.
inline constexpr const char* kSelectNotes =
    "SELECT n.id, n.uuid, n.run_id, coalesce(r.uuid, ''), n.commit_sha, n.machine_id, coalesce(m.fingerprint, ''), "
    "n.night, n.text, n.noted_by, n.noted_at FROM annotation n LEFT JOIN run r ON r.id = n.run_id "
    "LEFT JOIN machine m ON m.id = n.machine_id ORDER BY n.id";

}  // namespace gpuperf::db::answers_sql
