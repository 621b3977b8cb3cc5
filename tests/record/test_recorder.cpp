// The recorder's checks before anything runs (profiler/record/recorder.hpp), without a GPU: each bad option
// is refused with InputError naming it, the program is never started, and the metrics a program's kernels
// cannot give are told through `note`.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "profiler/record/recorder.hpp"

namespace gpuperf::record {
namespace {

// The InputError's message, or "" when `f` throws nothing.
template <typename F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

RecordOptions options_for(std::vector<std::string> command) {
  RecordOptions o;
  o.command = std::move(command);
  return o;
}

TEST(Recorder, AcceptsAProgramOnThePathWithDefaults) { EXPECT_NO_THROW(check_record_options(options_for({"true"}))); }

TEST(Recorder, RefusesEachBadOptionNamingIt) {
  EXPECT_NE(input_error([] { check_record_options(options_for({})); }).find("no program given"), std::string::npos);

  RecordOptions o = options_for({"true"});
  o.select.max_samples = 0;
  EXPECT_NE(input_error([&] { check_record_options(o); }).find("--max-samples must be at least 1"), std::string::npos);

  o = options_for({"/no/such/program"});
  EXPECT_NE(input_error([&] { check_record_options(o); }).find("does not exist"), std::string::npos);

  o = options_for({"true"});
  o.select.kernel_regex = "(";
  EXPECT_NE(input_error([&] { check_record_options(o); }).find("not a valid regular expression"), std::string::npos);
  o = options_for({"true"});
  o.select.nvtx_include = "[";
  EXPECT_NE(input_error([&] { check_record_options(o); }).find("not a valid regular expression"), std::string::npos);

  o = options_for({"true"});
  o.metrics = "default";
  EXPECT_NO_THROW(check_record_options(o));
  o.profile_launches = 0;
  EXPECT_NE(input_error([&] { check_record_options(o); }).find("--profile-launches must be at least 1"),
            std::string::npos);
  o.profile_launches = 0;
  o.metrics = "none";  // --profile-launches matters only with --metrics
  EXPECT_NO_THROW(check_record_options(o));
}

TEST(Recorder, MetricsOfTheKernelFunctionAreToldAndAloneRefused) {
  RecordOptions o = options_for({"true"});
  o.metrics = "registers,local_bytes";
  std::vector<std::string> notes;
  o.note = [&](const std::string& n) { notes.push_back(n); };
  const std::string error = input_error([&] { check_record_options(o); });
  EXPECT_NE(error.find("--metrics 'registers,local_bytes' names no hardware metric"), std::string::npos) << error;
  EXPECT_TRUE(notes.empty());  // checking says nothing; recording says what it leaves out

  // record_program refuses the same before the program runs (it would create the file), after the note.
  const auto marker = std::filesystem::temp_directory_path() / "gpuperf-recorder-test-ran";
  std::filesystem::remove(marker);
  o.command = {"touch", marker.string()};
  EXPECT_NE(input_error([&] { record_program(o); }).find("names no hardware metric"), std::string::npos);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("not recorded for a program's kernels"), std::string::npos);
  EXPECT_NE(notes[0].find("registers, local_bytes"), std::string::npos) << notes[0];
  EXPECT_FALSE(std::filesystem::exists(marker));
}

}  // namespace
}  // namespace gpuperf::record
