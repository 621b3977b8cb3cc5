// open_backend_module, the one opener of the CUPTI back end for the collector and `gpuperf record`'s
// injection library: the real module opens; a file that is no library, a library that is not gpuperf's
// back end and a back end of another ABI version are each refused in words, without throwing.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "profiler/cupti/backend_module.hpp"

namespace gpuperf::cupti {
namespace {

::testing::AssertionResult refused_with(const OpenedBackend& o, const std::string& words) {
  if (o.factory != nullptr) return ::testing::AssertionFailure() << "opened, expected a refusal";
  if (o.error.find(words) == std::string::npos) {
    return ::testing::AssertionFailure() << "error '" << o.error << "' does not say '" << words << "'";
  }
  return ::testing::AssertionSuccess();
}

TEST(BackendModule, TheRealModuleOpensAndGivesItsFactory) {
  const OpenedBackend o = open_backend_module(GPUPERF_REAL_MODULE);
  EXPECT_NE(o.factory, nullptr) << o.error;
  EXPECT_EQ(o.error, "");
}

TEST(BackendModule, AFileThatIsNoLibraryIsRefusedWithTheLoadersReason) {
  const auto path = std::filesystem::temp_directory_path() / "gpuperf-not-a-module.so";
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("not an ELF file\n", f);
  std::fclose(f);
  const OpenedBackend o = open_backend_module(path.string());
  EXPECT_TRUE(refused_with(o, "cannot load the CUPTI back end " + path.string() + ": "));
  std::filesystem::remove(path);
}

TEST(BackendModule, ALibraryWithoutTheFactoryIsNotGpuperfsBackEnd) {
  EXPECT_TRUE(refused_with(
      open_backend_module(GPUPERF_UNRELATED_MODULE),
      std::string(GPUPERF_UNRELATED_MODULE) + " is not gpuperf's CUPTI back end (no " + kBackendFactorySymbol + ")"));
}

TEST(BackendModule, ABackEndOfAnotherAbiVersionSaysRebuild) {
  EXPECT_TRUE(refused_with(open_backend_module(GPUPERF_OTHER_ABI_MODULE),
                           "was built from another gpuperf version (back-end ABI mismatch); rebuild gpuperf"));
}

}  // namespace
}  // namespace gpuperf::cupti
