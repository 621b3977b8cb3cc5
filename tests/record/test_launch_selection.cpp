// The selection inside the recorded program (profiler/record/launch_selection.hpp): which launches the injection
// library may profile and instrument, by the rules `record` stores launches by (aggregate.hpp), so an excluded
// kernel spends no profiling budget. The library's calls as it makes them, with fake launches (no GPU).
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/errors.hpp"
#include "profiler/record/launch_selection.hpp"

namespace gpuperf::record {
namespace {

const std::string kGemm = "_Z11gemm_kernelPfS_S_i";  // gemm_kernel(float*, float*, float*, int)
const std::string kCopy = "_Z4copyPfS_";
const auto no_path = [] { return std::string(); };

// Which of `launches` (symbol, NVTX path id) the selection admits, in order; paths: id 1 "step/fwd", 2 "warmup".
std::vector<bool> admitted(LaunchSelection& s, const std::vector<std::pair<std::string, std::uint64_t>>& launches) {
  std::vector<bool> out;
  for (const auto& [symbol, id] : launches) {
    out.push_back(s.admit(symbol, id, [id = id] { return std::string(id == 1 ? "step/fwd" : "warmup"); }));
  }
  return out;
}

TEST(LaunchSelection, WithoutOptionsEveryLaunchIsAdmitted) {
  LaunchSelection s("", "", 0, std::nullopt);
  EXPECT_FALSE(s.active());
  EXPECT_TRUE(s.admit(kGemm, 0, no_path));
}

TEST(LaunchSelection, KernelRegexSearchesTheDemangledNameAsTheIdentityHasIt) {
  LaunchSelection s("^gemm_kernel$|nvjet", "", 0, std::nullopt);
  EXPECT_TRUE(s.active());
  EXPECT_EQ(admitted(s, {{kGemm, 0}, {kCopy, 0}, {kGemm, 0}, {"nvjet_hsh_256x128", 0}}),
            (std::vector<bool>{true, false, true, true}));  // an extern "C" name stays as it is
  LaunchSelection mangled("^_Z11gemm", "", 0, std::nullopt, KernelNaming::mangled);
  EXPECT_TRUE(mangled.admit(kGemm, 0, no_path));
  EXPECT_FALSE(LaunchSelection("^_Z11gemm", "", 0, std::nullopt).admit(kGemm, 0, no_path));
}

TEST(LaunchSelection, NvtxIncludeSearchesThePathAndALaunchOutsideRangesHasAnEmptyOne) {
  LaunchSelection s("", "^step/", 0, std::nullopt);
  EXPECT_EQ(admitted(s, {{kGemm, 1}, {kGemm, 2}, {kGemm, 0}, {kCopy, 1}}),
            (std::vector<bool>{true, false, false, true}));
  int asked = 0;  // the path is built once an id, not once a launch
  LaunchSelection u("", "fwd", 0, std::nullopt);
  for (int i = 0; i < 3; ++i)
    u.admit(kGemm, 1, [&] {
      ++asked;
      return std::string("step/fwd");
    });
  EXPECT_EQ(asked, 1);
}

// Nsight Compute's meaning: skip the first N launches the filters match, then take at most M, in the order the
// program makes them (warm-up launches first: the profiled ones come after).
TEST(LaunchSelection, LaunchSkipAndCountCountTheMatchedLaunchesOnly) {
  LaunchSelection s("gemm", "", 2, 3);
  EXPECT_EQ(
      admitted(s, {{kGemm, 0}, {kCopy, 0}, {kGemm, 0}, {kGemm, 0}, {kCopy, 0}, {kGemm, 0}, {kGemm, 0}, {kGemm, 0}}),
      (std::vector<bool>{false, false, false, true, false, true, true, false}));
  LaunchSelection skip_only("", "", 1, std::nullopt);
  EXPECT_EQ(admitted(skip_only, {{kCopy, 0}, {kCopy, 0}, {kGemm, 0}}), (std::vector<bool>{false, true, true}));
}

TEST(LaunchSelection, AnExcludedKernelIsToldOnce) {
  LaunchSelection s("gemm", "", 0, std::nullopt);
  EXPECT_TRUE(s.first_exclusion(kCopy));
  EXPECT_FALSE(s.first_exclusion(kCopy));
  EXPECT_TRUE(s.first_exclusion("_Z5otherv"));
}

TEST(LaunchSelection, ABadPatternThrowsNamingTheOption) {
  try {
    LaunchSelection("gemm", "([", 0, std::nullopt);
    ADD_FAILURE() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--nvtx-include '([' is not a valid regular expression"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(LaunchSelection("([", "", 0, std::nullopt), InputError);
}

// The recorder's storage and the library's profiling choose with this one class: a kernel whose mangled name is
// met as a string_view (the record file's text) is matched as the same kernel met as a std::string.
TEST(LaunchSelection, AMangledNameSeenAsAViewIsTheSameKernel) {
  LaunchSelection s("^spin<4>$", "", 0, std::nullopt);
  const std::string spin4 = "_Z4spinILi4EEvPfi", spin2 = "_Z4spinILi2EEvPfi";
  EXPECT_TRUE(s.admit(std::string_view(spin4), 0, [] { return std::string(); }));
  EXPECT_FALSE(s.admit(spin2, 0, [] { return std::string(); }));
  EXPECT_TRUE(s.admit(spin4, 0, [] { return std::string(); }));
}

}  // namespace
}  // namespace gpuperf::record
