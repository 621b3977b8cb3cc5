#include "core/source_roots.hpp"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>

namespace gpuperf {
namespace {

struct Sources {
  std::mutex mutex;
  std::vector<std::string> roots;
  std::map<std::string, std::vector<std::string>> texts;
};

Sources& sources() {
  static Sources* s = new Sources;  // never destroyed: read by whatever runs during exit
  return *s;
}

// "/a/b/" and "/a/b" alike; "" stays "".
std::string without_trailing_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

void add_source_root(const std::string& root) {
  if (root.empty() || root.front() != '/') return;
  Sources& s = sources();
  std::lock_guard<std::mutex> lock(s.mutex);
  const std::string r = without_trailing_slash(root);
  for (const std::string& have : s.roots) {
    if (have == r) return;
  }
  s.roots.push_back(r);
}

std::vector<std::string> source_roots() {
  std::vector<std::string> out;
  if (gpuperf_project_source_root != nullptr) {
    const char* project = gpuperf_project_source_root();
    if (project != nullptr && *project == '/') out.push_back(without_trailing_slash(project));
  }
  if (const char* env = std::getenv("GPUPERF_SOURCE_ROOT"); env != nullptr && *env == '/') {
    out.push_back(without_trailing_slash(env));
  }
  Sources& s = sources();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (const std::string& r : s.roots) out.push_back(r);
  return out;
}

std::string root_relative(const std::string& given) {
  // Lexically, as the path is written: a compiler given "../../kernels/x.cu" from build/kernels records
  // "<root>/build/kernels/../../kernels/x.cu", which is "<root>/kernels/x.cu" (the file need not exist here).
  const std::string path = given.empty() ? given : std::filesystem::path(given).lexically_normal().string();
  std::string best;
  std::size_t best_length = 0;
  for (const std::string& root : source_roots()) {
    const std::string prefix = root == "/" ? root : root + "/";
    if (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 && prefix.size() > best_length) {
      best = path.substr(prefix.size());
      best_length = prefix.size();
    }
  }
  return best;
}

void add_embedded_source(const std::string& relative_path, std::string_view text) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  Sources& s = sources();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.texts[relative_path] = std::move(lines);
}

const std::vector<std::string>* embedded_source(const std::string& relative_path) {
  Sources& s = sources();
  std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.texts.find(relative_path);
  return it == s.texts.end() ? nullptr : &it->second;  // entries are never erased: the pointer stays valid
}

}  // namespace gpuperf
