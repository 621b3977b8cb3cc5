// gpuperf db info | check | migrate | backup (and prune, cmd_db_prune.cpp): the database itself.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/cmd_db_prune.hpp"
#include "cli/context.hpp"
#include "cli/help.hpp"
#include "cli/open_store.hpp"
#include "cli/option_kinds.hpp"
#include "db/store.hpp"

namespace gpuperf::cli {
namespace {

std::string human_bytes(std::int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

int do_info(const Context& ctx, const std::string& format) {
  db::Store store = open_store(ctx, db::Access::read_only);
  const db::DbInfo d = store.info();
  if (format == "json") {
    nlohmann::ordered_json j{{"path", d.path},
                             {"engine", d.engine},
                             {"schema_version", d.schema_version},
                             {"supported_version", d.supported_version},
                             {"journal_mode", d.journal_mode},
                             {"file_bytes", d.file_bytes},
                             {"machines", d.machines},
                             {"runs", d.runs},
                             {"benchmarks", d.benchmarks},
                             {"metrics", d.metrics},
                             {"results", d.results},
                             {"samples", d.samples}};
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("path            %s\n", d.path.c_str());
  std::printf("engine          %s\n", d.engine.c_str());
  std::printf("schema version  %d (this gpuperf writes %d)\n", d.schema_version, d.supported_version);
  std::printf("journal mode    %s\n", d.journal_mode.c_str());
  std::printf("size            %s (%lld bytes)\n", human_bytes(d.file_bytes).c_str(),
              static_cast<long long>(d.file_bytes));
  std::printf("machines        %lld\n", static_cast<long long>(d.machines));
  std::printf("runs            %lld\n", static_cast<long long>(d.runs));
  std::printf("benchmarks      %lld instances\n", static_cast<long long>(d.benchmarks));
  std::printf("metrics         %lld\n", static_cast<long long>(d.metrics));
  std::printf("results         %lld\n", static_cast<long long>(d.results));
  std::printf("samples         %lld\n", static_cast<long long>(d.samples));
  for (const auto& m : store.machines()) {
    std::string line = "machine " + std::to_string(m.id) + "       " + m.fingerprint;
    for (const std::string& part : {m.machine.hostname, m.machine.gpu_name}) {
      if (!part.empty() && part != m.fingerprint) line += "  " + part;
    }
    if (!m.machine.driver.empty()) line += "  driver " + m.machine.driver;
    if (!m.machine.cuda.empty()) line += "  CUDA " + m.machine.cuda;
    std::printf("%s\n", line.c_str());
  }
  return kExitOk;
}

int do_check(const Context& ctx) {
  db::Store store = open_store(ctx, db::Access::read_only);
  const db::CheckReport r = store.check();
  if (r.ok) {
    std::printf("%s: ok (%s found nothing)\n", shown_db(ctx).c_str(), r.checked.c_str());
    return kExitOk;
  }
  for (const auto& p : r.problems) std::printf("%s\n", p.c_str());
  std::fprintf(stderr, "gpuperf: error: %s: %zu problem%s found; restore it from a backup or a `gpuperf export`\n",
               shown_db(ctx).c_str(), r.problems.size(), r.problems.size() == 1 ? "" : "s");
  return kExitUsage;
}

int do_migrate(const Context& ctx) {
  db::Store store = open_existing_store(ctx);  // opening read-write migrates
  const int from = store.opened_version(), to = store.schema_version();
  if (from == to) {
    std::printf("%s: already at schema version %d\n", shown_db(ctx).c_str(), to);
  } else {
    std::printf("%s: schema version %d -> %d\n", shown_db(ctx).c_str(), from, to);
  }
  return kExitOk;
}

int do_backup(const Context& ctx, const std::string& dest) {
  db::Store store = open_store(ctx, db::Access::read_only);
  store.backup_to(dest);
  if (!ctx.quiet) std::printf("%s: copied to %s\n", shown_db(ctx).c_str(), dest.c_str());
  return kExitOk;
}

}  // namespace

void add_db_commands(CLI::App& app, Context& ctx) {
  CLI::App* db = app.add_subcommand("db", "The results database: info, check, migrate, backup, prune");
  db->require_subcommand(1);

  set_help_footer(
      *db,
      "gpuperf db info\n"
      "gpuperf --db /var/lib/gpuperf/gpuperf.db db backup nightly-copy.db",
      exit_codes({{0, "fine"},
                  {2, "bad usage or input: no database at the path, one not gpuperf's, a damaged one (db check)"},
                  {3, "the database or the destination cannot be written"}}));
  auto format = std::make_shared<std::string>("text");
  CLI::App* info = db->add_subcommand("info", "Path, schema version, journal mode, size and row counts (read-only)");
  choice_option(info->add_option("--format", *format, "text or json"), {"text", "json"});
  set_help_footer(*info, "gpuperf db info --format json",
                  exit_codes({{0, "fine"},
                              {2, "no database at the path, or one not gpuperf's"},
                              {3, "the database cannot be read (a server that does not answer)"}}));
  info->callback([&ctx, format] { ctx.action = [&ctx, format] { return do_info(ctx, *format); }; });

  CLI::App* check = db->add_subcommand(
      "check", "SQLite integrity_check and foreign_key_check (read-only); exit 2 when anything is wrong");
  set_help_footer(*check, "gpuperf --db nightly.db db check",
                  exit_codes({{0, "the database is sound"},
                              {2, "anything is wrong: the problems are listed; or no database at the path"},
                              {3, "the database cannot be read"}}));
  check->callback([&ctx] { ctx.action = [&ctx] { return do_check(ctx); }; });

  CLI::App* migrate = db->add_subcommand(
      "migrate", "Bring the database to this gpuperf's schema version (refuses a path with no database)");
  set_help_footer(*migrate, "gpuperf --db old.db db migrate",
                  exit_codes({{0, "migrated, or already at this version"},
                              {2, "no database at the path (none is created), one not gpuperf's, or a newer schema"},
                              {3, "the database cannot be written"}}));
  migrate->callback([&ctx] { ctx.action = [&ctx] { return do_migrate(ctx); }; });

  auto dest = std::make_shared<std::string>();
  CLI::App* backup = db->add_subcommand(
      "backup", "Write a consistent, compacted copy to a new file (VACUUM INTO; safe while others write)");
  backup->add_option("FILE", *dest, "Destination; must not exist")->required();
  set_help_footer(*backup, "gpuperf db backup gpuperf-2026-11-22.db",
                  exit_codes({{0, "the copy is written"},
                              {2, "the destination exists, or the database is not gpuperf's (a server: use pg_dump)"},
                              {3, "the destination cannot be written"}}));
  backup->callback([&ctx, dest] { ctx.action = [&ctx, dest] { return do_backup(ctx, *dest); }; });

  add_db_prune_command(*db, ctx);
}

}  // namespace gpuperf::cli
