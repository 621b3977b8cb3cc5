// Store's answers (the types: db/answers.hpp; the methods: db/store.hpp): what both engines must refuse alike is
// checked here, once, before the engine writes. A room of its own above store and engine, which it calls.
#include <ctime>
#include <set>

#include "core/short_name.hpp"
#include "core/value_rules.hpp"
#include "db/engine.hpp"
#include "db/interchange.hpp"
#include "db/store.hpp"
#include "db/timestamp.hpp"

namespace gpuperf::db {
namespace {

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

// `at` in the stored form; now when empty.
std::string stored_time(const std::string& at, const char* what) {
  if (at.empty()) return utc_timestamp(std::time(nullptr));
  const auto t = normalize_timestamp(at);
  if (!t) throw InputError(std::string(what) + " time '" + at + "' is not a timestamp like 2026-11-01T02:00:00Z");
  return *t;
}

// One bound per answer field at every entry point (the command line, import, merge; both engines), the
// interchange format's (db/interchange.hpp), so whatever is stored can be exported and imported back.
void check_bound(const std::string& value, std::size_t max, const char* field) {
  if (value.size() <= max) return;
  throw InputError(std::string(field) + " of " + std::to_string(value.size()) + " bytes is longer than the " +
                   std::to_string(max) + " bytes it may have (the bound an export keeps, so it can be imported back)");
}

// The names of `rows`, each once, in name order.
std::vector<std::string> names_of(const std::vector<BenchmarkRow>& rows) {
  std::set<std::string> names;
  for (const BenchmarkRow& b : rows) names.insert(b.instance.name);
  return {names.begin(), names.end()};
}

}  // namespace

void check_can_answer(const std::string& location, const OpenOptions& options) {
  if (!is_server_location(location)) return;
  const Store store(location, Access::read_only, options);
  const std::string missing = store.engine().missing_answer_privileges();
  if (missing.empty()) return;
  throw InputError("role may not record acknowledgements or annotations in '" + store.path() + "': it lacks " +
                   missing +
                   " (answering findings is the writer's and the admin's; docs/postgresql.md, \"Setting up the "
                   "server\"); nothing was changed");
}

bool Store::add_acknowledgement(Acknowledgement ack) {
  if (blank(ack.reason)) throw InputError("an acknowledgement needs a reason (--reason): why the step is expected");
  if (ack.machine_id <= 0 || ack.benchmark_id <= 0 || ack.run_id <= 0 || ack.metric.empty()) {
    throw InputError("an acknowledgement needs its machine, benchmark instance, metric and run");
  }
  check_bound(ack.reason, kMaxTextBytes, "the reason (--reason)");
  check_bound(ack.link, kMaxTextBytes, "the link (--link)");
  check_bound(ack.by, kMaxNameBytes, "who answers (--by)");

  if (ack.uuid.empty()) ack.uuid = make_uuid();
  ack.at = stored_time(ack.at, "acknowledgement");
  return engine_->add_acknowledgement(ack);
}

bool Store::undo_acknowledgement(std::int64_t id, const std::string& by, const std::string& at) {
  check_bound(by, kMaxNameBytes, "who undoes it (--by)");
  const int r = engine_->undo_acknowledgement(id, by, stored_time(at, "undo"));
  if (r == 2) throw InputError("no acknowledgement with id " + std::to_string(id));
  return r == 0;
}

std::vector<Acknowledgement> Store::acknowledgements(const AckFilter& filter) const {
  return engine_->acknowledgements(filter);
}

bool Store::add_annotation(Annotation note) {
  if (blank(note.text)) throw InputError("an annotation needs its text");
  const int targets = (note.run_id ? 1 : 0) + (note.commit.empty() ? 0 : 1) + (note.night.empty() ? 0 : 1);
  if (targets != 1) throw InputError("an annotation is on exactly one of a run, a commit or a machine's night");
  check_bound(note.text, kMaxTextBytes, "the note's text");
  check_bound(note.by, kMaxNameBytes, "who notes it (--by)");
  check_bound(note.commit, kMaxNameBytes, "the commit (--commit)");
  if (!note.night.empty()) {
    if (const std::string bad = rules::day(note.night); !bad.empty()) throw InputError("night: " + bad + " (UTC)");
    if (!note.machine_id) throw InputError("a note on a night names its machine (--machine)");
  }
  if (note.uuid.empty()) note.uuid = make_uuid();
  note.at = stored_time(note.at, "annotation");
  return engine_->add_annotation(note);
}

std::vector<Annotation> Store::annotations() const { return engine_->annotations(); }

std::vector<std::string> Store::benchmark_names() const { return names_of(engine_->benchmarks()); }

std::vector<std::pair<std::int64_t, BenchmarkInstance>> Store::find_benchmarks(const std::string& ref) const {
  std::vector<std::pair<std::int64_t, BenchmarkInstance>> exact, by_name, by_short;
  const std::vector<BenchmarkRow> all = engine_->benchmarks();
  for (const BenchmarkRow& b : all) {
    if (b.instance.display_name() == ref) exact.emplace_back(b.id, b.instance);
    if (b.instance.name == ref) by_name.emplace_back(b.id, b.instance);
  }
  if (!exact.empty()) return exact;
  if (!by_name.empty()) return by_name;
  // The short forms: each name folded alone (a table of few rows) and within the whole set (where two names
  // fold alike, the set's form tells them apart).
  const ShortNames in_set(names_of(all));
  for (const BenchmarkRow& b : all) {
    BenchmarkInstance folded = b.instance;
    folded.name = fold_name(b.instance.name);
    const bool match = folded.display_name() == ref || folded.name == ref || in_set.display_name(b.instance) == ref ||
                       in_set(b.instance.name) == ref;
    if (match) by_short.emplace_back(b.id, b.instance);
  }
  return by_short;
}

}  // namespace gpuperf::db
