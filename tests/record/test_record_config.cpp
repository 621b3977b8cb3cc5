// `gpuperf record`'s configuration across the process seam (profiler/record/record_config.hpp): what the recorder
// writes into the program's environment is what the injection library reads back.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "profiler/record/record_config.hpp"

namespace gpuperf::record {
namespace {

RecordConfig every_field_set() {
  RecordConfig c;
  c.dir = "/tmp/records dir";
  c.nvtx = false;
  c.metrics = {"dram__bytes_read.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed"};
  c.metrics_triage = {"dram__bytes_read.sum", "TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed"};
  c.cupti_module = "/opt/gpuperf/lib/libgpuperf_cupti.so";
  c.profile_launches = 5;
  c.profile_budget = 0;
  c.profile_ms = 12000;
  c.profile_watchdog_ms = 0;
  c.profile_groups = 1;
  c.replay = ReplayChoice::one_pass;
  c.source_lines = true;
  c.communication_kernels = {"peer_exchange, of a kind", "my_allreduce"};
  c.kernel_regex = "nvjet|gemm=x";  // '=' in a value
  c.nvtx_include = "step/.*";
  c.launch_skip = 2;
  c.launch_count = 7;
  c.kernel_name = KernelNaming::function;
  c.flush_ms = 0;
  c.overhead_ab = "nvtx,write";
  c.nvtx_trace = true;
  c.profile_trace = true;
  c.profile_keep = false;
  c.lines_flush = "exit";
  c.communication_wait_ms = 250;
  c.pm_sampling = true;
  c.pm_nvtx = "train step";  // a space in a range name
  c.pm_launch_skip = 40;
  c.pm_launch_count = 12;
  c.pm_interval_ns = 2000;
  c.pm_buffer_bytes = 512ull << 20;
  c.pm_max_samples = 4096;
  return c;
}

void expect_same(const RecordConfig& a, const RecordConfig& b) {
  EXPECT_EQ(a.to_text(), b.to_text());
  EXPECT_EQ(a.dir, b.dir);
  EXPECT_EQ(a.nvtx, b.nvtx);
  EXPECT_EQ(a.metrics, b.metrics);
  EXPECT_EQ(a.metrics_triage, b.metrics_triage);
  EXPECT_EQ(a.communication_kernels, b.communication_kernels);
  EXPECT_EQ(a.kernel_regex, b.kernel_regex);
  EXPECT_EQ(a.launch_count, b.launch_count);
  EXPECT_EQ(a.kernel_name, b.kernel_name);
  EXPECT_EQ(a.profile_keep, b.profile_keep);
  EXPECT_EQ(a.communication_wait_ms, b.communication_wait_ms);
  EXPECT_EQ(a.replay, b.replay);
  EXPECT_EQ(a.pm_sampling, b.pm_sampling);
  EXPECT_EQ(a.pm_nvtx, b.pm_nvtx);
  EXPECT_EQ(a.pm_launch_skip, b.pm_launch_skip);
  EXPECT_EQ(a.pm_launch_count, b.pm_launch_count);
  EXPECT_EQ(a.pm_interval_ns, b.pm_interval_ns);
  EXPECT_EQ(a.pm_buffer_bytes, b.pm_buffer_bytes);
  EXPECT_EQ(a.pm_max_samples, b.pm_max_samples);
}

TEST(RecordConfig, TheTextGivesTheSameConfigurationBack) {
  for (const RecordConfig& c : {RecordConfig{}, every_field_set()}) {
    RecordConfig back;
    std::string error;
    ASSERT_TRUE(back.parse(c.to_text(), &error)) << error;
    expect_same(c, back);
  }
}

TEST(RecordConfig, TheEnvironmentTheRecorderWritesIsWhatTheLibraryReads) {
  const RecordConfig c = every_field_set();
  std::map<std::string, std::string> env;
  for (const auto& [k, v] : c.environment()) env[k] = v;
  ASSERT_EQ(env.size(), 1u);  // one variable
  const auto lookup = [&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  std::string error;
  expect_same(c, config_from_environment(lookup, &error));
  EXPECT_EQ(error, "");
}

// A user's own variable for a diagnostic (GPUPERF_RECORD_PROFILE_TRACE=1 in `gpuperf record`'s environment) wins;
// one for a setting the recorder decides (the metrics, the budgets) does not, so a stale one cannot change a run.
TEST(RecordConfig, OnlyDiagnosticVariablesOverrideTheRecordersConfiguration) {
  RecordConfig c;
  c.dir = "/records";
  c.profile_launches = 3;
  std::map<std::string, std::string> env = {{kRecordConfigVariable, c.to_text()},
                                            {"GPUPERF_RECORD_PROFILE_TRACE", "1"},
                                            {"GPUPERF_RECORD_PROFILE_KEEP", "0"},
                                            {"GPUPERF_RECORD_PROFILE_LAUNCHES", "9"},
                                            {"GPUPERF_RECORD_DIR", "/elsewhere"}};
  const auto lookup = [&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  const RecordConfig read = config_from_environment(lookup, nullptr);
  EXPECT_TRUE(read.profile_trace);
  EXPECT_EQ(read.profile_keep, std::optional<bool>(false));
  EXPECT_EQ(read.profile_launches, 3u);
  EXPECT_EQ(read.dir, "/records");
  // Without GPUPERF_RECORD_CONFIG (the library loaded by a test): every key's own variable.
  env.erase(kRecordConfigVariable);
  const RecordConfig alone = config_from_environment(lookup, nullptr);
  EXPECT_EQ(alone.profile_launches, 9u);
  EXPECT_EQ(alone.dir, "/elsewhere");
}

TEST(RecordConfig, ALineThatDoesNotParseIsNamed) {
  RecordConfig c;
  std::string error;
  EXPECT_FALSE(c.parse("dir=/x\nprofile_launches=three\n", &error));
  EXPECT_NE(error.find("line 2 'profile_launches=three'"), std::string::npos) << error;
  EXPECT_FALSE(c.parse("no_such_key=1", &error));
  EXPECT_NE(error.find("not key=value of a known key"), std::string::npos) << error;
  EXPECT_FALSE(c.parse("profile_replay=sometimes", &error));
  EXPECT_FALSE(c.parse("kernel_name=pretty", &error));  // the word --kernel-name takes, nothing else
  EXPECT_NE(error.find("'kernel_name=pretty'"), std::string::npos) << error;
  std::string env_error;
  const auto lookup = [](const char* name) -> const char* {
    return std::string(name) == "GPUPERF_RECORD_FLUSH_MS" ? "soon" : nullptr;
  };
  config_from_environment(lookup, &env_error);
  EXPECT_EQ(env_error, "GPUPERF_RECORD_FLUSH_MS='soon' does not parse");
}

}  // namespace
}  // namespace gpuperf::record
