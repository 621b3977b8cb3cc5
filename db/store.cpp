// Store: the engine-neutral half. Chooses the engine by the location's form, and answers what both engines
// must answer alike from what they return: run and machine references, history grouped into sorted series,
// validation before a write.
#include "db/store.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <regex>
#include <tuple>

#include "db/engine.hpp"
#include "db/run_rules.hpp"
#include "db/server_location.hpp"
#include "db/timestamp.hpp"

namespace gpuperf::db {
namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() < 19 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

bool is_hex(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isxdigit(c) != 0 || c == '-'; });
}

[[noreturn]] void ambiguous(const std::string& ref, const std::vector<RunInfo>& matches, const char* what) {
  std::string list;
  for (std::size_t i = 0; i < matches.size() && i < 10; ++i) {
    list += "\n  " + std::to_string(matches[i].id) + "  " + matches[i].uuid + "  " + matches[i].started_at + "  " +
            matches[i].commit.substr(0, 12);
  }
  throw InputError("run reference '" + ref + "' is ambiguous: it matches several " + what + list);
}

// The benchmark ids whose display name matches `pattern` (ECMAScript syntax, searched, not anchored).
std::vector<std::int64_t> matching_benchmarks(const Engine& e, const std::string& pattern) {
  std::regex re;
  try {
    re = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& err) {
    throw InputError("benchmark filter '" + pattern + "' is not a valid regular expression: " + err.what());
  }
  std::vector<std::int64_t> ids;
  for (const BenchmarkRow& b : e.benchmarks()) {
    if (std::regex_search(b.instance.display_name(), re)) ids.push_back(b.id);
  }
  return ids;
}

}  // namespace

bool is_server_location(const std::string& location) { return server_location::is_server(location); }

std::string display_location(const std::string& location) {
  return is_server_location(location) ? server_location::redact(location) : location;
}

bool location_exists(const std::string& location) {
  std::error_code ec;
  return is_server_location(location) || std::filesystem::exists(location, ec);
}

void check_can_store(const std::string& location, const OpenOptions& options) {
  if (is_server_location(location)) {
    Store(location, Access::read_write, options);
  } else {
    refuse_damaged_file(location, options);
  }
}

std::string absolute_location(const std::string& location) {
  if (is_server_location(location) || location.empty() || location == ":memory:") return location;
  return std::filesystem::absolute(location).string();
}

Store::Store(const std::string& location, Access access, const OpenOptions& options)
    : shown_(display_location(location)), on_server_(is_server_location(location)) {
  engine_ = on_server_ ? open_postgres(location, access, options) : open_sqlite(location, access, options);
}

Store::~Store() = default;
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;

int Store::schema_version() const { return engine_->schema_version(); }
int Store::opened_version() const { return engine_->opened_version(); }

InsertOutcome Store::insert_run(const Run& run) {
  validate_run(run);
  return engine_->insert_runs({&run}).front();
}

std::vector<InsertOutcome> Store::insert_runs(const std::vector<Run>& runs) {
  std::vector<const Run*> ptrs;
  ptrs.reserve(runs.size());
  for (const Run& r : runs) {
    validate_run(r);
    ptrs.push_back(&r);
  }
  return engine_->insert_runs(ptrs);
}

void Store::hold_run_key(const std::string& uuid, const std::function<void()>& on_wait) const {
  engine_->hold_run_key(uuid, on_wait);
}

void Store::set_excluded(std::int64_t run_id, bool excluded, const std::string& reason) {
  if (!engine_->set_excluded(run_id, excluded, excluded ? reason : std::string())) {
    throw InputError("no run with id " + std::to_string(run_id));
  }
}

PruneReport Store::prune_samples(const std::string& cutoff, bool dry_run) {
  if (!is_normalized_timestamp(cutoff)) {
    throw InputError("prune cutoff '" + cutoff + "' is not a UTC timestamp like 2026-05-01T00:00:00Z");
  }
  return engine_->prune_samples(cutoff, dry_run);
}

std::vector<MachineRow> Store::machines() const { return engine_->machines(); }

std::optional<MachineRow> Store::find_machine(const std::string& ref) const { return match_machine(machines(), ref); }

std::optional<MachineRow> match_machine(const std::vector<MachineRow>& all, const std::string& ref) {
  const bool numeric = all_digits(ref) && ref.size() < 18;
  for (const auto& m : all) {
    if (m.fingerprint == ref || (numeric && m.id == std::stoll(ref)) ||
        machine_name(m.machine.hostname, m.machine.gpu_name, m.fingerprint) == ref) {
      return m;
    }
  }
  // The one machine a hostname or a fingerprint prefix names; several: refused, listed.
  const auto one_of = [&](const std::vector<MachineRow>& found, const char* why) -> std::optional<MachineRow> {
    if (found.size() == 1) return found.front();
    if (found.empty()) return std::nullopt;
    std::string names;
    for (const auto& m : found) {
      names +=
          "\n  " + std::to_string(m.id) + "  " + machine_name(m.machine.hostname, m.machine.gpu_name, m.fingerprint);
    }
    throw InputError("machine '" + ref + "' is ambiguous: " + why + "; name one by id or fingerprint:" + names);
  };
  std::vector<MachineRow> by_host, by_prefix;
  for (const auto& m : all) {
    if (m.machine.hostname == ref) by_host.push_back(m);
    if (ref.size() >= 8 && m.fingerprint.rfind(ref, 0) == 0) by_prefix.push_back(m);
  }
  if (auto m = one_of(by_host, "that host has several GPUs")) return m;
  return one_of(by_prefix, "several fingerprints start with it");
}

std::vector<RunInfo> Store::runs(const RunFilter& filter) const { return engine_->runs(filter); }

std::optional<RunInfo> Store::find_run(const std::string& ref) const {
  using Key = Engine::RunKey;
  if (ref.empty()) return std::nullopt;
  // "#12" as compare's header prints a run's id.
  if (ref.size() > 1 && ref[0] == '#' && all_digits(ref.substr(1))) {
    auto m = engine_->runs_matching(Key::id, ref.substr(1));
    return m.empty() ? std::nullopt : std::optional<RunInfo>(m.front());
  }
  if (all_digits(ref)) {
    auto m = engine_->runs_matching(Key::id, ref);
    if (!m.empty()) return m.front();
  }
  if (auto m = engine_->runs_matching(Key::uuid, ref); !m.empty()) return m.front();
  if (ref.size() >= 8) {
    auto matches = engine_->runs_matching(Key::uuid_prefix, ref);
    if (matches.size() > 1) ambiguous(ref, matches, "run uuids");
    if (matches.size() == 1) return matches.front();
  }
  if (ref.size() >= 7 && is_hex(ref)) {
    // A commit (or prefix): that commit's newest run.
    auto matches = engine_->runs_matching(Key::commit_prefix, ref);
    if (matches.empty()) return std::nullopt;
    for (const auto& m : matches) {
      if (m.commit != matches.front().commit) ambiguous(ref, matches, "commits");
    }
    return matches.front();
  }
  return std::nullopt;
}

std::string Store::run_prefix(const std::string& uuid) const {
  using Key = Engine::RunKey;
  for (std::size_t n = 8; n < uuid.size(); ++n) {
    if (engine_->runs_matching(Key::uuid_prefix, uuid.substr(0, n)).size() <= 1) return uuid.substr(0, n);
  }
  return uuid;
}

std::string unique_prefix(const std::vector<std::string>& sorted_uuids, const std::string& uuid, std::size_t at_least) {
  const auto common = [&uuid](const std::string& other) {
    std::size_t n = 0;
    while (n < uuid.size() && n < other.size() && uuid[n] == other[n]) ++n;
    return n;
  };
  std::size_t need = at_least;
  const auto at = std::lower_bound(sorted_uuids.begin(), sorted_uuids.end(), uuid);
  if (at != sorted_uuids.begin()) need = std::max(need, common(*std::prev(at)) + 1);
  auto next = at;
  if (next != sorted_uuids.end() && *next == uuid) ++next;
  if (next != sorted_uuids.end()) need = std::max(need, common(*next) + 1);
  return uuid.substr(0, std::min(need, uuid.size()));
}

std::optional<RunInfo> Store::latest_run(const std::string& branch, std::optional<std::int64_t> machine_id) const {
  return engine_->latest_run(branch, machine_id);
}

Run Store::load_run(std::int64_t run_id, bool with_samples) const { return engine_->load_run(run_id, with_samples); }

void Store::load_runs(const std::vector<std::int64_t>& run_ids, const std::function<void(Run&&)>& each) const {
  engine_->load_runs(run_ids, each);
}

std::vector<Series> Store::history(const HistoryFilter& f) const {
  std::optional<std::vector<std::int64_t>> ids;
  if (!f.benchmark_regex.empty()) ids = matching_benchmarks(*engine_, f.benchmark_regex);

  struct Slot {
    Series series;
    std::string params_key;  // sort key
  };
  std::vector<Slot> slots;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::size_t> slot_of;  // machine, bench, metric
  std::size_t points = 0;
  engine_->history_rows(f, ids, [&](HistoryRow&& row) {
    const auto key = std::make_tuple(row.machine_id, row.benchmark_id, row.metric_id);
    auto it = slot_of.find(key);
    if (it == slot_of.end()) {
      Slot slot;
      SeriesKey& k = slot.series.key;
      k.machine_id = row.machine_id;
      k.fingerprint = std::move(row.fingerprint);
      k.benchmark_id = row.benchmark_id;
      k.instance = BenchmarkInstance{std::move(row.name), params_from_json(row.params_json)};
      slot.params_key = std::move(row.params_key);
      k.metric = std::move(row.metric);
      it = slot_of.emplace(key, slots.size()).first;
      slots.push_back(std::move(slot));
    }
    // The instance's disposition outranks its metric's: an incorrect kernel's duration is not a point.
    row.point.status = row.instance_status != Status::ok ? row.instance_status : row.result_status;
    slots[it->second].series.points.push_back(std::move(row.point));
    ++points;
  });

  std::sort(slots.begin(), slots.end(), [](const Slot& a, const Slot& b) {
    const SeriesKey &x = a.series.key, &y = b.series.key;
    return std::tie(x.fingerprint, x.instance.name, a.params_key, x.metric.name) <
           std::tie(y.fingerprint, y.instance.name, b.params_key, y.metric.name);
  });
  std::vector<Series> out;
  out.reserve(slots.size());
  for (Slot& slot : slots) {
    auto& pts = slot.series.points;
    std::sort(pts.begin(), pts.end(), [](const SeriesPoint& a, const SeriesPoint& b) {
      return std::tie(a.started_at, a.run_id) < std::tie(b.started_at, b.run_id);
    });
    out.push_back(std::move(slot.series));
  }
  if (f.with_samples && points > 0) engine_->load_samples(out, points);
  return out;
}

std::vector<MetricInfo> Store::metrics() const { return engine_->metrics(); }

RunIdentity Store::identity(std::int64_t run_id) const { return engine_->identity(run_id); }

std::vector<SourceLine> Store::lines_with_text(std::int64_t run_id) const { return engine_->lines_with_text(run_id); }

DbInfo Store::info() const {
  DbInfo d = engine_->info();
  d.path = shown_;
  return d;
}

CheckReport Store::check() const { return engine_->check(); }

void Store::backup_to(const std::string& dest_path) const { engine_->backup_to(dest_path); }

}  // namespace gpuperf::db
