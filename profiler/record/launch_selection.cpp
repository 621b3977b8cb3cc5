#include "profiler/record/launch_selection.hpp"

#include "core/errors.hpp"

namespace gpuperf::record {
namespace {

std::regex compile(const std::string& pattern, const char* option) {
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw InputError(std::string(option) + " '" + pattern + "' is not a valid regular expression: " + e.what());
  }
}

}  // namespace

LaunchSelection::LaunchSelection(const std::string& kernel_regex, const std::string& nvtx_include,
                                 std::uint64_t launch_skip, std::optional<std::uint64_t> launch_count,
                                 KernelNaming naming)
    : by_kernel_(!kernel_regex.empty()),
      by_nvtx_(!nvtx_include.empty()),
      skip_(launch_skip),
      count_(launch_count),
      naming_(naming) {
  if (by_kernel_) kernel_re_ = compile(kernel_regex, "--kernel-regex");
  if (by_nvtx_) nvtx_re_ = compile(nvtx_include, "--nvtx-include");
  active_ = by_kernel_ || by_nvtx_ || skip_ > 0 || count_.has_value();
}

bool LaunchSelection::admit(std::string_view symbol, std::uint64_t range_id, const std::function<std::string()>& path) {
  if (!active_) return true;
  if (by_kernel_) {
    auto it = kernel_match_.find(symbol);
    if (it == kernel_match_.end()) {
      const std::string mangled(symbol);
      it = kernel_match_.emplace(mangled, std::regex_search(kernel_name(mangled, naming_), kernel_re_)).first;
    }
    if (!it->second) return false;
  }
  if (by_nvtx_) {
    auto [it, fresh] = nvtx_match_.try_emplace(range_id, false);
    if (fresh) {
      const std::string p = range_id == 0 ? std::string() : path();
      it->second = std::regex_search(p, nvtx_re_);
    }
    if (!it->second) return false;
  }
  const std::uint64_t position = matched_++;
  if (position < skip_) return false;
  return !count_ || position - skip_ < *count_;
}

bool LaunchSelection::first_exclusion(const std::string& symbol) { return told_.emplace(symbol, true).second; }

}  // namespace gpuperf::record
