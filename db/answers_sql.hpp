// The reads of a team's answers, in the SQL both engines understand, and the rows they give read once for both
// (db/sqlite/answers.cpp, db/postgres/answers.cpp). Not a public header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "core/result.hpp"
#include "db/answers.hpp"

namespace gpuperf::db::answers_sql {

inline constexpr int kAnswersVersion = 7;  // the migration that made the answers' tables

// id, uuid, machine_id, fingerprint, benchmark_id, name, params_json, metric, run_id, run uuid, commit, reason,
// link, by, at, accepted, undone, undone_by, undone_at; select_acks adds the filter and the order (id).
inline constexpr const char* kSelectAcksFrom =
    "SELECT a.id, a.uuid, a.machine_id, m.fingerprint, a.benchmark_id, b.name, b.params_json, mt.name, a.run_id, "
    "r.uuid, r.commit_sha, a.reason, a.link, a.acked_by, a.acked_at, a.accepted, u.ack_id IS NOT NULL, "
    "coalesce(u.undone_by, ''), coalesce(u.undone_at, '') FROM acknowledgement a "
    "JOIN machine m ON m.id = a.machine_id JOIN benchmark b ON b.id = a.benchmark_id "
    "JOIN metric mt ON mt.id = a.metric_id JOIN run r ON r.id = a.run_id "
    "LEFT JOIN acknowledgement_undo u ON u.ack_id = a.id";

// kSelectAcksFrom with `filter` as a WHERE clause, in id order. The ids are integers written as literals (no text
// of a user's reaches the SQL); `a.accepted` alone is true in both engines (0/1 in SQLite, boolean in PostgreSQL).
inline std::string select_acks(const AckFilter& filter) {
  std::string sql = kSelectAcksFrom;
  const char* joint = " WHERE ";
  const auto where = [&](const std::string& condition) {
    sql += joint + condition;
    joint = " AND ";
  };
  if (filter.machine_id) where("a.machine_id = " + std::to_string(*filter.machine_id));
  if (filter.benchmark_id) where("a.benchmark_id = " + std::to_string(*filter.benchmark_id));
  if (filter.run_id) where("a.run_id = " + std::to_string(*filter.run_id));
  if (filter.active_only) where("u.ack_id IS NULL");
  if (filter.accepted_only) where("a.accepted");
  return sql + " ORDER BY a.id";
}

// id, uuid, run_id, run uuid, commit, machine_id, fingerprint, night, text, by, at; in id order.
inline constexpr const char* kSelectNotes =
    "SELECT n.id, n.uuid, n.run_id, coalesce(r.uuid, ''), n.commit_sha, n.machine_id, coalesce(m.fingerprint, ''), "
    "n.night, n.text, n.noted_by, n.noted_at FROM annotation n LEFT JOIN run r ON r.id = n.run_id "
    "LEFT JOIN machine m ON m.id = n.machine_id ORDER BY n.id";

// A row of select_acks or kSelectNotes through either engine's cursor: R has int64(col), text(col), is_null(col)
// and flag(col) (a boolean column).
template <class R>
std::optional<std::int64_t> optional_id(const R& r, int col) {
  return r.is_null(col) ? std::nullopt : std::optional<std::int64_t>(r.int64(col));
}

template <class R>
Acknowledgement acknowledgement_from(const R& r) {
  Acknowledgement a;
  a.id = r.int64(0);
  a.uuid = r.text(1);
  a.machine_id = r.int64(2);
  a.fingerprint = r.text(3);
  a.benchmark_id = r.int64(4);
  a.instance = BenchmarkInstance{r.text(5), params_from_json(r.text(6))};
  a.metric = r.text(7);
  a.run_id = r.int64(8);
  a.run_uuid = r.text(9);
  a.commit = r.text(10);
  a.reason = r.text(11);
  a.link = r.text(12);
  a.by = r.text(13);
  a.at = r.text(14);
  a.accepted = r.flag(15);
  a.undone = r.flag(16);
  a.undone_by = r.text(17);
  a.undone_at = r.text(18);
  return a;
}

template <class R>
Annotation annotation_from(const R& r) {
  Annotation n;
  n.id = r.int64(0);
  n.uuid = r.text(1);
  n.run_id = optional_id(r, 2);
  n.run_uuid = r.text(3);
  n.commit = r.text(4);
  n.machine_id = optional_id(r, 5);
  n.fingerprint = r.text(6);
  n.night = r.text(7);
  n.text = r.text(8);
  n.by = r.text(9);
  n.at = r.text(10);
  return n;
}

}  // namespace gpuperf::db::answers_sql
