#include "profiler/record/loaded_libraries.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <system_error>

namespace gpuperf::record {
namespace {

namespace fs = std::filesystem;

// File-name stems ("libcublasLt") and their short names, longest first where one is a prefix of another.
struct Noted {
  const char* stem;
  const char* name;
};
constexpr Noted kNoted[] = {
    {"libcublasLt", "cublaslt"}, {"libcublas", "cublas"},       {"libcudnn", "cudnn"},
    {"libnccl", "nccl"},         {"libcufft", "cufft"},         {"libcusparse", "cusparse"},
    {"libcurand", "curand"},     {"libcusolver", "cusolver"},   {"libnvrtc", "nvrtc"},
    {"libcudart", "cudart"},     {"libnvJitLink", "nvjitlink"}, {"libcuda", "cuda"},
    {"libtorch_cuda", "torch"},
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The version of a wheel's dist-info folder in `site` named "nvidia_<name>[_cuNN]-<version>.dist-info".
std::string wheel_version(const fs::path& site, const std::string& name) {
  std::error_code ec;
  for (fs::directory_iterator it(site, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name_as_given = it->path().filename().string();
    const std::string dir = lower(name_as_given);
    constexpr std::string_view kSuffix = ".dist-info";
    if (dir.size() <= kSuffix.size() || dir.compare(dir.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
      continue;
    const std::string stem = dir.substr(0, dir.size() - kSuffix.size());  // "nvidia_cublas_cu12-12.8.4.1"
    const std::string prefix = "nvidia_" + name;
    const std::size_t dash = stem.rfind('-');
    if (stem.rfind(prefix, 0) != 0 || dash == std::string::npos || dash < prefix.size()) continue;
    const std::string rest = stem.substr(prefix.size(), dash - prefix.size());  // "" or "_cu12"
    if (!rest.empty() && rest.rfind("_cu", 0) != 0) continue;                   // nvidia_cublas_lt is not cublas
    return name_as_given.substr(dash + 1, stem.size() - dash - 1);
  }
  return "";
}

// PyTorch's __version__ from torch/version.py beside torch/lib/.
std::string torch_version(const fs::path& lib_file) {
  std::ifstream in(lib_file.parent_path().parent_path() / "version.py");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("__version__", 0) != 0) continue;
    const std::size_t a = line.find_first_of("'\"");
    const std::size_t b = a == std::string::npos ? a : line.find(line[a], a + 1);
    if (b != std::string::npos) return line.substr(a + 1, b - a - 1);
  }
  return "";
}

// The most precise version of one loaded file.
std::string version_of(const std::string& path, const std::string& name) {
  if (name == "torch") return torch_version(path);
  const fs::path p(path);
  // site-packages/nvidia/<package>/lib/<file>: the wheel's metadata sits in site-packages.
  for (fs::path dir = p.parent_path(); dir.has_relative_path(); dir = dir.parent_path()) {
    if (dir.filename() != "nvidia") continue;
    const std::string wheel = wheel_version(dir.parent_path(), name == "cublaslt" ? "cublas" : name);
    if (!wheel.empty()) return wheel;
    break;
  }
  return soname_version(path);
}

}  // namespace

std::string noted_library(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (const Noted& n : kNoted) {
    const std::string_view stem = n.stem;
    if (file.substr(0, stem.size()) != stem) continue;
    const std::string_view after = file.substr(stem.size());
    // "libcudnn.so.9", "libcudnn_graph.so.9" (cuDNN's parts), "libcublasLt.so.13"; not "libcudart_static.a".
    if (after.rfind(".so", 0) == 0 ||
        (std::string(n.name) == "cudnn" && after.rfind("_", 0) == 0 && after.find(".so") != std::string_view::npos)) {
      return n.name;
    }
  }
  return "";
}

std::vector<std::string> noted_libraries_in_maps(std::string_view maps) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::istringstream in{std::string(maps)};
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash);
    if (path.size() > 10 && path.compare(path.size() - 10, 10, " (deleted)") == 0) path.resize(path.size() - 10);
    if (noted_library(path).empty() || !seen.insert(path).second) continue;
    out.push_back(std::move(path));
  }
  return out;
}

std::string soname_version(std::string_view path) {
  const std::size_t so = path.rfind(".so.");
  if (so == std::string_view::npos) return "";
  return std::string(path.substr(so + 4));
}

std::map<std::string, std::string> library_versions(const std::vector<std::string>& paths) {
  std::map<std::string, std::string> out;
  for (const std::string& path : paths) {
    const std::string name = noted_library(path);
    if (name.empty()) continue;
    const std::string key = (name == "torch" ? "framework." : "lib.") + name;
    std::string version = version_of(path, name);
    if (version.empty()) version = "loaded";
    std::string& slot = out[key];
    // Several files of one library (cuDNN's parts): the longest version string is the most precise.
    if (slot.empty() || slot == "loaded" || (version != "loaded" && version.size() > slot.size())) slot = version;
  }
  return out;
}

}  // namespace gpuperf::record
