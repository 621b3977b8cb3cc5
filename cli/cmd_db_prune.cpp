// gpuperf db prune --samples-older-than AGE [--dry-run]: a history that stays affordable. Raw samples are
// most of a history's size (300 durations per instance against one summary row); detect, the reports and
// compare of old runs read the summaries kept in each result, so samples past a few months can go.
#include "cli/cmd_db_prune.hpp"

#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <regex>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/context.hpp"
#include "cli/help.hpp"
#include "cli/open_store.hpp"
#include "cli/option_kinds.hpp"
#include "core/errors.hpp"
#include "db/store.hpp"
#include "db/timestamp.hpp"

namespace gpuperf::cli {
namespace {

std::string format_utc(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string human_bytes(std::int64_t bytes) {
  if (bytes < 0) return "an unknown amount (this SQLite has no dbstat module)";
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};  // decimal, as every byte count gpuperf prints
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1000 && u < 4) {
    v /= 1000;
    ++u;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, u == 0 ? "about %.0f %s" : "about %.1f %s", v, units[u]);
  return buf;
}

int do_prune(const Context& ctx, const std::string& age, bool dry_run, const std::string& format) {
  const std::string cutoff = prune_cutoff(age, std::chrono::system_clock::now());
  db::Store store = open_store(ctx, dry_run ? db::Access::read_only : db::Access::read_write);
  const db::PruneReport r = store.prune_samples(cutoff, dry_run);
  if (format == "json") {
    nlohmann::ordered_json j{
        {"db", shown_db(ctx)},  {"cutoff", r.cutoff},   {"dry_run", r.dry_run},           {"runs", r.runs},
        {"results", r.results}, {"samples", r.samples}, {"samples_left", r.samples_left}, {"bytes", r.bytes}};
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  const char* verb = dry_run ? "would remove" : "removed";
  std::printf("%s: %s %lld samples of %lld results in %lld runs started before %s (%s); %lld samples stay\n",
              shown_db(ctx).c_str(), verb, static_cast<long long>(r.samples), static_cast<long long>(r.results),
              static_cast<long long>(r.runs), r.cutoff.c_str(), human_bytes(r.bytes).c_str(),
              static_cast<long long>(r.samples_left));
  if (!ctx.quiet) {
    std::printf(
        "each result keeps its summary (n, median, quartiles, min, max, mean, stdev): detect and report read "
        "old runs as before; compare of a pruned run judges medians only%s\n",
        dry_run ? ""
                : (store.on_server() ? "; autovacuum makes the space reusable"
                                     : "; new runs reuse the freed pages (`db backup` writes a compacted copy)"));
  }
  return kExitOk;
}

}  // namespace

std::string prune_cutoff(const std::string& age, std::chrono::system_clock::time_point now) {
  static const std::regex days(R"(([0-9]{1,5})d)");
  static const std::regex date(R"([0-9]{4}-[0-9]{2}-[0-9]{2})");
  std::smatch m;
  std::string cutoff;
  const std::string latest = format_utc(now - std::chrono::hours(24 * kMinPruneDays));
  if (std::regex_match(age, m, days)) {
    cutoff = format_utc(now - std::chrono::hours(24 * std::stoll(m[1].str())));
  } else {
    const auto normalized = db::normalize_timestamp(std::regex_match(age, date) ? age + "T00:00:00Z" : age);
    if (!normalized) {
      throw InputError("--samples-older-than '" + age +
                       "': give a number of days (180d) or a date (2026-05-01) or a UTC timestamp");
    }
    cutoff = *normalized;
  }
  if (cutoff > latest) {
    throw InputError("--samples-older-than '" + age + "' would remove samples of the last " +
                     std::to_string(kMinPruneDays) +
                     " days: the newest runs' samples are what detect tests an unconfirmed change with and what "
                     "compare ranks; give " +
                     std::to_string(kMinPruneDays) + "d or more");
  }
  return cutoff;
}

void add_db_prune_command(CLI::App& db, Context& ctx) {
  auto age = std::make_shared<std::string>();
  auto dry_run = std::make_shared<bool>(false);
  auto format = std::make_shared<std::string>("text");
  CLI::App* prune = db.add_subcommand(
      "prune", "Remove the raw samples of old runs, keeping each result's summary (--dry-run: only say what it frees)");
  prune->add_option("--samples-older-than", *age, "AGE: days (180d), or a date (2026-05-01): runs started before it")
      ->required();
  prune->add_flag("--dry-run", *dry_run, "Count what would be removed and its size; change nothing");
  choice_option(prune->add_option("--format", *format, "text or json"), {"text", "json"});
  set_help_footer(*prune,
                  "gpuperf db prune --samples-older-than 180d --dry-run\n"
                  "gpuperf --db postgresql://admin@perf-db/gpuperf db prune --samples-older-than 2026-05-01",
                  exit_codes({{0, "pruned, or (--dry-run) counted"},
                              {2,
                               "bad usage or input: an age that is not 180d or a date, a cutoff under 30 days ago, "
                               "no database at the path"},
                              {3, "the database cannot be written (a role without DELETE on the samples)"}}));
  prune->callback([&ctx, age, dry_run, format] {
    ctx.action = [&ctx, age, dry_run, format] { return do_prune(ctx, *age, *dry_run, *format); };
  });
}

}  // namespace gpuperf::cli
