#include "core/environment.hpp"

#include "core/errors.hpp"

namespace gpuperf::env {
namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The prefix whose keys are compared as a set (libraries, frameworks), or nullptr for a machine key.
const char* set_prefix(const std::string& key) {
  if (starts_with(key, kLibraryPrefix)) return kLibraryPrefix;
  if (starts_with(key, kFrameworkPrefix)) return kFrameworkPrefix;
  return nullptr;
}

bool has_prefix(const std::map<std::string, std::string>& m, const char* prefix) {
  auto it = m.lower_bound(prefix);
  return it != m.end() && starts_with(it->first, prefix);
}

}  // namespace

std::map<std::string, std::string> effective(const Run& run) {
  std::map<std::string, std::string> out = run.environment;
  if (!run.machine.driver.empty()) out.emplace(kDriver, run.machine.driver);
  if (!run.machine.cuda.empty()) out.emplace(kCudaRuntime, run.machine.cuda);
  return out;
}

std::vector<Change> changes(const std::map<std::string, std::string>& before,
                            const std::map<std::string, std::string>& after) {
  std::map<std::string, Change> found;
  for (const auto& [k, v] : before) {
    auto it = after.find(k);
    if (it != after.end()) {
      if (it->second != v) found[k] = {k, v, it->second};
    } else if (const char* p = set_prefix(k); p && has_prefix(after, p)) {
      found[k] = {k, v, ""};
    }
  }
  for (const auto& [k, v] : after) {
    if (before.count(k) != 0) continue;
    if (const char* p = set_prefix(k); p && has_prefix(before, p)) found[k] = {k, "", v};
  }
  std::vector<Change> out;
  for (auto& [k, c] : found) out.push_back(std::move(c));
  return out;
}

std::string describe(const Change& c) {
  auto shown = [](const std::string& v) { return v.empty() ? std::string("(none)") : v; };
  return c.key + " " + shown(c.before) + " -> " + shown(c.after);
}

std::string describe(const std::vector<Change>& cs) {
  std::string out;
  for (const Change& c : cs) out += (out.empty() ? "" : ", ") + describe(c);
  return out;
}

std::pair<std::string, std::string> parse_assignment(const std::string& text, const std::string& where) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError(where + ": expected KEY=VALUE (e.g. torch=2.5.1), got '" + text + "'");
  }
  std::string key = text.substr(0, eq);
  if (!set_prefix(key)) key = kFrameworkPrefix + key;
  return {key, text.substr(eq + 1)};
}

}  // namespace gpuperf::env
