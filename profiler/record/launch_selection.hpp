// Which launches `record --metrics` may profile and instrument, decided inside the program, and which launches
// `record` stores (aggregate.hpp, SelectOptions): one rule, this class, in both binaries. --kernel-regex searched in
// the identity's kernel name,
// --nvtx-include in the launch's NVTX path, then --launch-skip N and --launch-count N over the launches both
// match, in the order the process makes them (Nsight Compute's -k, --nvtx-include, --launch-skip, --launch-count).
// Among the admitted launches each identity's first --profile-launches are profiled, as before. A launch left out
// is traced like any other, never profiled or instrumented, and spends no budget; the library writes an "e" line
// the first time it leaves a kernel out, so `record` says which kernels the selection kept out of profiling.
// Plain C++, tested without a GPU (tests/record/test_launch_selection.cpp).
//
// The storage counts --launch-skip/--launch-count over every process's launches in the order of their calls and over
// the kernels of graph launches too; the library counts its own process's launch calls. They agree for a program of one
// process without graphs.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>

#include "profiler/record/kernel_naming.hpp"

namespace gpuperf::record {

class LaunchSelection {
 public:
  // Throws InputError naming the option for a pattern that does not compile (the recorder refuses such patterns
  // before the program starts, so the library does not meet one).
  LaunchSelection(const std::string& kernel_regex, const std::string& nvtx_include, std::uint64_t launch_skip,
                  std::optional<std::uint64_t> launch_count, KernelNaming naming = KernelNaming::demangled);

  // Whether any selection was asked (else every launch is admitted and nothing is counted).
  bool active() const { return active_; }

  // One launch, in the process's order: its kernel's mangled name, the id of its NVTX path (0: none) and that
  // path (asked only the first time the id is seen). True when it is selected; counts it.
  bool admit(std::string_view symbol, std::uint64_t range_id, const std::function<std::string()>& path);

  // Whether `symbol` was left out before, marking it now: the caller says so once per kernel.
  bool first_exclusion(const std::string& symbol);

 private:
  bool active_ = false;
  bool by_kernel_ = false, by_nvtx_ = false;
  std::regex kernel_re_, nvtx_re_;
  std::uint64_t skip_ = 0;
  std::optional<std::uint64_t> count_;
  KernelNaming naming_;
  std::uint64_t matched_ = 0;                              // launches both regexes matched so far
  std::map<std::string, bool, std::less<>> kernel_match_;  // per mangled name
  std::map<std::uint64_t, bool> nvtx_match_;               // per NVTX path id
  std::map<std::string, bool> told_;                       // kernels an "e" line named
};

}  // namespace gpuperf::record
