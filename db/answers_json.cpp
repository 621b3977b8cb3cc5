#include "db/answers_json.hpp"

#include "core/errors.hpp"
#include "core/value_rules.hpp"
#include "db/interchange.hpp"
#include "db/timestamp.hpp"

namespace gpuperf::db {

nlohmann::json acknowledgement_json(const Acknowledgement& a) {
  nlohmann::json j{{"uuid", a.uuid},
                   {"machine", a.fingerprint},
                   {"benchmark", a.instance.name},
                   {"params", nlohmann::json::parse(params_json(a.instance.params))},
                   {"metric", a.metric},
                   {"run", a.run_uuid},
                   {"commit", a.commit},
                   {"reason", a.reason},
                   {"link", a.link},
                   {"by", a.by},
                   {"at", a.at},
                   {"accepted", a.accepted},
                   {"undone", a.undone}};
  if (a.undone) {
    j["undone_by"] = a.undone_by;
    j["undone_at"] = a.undone_at;
  }
  return j;
}

nlohmann::json acknowledgements_json(const std::vector<Acknowledgement>& acks) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : acks) out.push_back(acknowledgement_json(a));
  return out;
}

nlohmann::json annotation_json(const Annotation& n) {
  nlohmann::json j{{"uuid", n.uuid}, {"text", n.text}, {"by", n.by}, {"at", n.at}};
  if (n.run_id) j["run"] = n.run_uuid;
  if (!n.commit.empty()) j["commit"] = n.commit;
  if (!n.night.empty()) {
    j["machine"] = n.fingerprint;
    j["night"] = n.night;
  }
  return j;
}

nlohmann::json annotations_json(const std::vector<Annotation>& notes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& n : notes) out.push_back(annotation_json(n));
  return out;
}

namespace {

using ojson = nlohmann::ordered_json;

// Reads one answer object's fields, each error naming its path.
class Fields {
 public:
  Fields(const ojson& v, std::string path, const std::string& source) : v_(v), path_(std::move(path)), source_(source) {
    if (!v.is_object()) fail("", "expected an object");
  }
  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    throw InputError(source_ + ": " + path_ + (key.empty() ? "" : "." + key) + ": " + why);
  }
  // The longest strings: as for the runs (kMaxNameBytes and the others, db/interchange.hpp).
  std::string text(const char* key, bool required, std::size_t max = kMaxNameBytes) const {
    const auto it = v_.find(key);
    if (it == v_.end() || it->is_null()) {
      if (required) fail(key, "missing");
      return {};
    }
    if (!it->is_string()) fail(key, "expected a string");
    if (required && it->get<std::string>().empty()) fail(key, "must not be empty");
    const std::size_t size = it->get_ref<const std::string&>().size();
    if (size > max) {
      fail(key, "a string of " + std::to_string(size) + " bytes, longer than the " + std::to_string(max) +
                    " bytes this field may have");
    }
    return it->get<std::string>();
  }
  bool flag(const char* key) const {
    const auto it = v_.find(key);
    if (it == v_.end()) return false;
    if (!it->is_boolean()) fail(key, "expected true or false");
    return it->get<bool>();
  }
  std::string time(const char* key, bool required) const {
    const std::string t = text(key, required);
    if (t.empty()) return t;
    const auto n = normalize_timestamp(t);
    if (!n) fail(key, "expected a timestamp like 2026-11-01T02:00:00Z, got \"" + t + "\"");
    return *n;
  }
  Params params() const {
    const auto it = v_.find("params");
    if (it == v_.end()) return {};
    if (!it->is_object()) fail("params", "expected an object");
    return params_from_json(it->dump());
  }

 private:
  const ojson& v_;
  std::string path_;
  const std::string& source_;
};

Acknowledgement ack_from(const Fields& f) {
  Acknowledgement a;
  a.uuid = f.text("uuid", true);
  a.fingerprint = f.text("machine", true);
  a.instance = BenchmarkInstance{f.text("benchmark", true, kMaxBenchmarkBytes), f.params()};
  a.metric = f.text("metric", true);
  a.run_uuid = f.text("run", true);
  a.commit = f.text("commit", false);
  a.reason = f.text("reason", true, kMaxTextBytes);
  a.link = f.text("link", false, kMaxTextBytes);
  a.by = f.text("by", false);
  a.at = f.time("at", true);
  a.accepted = f.flag("accepted");
  a.undone = f.flag("undone");
  if (a.undone) {
    a.undone_by = f.text("undone_by", false);
    a.undone_at = f.time("undone_at", true);
  }
  return a;
}

Annotation note_from(const Fields& f) {
  Annotation n;
  n.uuid = f.text("uuid", true);
  n.text = f.text("text", true, kMaxTextBytes);
  n.by = f.text("by", false);
  n.at = f.time("at", true);
  n.run_uuid = f.text("run", false);
  n.commit = f.text("commit", false);
  n.night = f.text("night", false);
  if (!n.night.empty()) {
    if (const std::string bad = rules::day(n.night); !bad.empty()) f.fail("night", bad + " (UTC)");
    n.fingerprint = f.text("machine", true);
  }
  if (n.run_uuid.empty() + n.commit.empty() + n.night.empty() != 2) {
    f.fail("", "an annotation names exactly one of \"run\", \"commit\" or \"night\" (with \"machine\")");
  }
  return n;
}

}  // namespace

Answers answers_from_json(const ojson* acks, const ojson* notes, const std::string& source) {
  Answers out;
  for (const auto& [arr, key] : {std::pair{acks, "acknowledgements"}, std::pair{notes, "annotations"}}) {
    if (arr == nullptr || arr->is_null()) continue;
    if (!arr->is_array()) throw InputError(source + ": " + key + ": expected an array");
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const Fields f((*arr)[i], std::string(key) + "[" + std::to_string(i) + "]", source);
      if (arr == acks) {
        out.acks.push_back(ack_from(f));
      } else {
        out.notes.push_back(note_from(f));
      }
    }
  }
  return out;
}

}  // namespace gpuperf::db
