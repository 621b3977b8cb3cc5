#include "core/function_key.hpp"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <memory>
#include <regex>

namespace gpuperf {
namespace {

bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// In `id` = "<8 hex>_<n>_<file, n chars>_<rest>" (what follows nvcc's "_GLOBAL__N__" or "_INTERNAL_"): the
// file part, or "" when `id` has another form.
std::string file_part(const std::string& id) {
  std::size_t at = 0;
  while (at < id.size() && std::isxdigit(static_cast<unsigned char>(id[at])) != 0) ++at;
  if (at == 0 || at >= id.size() || id[at] != '_') return "";
  std::size_t n_end = ++at;
  while (n_end < id.size() && digit(id[n_end])) ++n_end;
  if (n_end == at || n_end >= id.size() || id[n_end] != '_') return "";
  const std::size_t n = std::stoul(id.substr(at, n_end - at));
  if (n_end + 1 + n > id.size()) return "";
  return id.substr(n_end + 1, n);
}

// Every "<length><identifier>" whose identifier begins with `prefix` rewritten as "<length>[file]" ("[poly_cu]"
// reads as a namespace once demangled). Identifiers are found by their length prefix, so the hashes and
// names inside them never leak into the rest.
std::string replace_identifiers(const std::string& name, const std::string& prefix) {
  std::string out;
  std::size_t i = 0;
  while (i < name.size()) {
    const std::size_t hit = name.find(prefix, i);
    if (hit == std::string::npos) break;
    std::size_t d = hit;
    while (d > i && digit(name[d - 1])) --d;
    bool done = false;
    // The length prefix is the longest digit run before the identifier that names exactly its length and
    // fits; digits before it belong to something else (a template argument, a substitution).
    for (std::size_t start = d; start < hit && !done; ++start) {
      const std::size_t len = std::stoul(name.substr(start, hit - start));
      if (hit + len > name.size() || len <= prefix.size()) continue;
      const std::string file = file_part(name.substr(hit + prefix.size(), len - prefix.size()));
      if (file.empty()) continue;
      const std::string id = "[" + file + "]";
      out += name.substr(i, start - i) + std::to_string(id.size()) + id;
      i = hit + len;
      done = true;
    }
    if (!done) {
      out += name.substr(i, hit + prefix.size() - i);
      i = hit + prefix.size();
    }
  }
  return out + name.substr(i);
}

// "__nv_static_<n>_<n chars: _<hash>_<len>_<file>_<rest>>_<mangled>" (a static function under -rdc): the
// mangled name alone, as the same function is named without -rdc.
void strip_nv_static(std::string& name) {
  static const std::string kStatic = "__nv_static_";
  if (name.compare(0, kStatic.size(), kStatic) != 0) return;
  std::size_t d = kStatic.size();
  while (d < name.size() && digit(name[d])) ++d;
  if (d == kStatic.size() || d >= name.size() || name[d] != '_') return;
  const std::size_t rest = d + 1 + std::stoul(name.substr(kStatic.size(), d - kStatic.size()));
  if (rest + 1 < name.size() && name[rest] == '_') name = name.substr(rest + 1);
}

std::string demangle(const std::string& mangled) {
  if (mangled.compare(0, 2, "_Z") != 0) return mangled;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                             std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

}  // namespace

std::string function_key(const std::string& function) {
  std::string name = function;
  strip_nv_static(name);
  name = replace_identifiers(name, "_GLOBAL__N__");
  name = replace_identifiers(name, "_INTERNAL_");
  const std::string key = demangle(name);
  // Closure and unnamed types are numbered in their scope's order: "{lambda(float)#2}" -> "{lambda(float)}".
  static const std::regex kNumbered(R"((\{(?:lambda\([^{}]*\)|unnamed type))#[0-9]+\})");
  return std::regex_replace(key, kNumbered, "$1}");
}

}  // namespace gpuperf
