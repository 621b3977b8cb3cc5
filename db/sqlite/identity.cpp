#include "db/sqlite/identity.hpp"

namespace gpuperf::db {

// Migration 5: what a run ran with and what each result's kernel was (core/environment.hpp,
// core/code_identity.hpp). `run_environment` is key/value, so a new environment field needs no migration;
// `outcome_code` hangs off the outcome (a result without a row has no identity), so deleting a run deletes both.
const char* const kSqliteIdentityMigration = R"sql(
CREATE TABLE run_environment(
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  key    TEXT NOT NULL,                      -- core/environment.hpp: "driver", "lib.cublas", ...
  value  TEXT NOT NULL,
  PRIMARY KEY(run_id, key)
) WITHOUT ROWID;

CREATE TABLE outcome_code(
  run_id       INTEGER NOT NULL,
  benchmark_id INTEGER NOT NULL,
  fingerprint  TEXT NOT NULL DEFAULT '',     -- "sass:<16 hex>", '' when the cubin was not seen
  launch       TEXT NOT NULL DEFAULT '',     -- "grid=AxBxC block=AxBxC smem=N"
  PRIMARY KEY(run_id, benchmark_id),
  FOREIGN KEY(run_id, benchmark_id) REFERENCES outcome(run_id, benchmark_id) ON DELETE CASCADE
) WITHOUT ROWID;
)sql";

IdentityWriter::IdentityWriter(Connection& c)
    : env_(c, "INSERT INTO run_environment(run_id, key, value) VALUES(?1, ?2, ?3)"),
      code_(c, "INSERT INTO outcome_code(run_id, benchmark_id, fingerprint, launch) VALUES(?1, ?2, ?3, ?4)") {}

void IdentityWriter::write_environment(std::int64_t run_id, const Run& run) {
  for (const auto& [k, v] : run.environment) env_.bind_all(run_id, k, v).run();
}

void IdentityWriter::write_code(std::int64_t run_id, std::int64_t benchmark_id, const CodeIdentity& code) {
  if (code.empty()) return;
  code_.bind_all(run_id, benchmark_id, code.fingerprint, code.launch).run();
}

RunIdentity read_identity(const Connection& c, std::int64_t run_id) {
  RunIdentity out;
  if (query_int(c, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'run_environment'") == 0) {
    return out;
  }
  {
    Statement s(c, "SELECT key, value FROM run_environment WHERE run_id = ?1");
    s.bind(1, run_id);
    while (s.step()) out.environment[s.text(0)] = s.text(1);
  }
  Statement s(c, "SELECT benchmark_id, fingerprint, launch FROM outcome_code WHERE run_id = ?1");
  s.bind(1, run_id);
  while (s.step()) out.code[s.int64(0)] = CodeIdentity{s.text(1), s.text(2)};
  return out;
}

}  // namespace gpuperf::db
