#include "db/postgres/identity.hpp"

namespace gpuperf::db::pg {

const char* const kIdentityMigration = R"sql(
CREATE TABLE run_environment(
  run_id bigint NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  key    text COLLATE "C" NOT NULL,
  value  text COLLATE "C" NOT NULL,
  PRIMARY KEY(run_id, key)
);

CREATE TABLE outcome_code(
  run_id       bigint NOT NULL,
  benchmark_id bigint NOT NULL,
  fingerprint  text COLLATE "C" NOT NULL DEFAULT '',
  launch       text COLLATE "C" NOT NULL DEFAULT '',
  PRIMARY KEY(run_id, benchmark_id),
  FOREIGN KEY(run_id, benchmark_id) REFERENCES outcome(run_id, benchmark_id) ON DELETE CASCADE
);
)sql";

void IdentityRows::add_environment(std::int64_t run_id, const Run& run) {
  const std::string key = std::to_string(run_id) + '\t';
  for (const auto& [k, v] : run.environment) {
    environment_ += key;
    copy_text_field(environment_, k);
    environment_ += '\t';
    copy_text_field(environment_, v);
    environment_ += '\n';
  }
}

void IdentityRows::add_code(std::int64_t run_id, std::int64_t benchmark_id, const CodeIdentity& code) {
  if (code.empty()) return;
  code_ += std::to_string(run_id) + '\t' + std::to_string(benchmark_id) + '\t';
  copy_text_field(code_, code.fingerprint);
  code_ += '\t';
  copy_text_field(code_, code.launch);
  code_ += '\n';
}

void IdentityRows::flush(const Connection& c) {
  if (!environment_.empty())
    c.copy_in("COPY run_environment(run_id, key, value) FROM STDIN", environment_, "storing runs");
  if (!code_.empty()) {
    c.copy_in("COPY outcome_code(run_id, benchmark_id, fingerprint, launch) FROM STDIN", code_, "storing runs");
  }
  environment_.clear();
  code_.clear();
}

RunIdentity read_identity(const Connection& c, std::int64_t run_id) {
  RunIdentity out;
  if (!c.exec("SELECT to_regclass('run_environment') IS NOT NULL", {}, "reading a run").boolean(0, 0)) return out;
  Result e = c.exec("SELECT key, value FROM run_environment WHERE run_id = $1", Params().add(run_id),
                    "reading a run's environment");
  for (int i = 0; i < e.rows(); ++i) out.environment[e.text(i, 0)] = e.text(i, 1);
  Result r = c.exec("SELECT benchmark_id, fingerprint, launch FROM outcome_code WHERE run_id = $1",
                    Params().add(run_id), "reading a run's code identities");
  for (int i = 0; i < r.rows(); ++i) out.code[r.int64(i, 0)] = CodeIdentity{r.text(i, 1), r.text(i, 2)};
  return out;
}

}  // namespace gpuperf::db::pg
