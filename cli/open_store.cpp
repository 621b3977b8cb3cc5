#include "cli/open_store.hpp"

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "core/errors.hpp"

namespace gpuperf::cli {

db::OpenOptions open_options(const Context& ctx) {
  db::OpenOptions options;
  if (!ctx.busy_timeout.empty()) options.busy_timeout = db::parse_busy_timeout(ctx.busy_timeout, "--busy-timeout");
  if (ctx.progress_enabled()) {
    // A line after the first second of waiting, then one every 10 s: writers queue behind each other's
    // transactions, and whoever waits should see for whom.
    options.on_wait = [last = -1L](const db::LockWait& w) mutable {
      const long s = static_cast<long>(w.waited.count() / 1000);
      if (last >= 0 && s - last < 10) return;
      last = s;
      std::fprintf(stderr, "gpuperf: waiting %lds for the lock on '%s' (held by %s); giving up after %llds\n", s,
                   w.path.c_str(), w.holders.empty() ? "another process" : w.holders.c_str(),
                   static_cast<long long>(w.timeout.count() / 1000));
    };
  }
  return options;
}

std::string shown_db(const Context& ctx) { return db::display_location(ctx.db_path); }

db::Store open_store(const Context& ctx, db::Access access) { return open_store(ctx, access, ctx.db_path); }

db::Store open_store(const Context& ctx, db::Access access, const std::string& path) {
  return db::Store(path, access, open_options(ctx));
}

db::Store open_existing_store(const Context& ctx) {
  std::error_code ec;
  const std::string& path = ctx.db_path;
  if (path != ":memory:" && !db::is_server_location(path) &&
      !std::filesystem::exists(std::filesystem::symlink_status(path, ec))) {
    throw InputError("no database at '" + path + "' (nothing was created; check --db or $GPUPERF_DB)");
  }
  return open_store(ctx, db::Access::read_write);
}

void require_branch(const db::Store& store, const std::string& branch) {
  db::RunFilter f;
  f.branch = branch;
  f.last = 1;
  if (store.runs(f).empty()) {
    throw InputError("--branch: no run of branch '" + branch + "' in '" + store.path() + "' (see `gpuperf runs`)");
  }
}

void check_store_writable(const Context& ctx) { db::check_can_store(ctx.db_path, open_options(ctx)); }

std::vector<std::int64_t> store_runs(const Context& ctx, db::Store& store, const std::vector<Run>& runs,
                                     const std::function<std::string(const Run&)>& detail) {
  const std::vector<db::InsertOutcome> stored = store.insert_runs(runs);
  std::vector<std::int64_t> ids;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    ids.push_back(stored[i].run_id);
    if (ctx.quiet) continue;
    std::fprintf(stderr, "stored run %s (id %lld%s) in %s\n", runs[i].uuid.c_str(),
                 static_cast<long long>(stored[i].run_id), detail ? detail(runs[i]).c_str() : "", store.path().c_str());
  }
  return ids;
}

db::RunInfo resolve_run(const db::Store& store, const std::string& ref) {
  auto r = store.find_run(ref);
  if (!r) {
    throw InputError("no run matches '" + ref + "' (give a run id, a uuid or a unique prefix of 8+ characters, " +
                     "or a commit sha of 7+; see `gpuperf runs`)");
  }
  return *r;
}

}  // namespace gpuperf::cli
