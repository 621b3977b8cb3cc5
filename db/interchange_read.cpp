// Reading the interchange format: a strict validator that names the JSON path of every problem.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "core/value_rules.hpp"
#include "db/answers_json.hpp"
#include "db/interchange.hpp"
#include "db/interchange_source.hpp"
#include "db/json_text.hpp"
#include "db/run_rules.hpp"
#include "db/timestamp.hpp"

namespace gpuperf::db {
namespace {

// ordered_json keeps metrics in the order the file lists them.
using json = nlohmann::ordered_json;

// A key with characters a terminal would obey (a params key "\u001b[2J") is shown JSON-style: ["\u001b[2J"].
std::string at_key(const std::string& path, const std::string& key) {
  if (rules::shown_text(key) != key) return path + "[" + rules::shown_text(json(key).dump()) + "]";
  return path.empty() ? key : path + "." + key;
}
std::string at_index(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

// A value as an error message shows it.
std::string describe(const json& v) {
  switch (v.type()) {
    case json::value_t::string: {
      if (is_overflow(v)) return overflow_literal(v) + " (beyond the range of a double)";
      std::string s = v.get<std::string>();
      if (s.size() > 40) s = s.substr(0, 40) + "...";
      return rules::shown_text(json(s).dump());
    }
    case json::value_t::number_float:
      if (!std::isfinite(v.get<double>())) return "a number out of range (it overflows to infinity)";
      return v.dump();
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    default: return v.dump();  // null, true, false, integers
  }
}

// "worst" instance status for a run that does not state its own: a wrong answer outranks a failure,
// which outranks "unsupported" and "skipped".
int severity(Status s) {
  switch (s) {
    case Status::ok: return 0;
    case Status::skipped: return 1;
    case Status::unsupported: return 2;
    case Status::failed: return 3;
    case Status::incorrect: return 4;
  }
  return 3;
}

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)), now_(std::time(nullptr)) {}
  static constexpr std::time_t kClockSkewSeconds = 24 * 3600;
  static constexpr const char* kEarliest = "2000-01-01T00:00:00Z";

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw InputError(source_ + ": " + (path.empty() ? "" : path + ": ") + what);
  }

  const json& require(const json& obj, const char* key, const std::string& path) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(at_key(path, key), "missing");
    return *it;
  }
  const json* optional(const json& obj, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }
  const json& object(const json& v, const std::string& path) const {
    if (!v.is_object()) fail(path, "expected an object, got " + describe(v));
    return v;
  }
  const json& array(const json& v, const std::string& path) const {
    if (!v.is_array()) fail(path, "expected an array, got " + describe(v));
    return v;
  }
  std::string string(const json& v, const std::string& path, std::size_t max = kMaxTextBytes) const {
    if (!v.is_string() || is_overflow(v)) fail(path, "expected a string, got " + describe(v));
    std::string s = v.get<std::string>();
    if (s.size() > max) {
      fail(path, "a string of " + std::to_string(s.size()) + " bytes, longer than the " + std::to_string(max) +
                     " bytes this field may have");
    }
    return s;
  }
  std::string string_field(const json& obj, const char* key, const std::string& path, bool required,
                           std::size_t max = kMaxNameBytes) const {
    if (required) return string(require(obj, key, path), at_key(path, key), max);
    const json* v = optional(obj, key);
    return v == nullptr ? std::string() : string(*v, at_key(path, key), max);
  }
  void name_key(const std::string& key, const std::string& path) const {
    if (key.size() > kMaxNameBytes) {
      fail(path, "a key of " + std::to_string(key.size()) + " bytes, longer than the " + std::to_string(kMaxNameBytes) +
                     " bytes a name may have");
    }
  }
  bool boolean(const json& v, const std::string& path) const {
    if (!v.is_boolean()) fail(path, "expected true or false, got " + describe(v));
    return v.get<bool>();
  }
  double finite(const json& v, const std::string& path) const {
    if (v.is_number()) {
      double x = v.get<double>();
      if (std::isfinite(x)) return x;
    }
    fail(path, "expected a finite number, got " + describe(v));
  }
  // Run::exit_status: an exit code, or minus the signal that killed the program.
  int exit_status(const json& v, const std::string& path) const {
    const bool fits = v.is_number_unsigned()
                          ? v.get<std::uint64_t>() <= std::numeric_limits<int>::max()
                          : v.is_number_integer() && v.get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                                v.get<std::int64_t>() <= std::numeric_limits<int>::max();
    if (!fits) fail(path, "expected an integer (the exit code, or minus the signal number), got " + describe(v));
    return static_cast<int>(v.get<std::int64_t>());
  }
  // Run::rank, local_rank, world_size: integers; their ranges are checked together (rank_fields).
  int rank_field(const json& v, const std::string& path, const char* what) const {
    const bool fits = v.is_number_unsigned()
                          ? v.get<std::uint64_t>() <= std::numeric_limits<int>::max()
                          : v.is_number_integer() && v.get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                                v.get<std::int64_t>() <= std::numeric_limits<int>::max();
    if (!fits) fail(path, std::string("expected an integer (") + what + "), got " + describe(v));
    return static_cast<int>(v.get<std::int64_t>());
  }
  // A recorded process's place in a distributed job: each field optional, a rank below the world size.
  void rank_fields(const json& v, Run& r, const std::string& path) const {
    if (const json* x = optional(v, "rank")) r.rank = rank_field(*x, at_key(path, "rank"), "the process's RANK");
    if (const json* x = optional(v, "local_rank")) {
      r.local_rank = rank_field(*x, at_key(path, "local_rank"), "the process's LOCAL_RANK");
    }
    if (const json* x = optional(v, "world_size")) {
      r.world_size = rank_field(*x, at_key(path, "world_size"), "the job's WORLD_SIZE");
    }
    if (const auto problem = rank_problem(r)) fail(at_key(path, problem->field), problem->what);
  }
  Status status(const json& v, const std::string& path) const {
    std::string s = string(v, path);
    try {
      return status_from_string(s);
    } catch (const InputError& e) {
      fail(path, e.what());
    }
  }
  std::string timestamp(const json& v, const std::string& path) const {
    std::string s = string(v, path);
    auto t = normalize_timestamp(s);
    if (!t) fail(path, "expected an ISO 8601 time with a zone like \"2026-11-01T02:00:00Z\", got " + describe(v));
    return *t;
  }

  std::vector<double> numbers(const json& v, const std::string& path) const {
    array(v, path);
    std::vector<double> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      const json& x = v[i];
      double d = 0;
      if (x.is_number() && std::isfinite(d = x.get<double>())) {
        out.push_back(d);
      } else {
        fail(at_index(path, i), "expected a finite number, got " + describe(x));
      }
    }
    return out;
  }

  // The summary of a measurement exported with "samples_pruned": n > 1 and finite statistics.
  Measurement pruned_measurement(Measurement m, const json& v, const std::string& path) const {
    const json* s = optional(v, "summary");
    if (s == nullptr) fail(path, "has \"samples_pruned\" but no \"summary\" (a pruned run keeps its summary)");
    const std::string sp = at_key(path, "summary");
    object(*s, sp);
    const json* n = optional(*s, "n");
    if (n == nullptr || !n->is_number_integer() || n->get<std::int64_t>() < 2) {
      fail(at_key(sp, "n"), "expected the number of samples summarized (2 or more)");
    }
    m.summary.n = static_cast<std::size_t>(n->get<std::int64_t>());
    const std::pair<const char*, double*> fields[] = {
        {"median", &m.summary.median}, {"mean", &m.summary.mean}, {"min", &m.summary.min},    {"max", &m.summary.max},
        {"q1", &m.summary.q1},         {"q3", &m.summary.q3},     {"stdev", &m.summary.stdev}};
    for (const auto& [key, out] : fields) {
      const json* x = optional(*s, key);
      if (x == nullptr) fail(at_key(sp, key), "missing");
      *out = finite(*x, at_key(sp, key));
    }
    return m;
  }

  // gpuperf's own metrics mean what its traits table says (core/metrics.cpp): a file may repeat their
  // direction and determinism, never change them, or a slower run would read "faster" and every later
  // import of a true file would be refused by the database.
  void builtin_traits(const MetricInfo& m, const MetricInfo& builtin, const json& v, const std::string& path) const {
    if (m.higher_is_better != builtin.higher_is_better) {
      fail(at_key(path, "better"), "gpuperf's metric '" + m.name + "' is better " +
                                       (builtin.higher_is_better ? "higher" : "lower") + ", got " +
                                       describe(v.at("better")));
    }
    if (m.deterministic != builtin.deterministic) {
      fail(at_key(path, "deterministic"), "gpuperf's metric '" + m.name + "' is " +
                                              (builtin.deterministic ? "deterministic" : "not deterministic") +
                                              ", got " + describe(v.at("deterministic")));
    }
  }

  Measurement measurement(const std::string& name, const json& v, const std::string& path) const {
    object(v, path);
    Measurement m;
    m.metric = metric_info_for(name);
    m.metric.name = name;
    m.metric.unit = string_field(v, "unit", path, true);
    if (const MetricTraits* t = find_metric(name); t != nullptr && t->info.unit != m.metric.unit) {
      fail(at_key(path, "unit"),
           "gpuperf's metric '" + name + "' is measured in \"" + t->info.unit + "\", got " + describe(v["unit"]));
    }
    if (const json* b = optional(v, "better")) {
      std::string s = string(*b, at_key(path, "better"));
      if (s != "higher" && s != "lower")
        fail(at_key(path, "better"), "expected \"higher\" or \"lower\", got " + describe(*b));
      m.metric.higher_is_better = s == "higher";
    }
    if (const json* d = optional(v, "deterministic"))
      m.metric.deterministic = boolean(*d, at_key(path, "deterministic"));
    if (const MetricTraits* t = find_metric(name)) builtin_traits(m.metric, t->info, v, path);
    if (const json* s = optional(v, "status")) m.status = status(*s, at_key(path, "status"));
    m.message = string_field(v, "message", path, false, kMaxTextBytes);
    const json* samples = optional(v, "samples");
    const json* value = optional(v, "value");
    if (samples != nullptr && value != nullptr) fail(path, "has both \"samples\" and \"value\"; give one");
    if (samples != nullptr) {
      m.samples = numbers(*samples, at_key(path, "samples"));
      if (m.samples.empty() && m.status == Status::ok)
        fail(at_key(path, "samples"), "empty (a metric with status ok needs at least one sample)");
      if (const json* clk = optional(v, "sm_clock_mhz")) {
        m.sm_clock_mhz = numbers(*clk, at_key(path, "sm_clock_mhz"));
        if (m.sm_clock_mhz.size() != m.samples.size()) {
          fail(at_key(path, "sm_clock_mhz"), std::to_string(m.sm_clock_mhz.size()) + " readings for " +
                                                 std::to_string(m.samples.size()) + " samples (need one per sample)");
        }
      }
    } else if (value != nullptr) {
      m.samples = {finite(*value, at_key(path, "value"))};
      if (optional(v, "sm_clock_mhz") != nullptr) fail(at_key(path, "sm_clock_mhz"), "only allowed with \"samples\"");
    } else if (const json* pruned = optional(v, "samples_pruned");
               pruned != nullptr && boolean(*pruned, at_key(path, "samples_pruned"))) {
      // An export of a run whose samples `gpuperf db prune` removed: its summary is all there is.
      return pruned_measurement(std::move(m), v, path);
    } else if (m.status == Status::ok) {
      fail(path, "needs \"samples\" or \"value\" (or a \"status\" saying why there is none)");
    }
    {  // by the unit, gpuperf's or a custom metric's: no negative durations, counts, bytes or %, no 1e308 ns
      for (std::size_t i = 0; i < m.samples.size(); ++i) {
        const std::string problem = rules::measured_value(m.samples[i], m.metric.unit);
        if (!problem.empty())
          fail(value != nullptr ? at_key(path, "value") : at_index(at_key(path, "samples"), i), problem);
      }
    }
    m.summary = summarize(m.samples);  // never trusted from the file
    return m;
  }

  Result result(const json& v, const std::string& path) const {
    object(v, path);
    Result r;
    r.instance.name = string_field(v, "benchmark", path, true, kMaxBenchmarkBytes);
    if (r.instance.name.empty()) fail(at_key(path, "benchmark"), "empty");
    if (const json* p = optional(v, "params")) {
      const std::string pp = at_key(path, "params");
      object(*p, pp);
      for (const auto& [k, x] : p->items()) {
        name_key(k, pp);
        if (x.is_number_integer()) {
          r.instance.params[k] = x.get<std::int64_t>();
        } else if (x.is_number_float()) {
          r.instance.params[k] = finite(x, at_key(pp, k));
        } else if (x.is_string() && !is_overflow(x)) {
          r.instance.params[k] = string(x, at_key(pp, k), kMaxNameBytes);
        } else {
          fail(at_key(pp, k), "expected a number or a string, got " + describe(x));
        }
      }
    }
    r.status = status(require(v, "status", path), at_key(path, "status"));
    r.message = string_field(v, "message", path, false, kMaxTextBytes);
    r.baseline = string_field(v, "baseline", path, false);
    if (const json* ms = optional(v, "metrics")) {
      const std::string mp = at_key(path, "metrics");
      object(*ms, mp);
      for (const auto& [name, mv] : ms->items()) {
        if (name.empty()) fail(mp, "a metric has an empty name");
        name_key(name, mp);
        r.metrics.push_back(measurement(name, mv, at_key(mp, name)));
      }
    }
    if (const json* s = optional(v, "source")) r.source = source_lines_from_json(*s, source_, at_key(path, "source"));
    if (const json* c = optional(v, "code")) r.code = code(*c, at_key(path, "code"));
    return r;
  }

  // Result::code: {"fingerprint": "sass:...", "launch": "grid=... block=... smem=..."}, each optional.
  CodeIdentity code(const json& v, const std::string& path) const {
    object(v, path);
    return CodeIdentity{string_field(v, "fingerprint", path, false), string_field(v, "launch", path, false)};
  }

  // Run::environment: an object of strings, keys not empty.
  std::map<std::string, std::string> environment(const json& v, const std::string& path) const {
    object(v, path);
    std::map<std::string, std::string> out;
    for (const auto& [k, x] : v.items()) {
      if (k.empty()) fail(path, "a field has an empty name");
      out[k] = string(x, at_key(path, k));
    }
    return out;
  }

  Machine machine(const json& v, const std::string& path) const {
    object(v, path);
    Machine m;
    m.hostname = string_field(v, "hostname", path, true);
    m.gpu_name = string_field(v, "gpu_name", path, true);
    m.gpu_uuid = string_field(v, "gpu_uuid", path, false);
    m.cc = string_field(v, "cc", path, false);
    m.driver = string_field(v, "driver", path, false);
    m.cuda = string_field(v, "cuda", path, false);
    if (const json* sm = optional(v, "sm_count")) {
      if (!sm->is_number_integer() || sm->get<std::int64_t>() < 0) {
        fail(at_key(path, "sm_count"), "expected a non-negative integer, got " + describe(*sm));
      }
      m.sm_count = sm->get<std::int64_t>();
    }
    if (m.hostname.empty() && m.gpu_uuid.empty()) fail(at_key(path, "hostname"), "empty (and no gpu_uuid)");
    return m;
  }

  // A run ends after it starts, and neither is later than now (give or take a day of clock skew between the
  // machine that measured and this one): a run dated 9999 would stay the "latest" of its branch for ever.
  void run_times(const Run& r, const std::string& path) const {
    if (!r.finished_at.empty() && compare_timestamps(r.finished_at, r.started_at) < 0) {
      fail(at_key(path, "finished_at"),
           "\"" + r.finished_at + "\" is before the run's started_at \"" + r.started_at + "\"");
    }
    const std::string latest = utc_timestamp(now_ + kClockSkewSeconds);
    for (const auto& [key, t] : {std::pair<const char*, const std::string&>{"started_at", r.started_at},
                                 std::pair<const char*, const std::string&>{"finished_at", r.finished_at}}) {
      // CUDA came in 2007: a run dated 1900 or 1970 is a clock that was never set, and would be the oldest
      // point of every trend for ever.
      if (!t.empty() && compare_timestamps(t, kEarliest) < 0) {
        fail(at_key(path, key), "\"" + t + "\" is before " + kEarliest + " (a machine clock that was not set?)");
      }
      if (!t.empty() && compare_timestamps(t, latest) > 0) {
        fail(at_key(path, key), "\"" + t + "\" is in the future (this machine's clock says " + utc_timestamp(now_) +
                                    "; a day of clock skew is allowed)");
      }
    }
  }

  Run run(const json& v, const std::string& path) const {
    object(v, path);
    Run r;
    r.uuid = string_field(v, "uuid", path, true);
    if (r.uuid.empty()) fail(at_key(path, "uuid"), "empty");
    if (const std::string problem = rules::uuid(r.uuid); !problem.empty()) fail(at_key(path, "uuid"), problem);
    // A uuid's hexadecimal digits have no case (RFC 4122): stored in lower case, as gpuperf writes them, so
    // 5F0C... and 5f0c... are one run.
    std::transform(r.uuid.begin(), r.uuid.end(), r.uuid.begin(), [](unsigned char c) { return std::tolower(c); });
    r.started_at = timestamp(require(v, "started_at", path), at_key(path, "started_at"));
    if (const json* f = optional(v, "finished_at");
        f != nullptr && !(f->is_string() && f->get<std::string>().empty())) {
      r.finished_at = timestamp(*f, at_key(path, "finished_at"));
    }
    run_times(r, path);
    r.commit = string_field(v, "commit", path, false);
    r.branch = string_field(v, "branch", path, false);
    r.label = string_field(v, "label", path, false);
    r.tool_version = string_field(v, "tool_version", path, false);
    if (const json* e = optional(v, "excluded")) r.excluded = boolean(*e, at_key(path, "excluded"));
    r.exclude_reason = string_field(v, "exclude_reason", path, false, kMaxTextBytes);
    r.command = string_field(v, "command", path, false, kMaxTextBytes);
    if (const json* e = optional(v, "exit_status")) r.exit_status = exit_status(*e, at_key(path, "exit_status"));
    rank_fields(v, r, path);
    r.machine = machine(require(v, "machine", path), at_key(path, "machine"));
    if (const json* e = optional(v, "environment")) r.environment = environment(*e, at_key(path, "environment"));
    const std::string rp = at_key(path, "results");
    const json& results = array(require(v, "results", path), rp);
    std::map<std::string, std::size_t> first_at;
    for (std::size_t i = 0; i < results.size(); ++i) {
      Result res = result(results[i], at_index(rp, i));
      auto [it, fresh] = first_at.emplace(res.instance.display_name(), i);
      if (!fresh) {
        fail(at_index(rp, i), "benchmark instance " + res.instance.display_name() +
                                  " appears twice in this run (first at " + at_index(rp, it->second) + ")");
      }
      r.results.push_back(std::move(res));
    }
    if (const json* s = optional(v, "status")) {
      r.status = status(*s, at_key(path, "status"));
    } else {
      for (const Result& res : r.results) {
        if (severity(res.status) > severity(r.status)) r.status = res.status;
      }
    }
    return r;
  }

  InterchangeDocument document(const json& doc) const {
    if (!doc.is_object())
      fail("", "expected a JSON object with \"format\", \"version\" and \"runs\", got " + describe(doc));
    const json* format = optional(doc, "format");
    if (format == nullptr) fail("format", "missing (is this a gpuperf-results file?)");
    if (!format->is_string() || format->get<std::string>() != kInterchangeFormat) {
      fail("format", std::string("expected \"") + kInterchangeFormat + "\", got " + describe(*format));
    }
    const json& version = require(doc, "version", "");
    if (!version.is_number_integer()) fail("version", "expected an integer, got " + describe(version));
    if (version.get<std::int64_t>() != kInterchangeVersion) {
      fail("version", "unsupported version " + version.dump() + " (this gpuperf reads version " +
                          std::to_string(kInterchangeVersion) + ")");
    }
    const json& runs = array(require(doc, "runs", ""), "runs");
    std::vector<Run> out;
    out.reserve(runs.size());
    std::map<std::string, std::size_t> first_at;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      Run r = run(runs[i], at_index("runs", i));
      auto [it, fresh] = first_at.emplace(r.uuid, i);
      if (!fresh) {
        fail(at_key(at_index("runs", i), "uuid"),
             "duplicate run uuid \"" + r.uuid + "\" (first at " + at_index("runs", it->second) + ")");
      }
      out.push_back(std::move(r));
    }
    return {std::move(out),
            answers_from_json(optional(doc, "acknowledgements"), optional(doc, "annotations"), source_)};
  }

 private:
  std::string source_;
  std::time_t now_;
};

}  // namespace

InterchangeDocument parse_interchange_document(const std::string& text, const std::string& source) {
  return Reader(source).document(parse_json_text(text, source));
}

std::vector<Run> parse_interchange(const std::string& text, const std::string& source) {
  return parse_interchange_document(text, source).runs;
}

std::vector<Run> read_interchange_file(const std::string& path) { return read_interchange_document(path).runs; }

InterchangeDocument read_interchange_document(const std::string& path) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return parse_interchange_document(text, "<stdin>");
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError("cannot read '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read '" + path + "': " + std::strerror(errno));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw InputError("cannot read '" + path + "': " + std::strerror(errno));
  return parse_interchange_document(buf.str(), path);
}

}  // namespace gpuperf::db
