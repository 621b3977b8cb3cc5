#include "core/result.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/value_rules.hpp"

namespace gpuperf {

const char* to_string(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::incorrect: return "incorrect";
    case Status::failed: return "failed";
    case Status::unsupported: return "unsupported";
    case Status::skipped: return "skipped";
  }
  return "failed";
}

Status status_from_string(const std::string& s) {
  for (Status st : {Status::ok, Status::incorrect, Status::failed, Status::unsupported, Status::skipped}) {
    if (s == to_string(st)) return st;
  }
  throw InputError("unknown status '" + rules::shown_text(s) +
                   "' (expected ok, incorrect, failed, unsupported or skipped)");
}

std::string to_string(const ParamValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", *d);
    return buf;
  }
  return std::get<std::string>(v);
}

std::string params_key(const Params& p) {
  std::string out;
  for (const auto& [k, v] : p) {
    if (!out.empty()) out += ',';
    out += k;
    out += '=';
    out += to_string(v);
  }
  return out;
}

std::string params_json(const Params& p) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : p) {
    std::visit([&](const auto& x) { j[k] = x; }, v);
  }
  return j.dump();
}

Params params_from_json(const std::string& json) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("params are not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw InputError("params must be a JSON object, got: " + json);
  Params p;
  for (const auto& [k, v] : j.items()) {
    if (v.is_number_integer()) {
      p[k] = v.get<std::int64_t>();
    } else if (v.is_number_float()) {
      p[k] = v.get<double>();
    } else if (v.is_string()) {
      p[k] = v.get<std::string>();
    } else {
      throw InputError("param '" + k + "' must be a number or a string, got " + std::string(v.type_name()));
    }
  }
  return p;
}

std::string benchmark_variant(std::string_view name) {
  const std::size_t slash = name.find('/');
  return std::string(slash == std::string_view::npos ? name : name.substr(slash + 1));
}

std::string benchmark_family(std::string_view name) { return std::string(name.substr(0, name.find('/'))); }

std::string BenchmarkInstance::display_name() const {
  if (params.empty()) return name;
  return name + "[" + params_key(params) + "]";
}

const Measurement* Result::find(const std::string& metric_name) const {
  for (const auto& m : metrics) {
    if (m.metric.name == metric_name) return &m;
  }
  return nullptr;
}

std::string Machine::fingerprint() const {
  if (!gpu_uuid.empty()) return gpu_uuid;
  return hostname + "/" + gpu_name;
}

std::string machine_name(const std::string& hostname, const std::string& gpu_name, const std::string& fingerprint) {
  std::string inside = hostname.empty() ? std::string() : gpu_name;
  if (fingerprint.rfind("GPU-", 0) == 0) inside += (inside.empty() ? "" : ", ") + fingerprint.substr(0, 12);
  const std::string& head = hostname.empty() ? gpu_name : hostname;
  if (head.empty()) return inside.empty() ? fingerprint : inside;
  return inside.empty() ? head : head + " (" + inside + ")";
}

namespace {
// 8-4-4-4-12 hex from 128 bits with the given version nibble and the RFC variant bits (10).
std::string format_uuid(std::uint64_t a, std::uint64_t b, unsigned version) {
  a = (a & 0xffffffffffff0fffULL) | (static_cast<std::uint64_t>(version & 0xf) << 12);
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                static_cast<unsigned>(b >> 48), static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

}  // namespace

std::uint64_t fnv1a64(const std::string& s, std::uint64_t basis) {
  std::uint64_t h = basis;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string make_uuid() {
  std::random_device rd;
  std::mt19937_64 gen((static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^
                      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  const std::uint64_t a = gen();
  const std::uint64_t b = gen();
  return format_uuid(a, b, 4);
}

std::string keyed_uuid(const std::string& key) {
  // Two offset bases, the standard one and its 32-bit halves swapped, give two 64-bit halves.
  return format_uuid(fnv1a64(key, 0xcbf29ce484222325ULL), fnv1a64(key, 0x84222325cbf29ce4ULL), 8);
}

std::string run_key_uuid(const std::string& key, const std::string& machine_fingerprint) {
  return keyed_uuid(key + "\n" + machine_fingerprint);
}

std::string now_iso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace gpuperf
