#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "core/errors.hpp"
#include "core/result.hpp"

namespace gpuperf {
namespace {

TEST(Params, CanonicalKeyAndJsonAreSortedByName) {
  Params p{{"tile", std::int64_t{16}}, {"n", std::int64_t{1024}}, {"layout", std::string("col")}};
  EXPECT_EQ(params_key(p), "layout=col,n=1024,tile=16");
  EXPECT_EQ(params_json(p), R"({"layout":"col","n":1024,"tile":16})");
  EXPECT_EQ(params_from_json(params_json(p)), p);
}

TEST(Params, RejectsNestedValues) {
  EXPECT_THROW(params_from_json(R"({"n":[1,2]})"), InputError);
  EXPECT_THROW(params_from_json("[1]"), InputError);
  EXPECT_THROW(params_from_json("{"), InputError);
}

TEST(Instance, DisplayName) {
  BenchmarkInstance tiled{"matmul/tiled", {{"n", std::int64_t{1024}}, {"tile", std::int64_t{16}}}};
  EXPECT_EQ(tiled.display_name(), "matmul/tiled[n=1024,tile=16]");
  BenchmarkInstance plain{"vector_add/basic", {}};
  EXPECT_EQ(plain.display_name(), "vector_add/basic");
}

TEST(Status, RoundTripAndUnknown) {
  for (Status s : {Status::ok, Status::incorrect, Status::failed, Status::unsupported, Status::skipped}) {
    EXPECT_EQ(status_from_string(to_string(s)), s);
  }
  EXPECT_THROW(status_from_string("fine"), InputError);
}

TEST(Uuid, IsVersion4AndUnique) {
  const std::regex v4("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    std::string u = make_uuid();
    EXPECT_TRUE(std::regex_match(u, v4)) << u;
    seen.insert(u);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(Machine, FingerprintPrefersGpuUuid) {
  Machine m;
  m.hostname = "node1";
  m.gpu_name = "NVIDIA H200";
  EXPECT_EQ(m.fingerprint(), "node1/NVIDIA H200");
  m.gpu_uuid = "GPU-1234";
  EXPECT_EQ(m.fingerprint(), "GPU-1234");
}

}  // namespace
}  // namespace gpuperf

namespace gpuperf {
namespace {

TEST(Uuid, KeyedUuidIsStableVersion8AndKeySensitive) {
  const std::regex v8("^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  const std::string a = keyed_uuid("nightly/2026-11-22/abc123\nGPU-1111");
  EXPECT_TRUE(std::regex_match(a, v8)) << a;
  EXPECT_EQ(a, keyed_uuid("nightly/2026-11-22/abc123\nGPU-1111"));
  EXPECT_NE(a, keyed_uuid("nightly/2026-11-22/abc123\nGPU-2222"));
  EXPECT_NE(a, keyed_uuid("nightly/2026-11-23/abc123\nGPU-1111"));
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(keyed_uuid("key-" + std::to_string(i)));
  EXPECT_EQ(seen.size(), 1000u);
}

// One name for a machine in every command's output: hostname, GPU, the start of the GPU UUID.
TEST(MachineName, HostGpuAndTheStartOfItsUuid) {
  Machine m;
  m.hostname = "node1";
  m.gpu_name = "NVIDIA H200";
  m.gpu_uuid = "GPU-4fc4ff4a-a568-0c56-d6b1-656acd4010e7";
  EXPECT_EQ(machine_name(m), "node1 (NVIDIA H200, GPU-4fc4ff4a)");
  m.hostname.clear();
  EXPECT_EQ(machine_name(m), "NVIDIA H200 (GPU-4fc4ff4a)");
  m.hostname = "node1";
  m.gpu_uuid.clear();  // the fingerprint is then hostname/GPU name: nothing more to say
  EXPECT_EQ(machine_name(m), "node1 (NVIDIA H200)");
  EXPECT_EQ(machine_name("", "", "GPU-4fc4ff4a-a568"), "GPU-4fc4ff4a");
  EXPECT_EQ(machine_name("", "", "odd-fingerprint"), "odd-fingerprint");
}

}  // namespace
}  // namespace gpuperf
