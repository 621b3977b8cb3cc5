#include "db/interchange_source.hpp"

#include <cmath>
#include <cstdint>

#include "core/errors.hpp"
#include "db/json_text.hpp"
#include "db/source_lines.hpp"

namespace gpuperf::db {
namespace {

using json = nlohmann::ordered_json;

std::string at_key(const std::string& path, const std::string& key) { return path + "." + key; }
std::string at_index(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

std::string describe(const json& v) {
  if (v.is_string()) {
    if (is_overflow(v)) return overflow_literal(v) + " (beyond the range of a double)";
    std::string s = v.get<std::string>();
    if (s.size() > 40) s = s.substr(0, 40) + "...";
    return json(s).dump();
  }
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  return v.dump();
}

class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw InputError(source_ + ": " + path + ": " + what);
  }
  std::string string(const json& obj, const char* key, const std::string& path) const {
    auto it = obj.find(key);
    if (it == obj.end()) return {};
    if (!it->is_string() || is_overflow(*it)) fail(at_key(path, key), "expected a string, got " + describe(*it));
    return it->get<std::string>();
  }
  std::int64_t integer(const json& obj, const char* key, const std::string& path, std::int64_t fallback,
                       std::int64_t lowest) const {
    auto it = obj.find(key);
    if (it == obj.end()) return fallback;
    const bool fits = it->is_number_integer() && !(it->is_number_unsigned() && it->get<std::uint64_t>() > INT64_MAX);
    if (!fits || it->get<std::int64_t>() < lowest) {
      fail(at_key(path, key), "expected an integer of at least " + std::to_string(lowest) + ", got " + describe(*it));
    }
    return it->get<std::int64_t>();
  }
  double counter(const json& obj, const char* key, const std::string& path) const {
    auto it = obj.find(key);
    if (it == obj.end()) return 0;
    if (it->is_number()) {
      const double x = it->get<double>();
      if (std::isfinite(x) && x >= 0) return x;
    }
    fail(at_key(path, key), "expected a finite number of at least 0 (a count per launch), got " + describe(*it));
  }

  SourceLine line(const json& v, const std::string& path) const {
    if (!v.is_object()) fail(path, "expected an object, got " + describe(v));
    SourceLine l;
    l.file = string(v, "file", path);
    l.line = integer(v, "line", path, 0, 0);
    l.function = string(v, "function", path);
    l.sass_offset = integer(v, "sass_offset", path, -1, -1);
    l.text = string(v, "text", path);
    l.inlined_at_file = string(v, "inlined_at_file", path);
    l.inlined_at_line = integer(v, "inlined_at_line", path, 0, 0);
    if (l.inlined_at_file.empty() != (l.inlined_at_line == 0))
      fail(path, "an \"inlined_at_file\" needs an \"inlined_at_line\" and the other way round");
    if (l.function.empty() && l.file.empty()) fail(path, "names neither a \"file\" nor a \"function\"");
    for (const LineCounter& c : kLineCounters) l.*c.member = counter(v, c.name, path);
    return l;
  }

  SourceLines lines(const json& v, const std::string& path) const {
    if (!v.is_object()) fail(path, "expected an object, got " + describe(v));
    SourceLines s;
    auto st = v.find("status");
    if (st == v.end()) fail(at_key(path, "status"), "missing");
    if (!st->is_string()) fail(at_key(path, "status"), "expected a string, got " + describe(*st));
    try {
      s.status = status_from_string(st->get<std::string>());
    } catch (const InputError& e) {
      fail(at_key(path, "status"), e.what());
    }
    s.message = string(v, "message", path);
    s.launches = integer(v, "launches", path, 0, 0);
    s.lines_total = integer(v, "lines_total", path, 0, 0);
    if (auto ls = v.find("lines"); ls != v.end()) {
      const std::string lp = at_key(path, "lines");
      if (!ls->is_array()) fail(lp, "expected an array, got " + describe(*ls));
      for (std::size_t i = 0; i < ls->size(); ++i) s.lines.push_back(line((*ls)[i], at_index(lp, i)));
    }
    if (s.lines_total < static_cast<std::int64_t>(s.lines.size())) {
      fail(at_key(path, "lines_total"),
           std::to_string(s.lines_total) + " is fewer than the " + std::to_string(s.lines.size()) + " lines given");
    }
    return s;
  }

 private:
  const std::string& source_;
};

}  // namespace

json source_lines_to_json(const SourceLines& s) {
  json j;
  j["status"] = to_string(s.status);
  if (!s.message.empty()) j["message"] = s.message;
  j["launches"] = s.launches;
  j["lines_total"] = std::max<std::int64_t>(s.lines_total, static_cast<std::int64_t>(s.lines.size()));
  json lines = json::array();
  for (const SourceLine& l : s.lines) {
    json x;
    if (!l.file.empty()) x["file"] = l.file;
    if (l.line != 0) x["line"] = l.line;
    x["function"] = l.function;
    if (l.sass_offset >= 0) x["sass_offset"] = l.sass_offset;
    if (!l.text.empty()) x["text"] = l.text;
    if (!l.inlined_at_file.empty()) x["inlined_at_file"] = l.inlined_at_file;
    if (l.inlined_at_line != 0) x["inlined_at_line"] = l.inlined_at_line;
    for (const LineCounter& c : kLineCounters) {
      if (l.*c.member != 0) x[c.name] = l.*c.member;
    }
    lines.push_back(std::move(x));
  }
  j["lines"] = std::move(lines);
  return j;
}

SourceLines source_lines_from_json(const json& v, const std::string& source, const std::string& path) {
  return Reader(source).lines(v, path);
}

}  // namespace gpuperf::db
