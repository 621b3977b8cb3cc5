#include <gtest/gtest.h>

#include <set>

#include "core/errors.hpp"
#include "kernels/benchmark.hpp"
#include "kernels/listing.hpp"

namespace gpuperf {
namespace {

// A factory for registry tests: never called.
std::unique_ptr<Workload> no_workload(const Params&, std::uint64_t) { return nullptr; }

Registry builtin() {
  Registry r;
  register_builtin_benchmarks(r);
  return r;
}

std::vector<std::string> names(const std::vector<InstanceRef>& refs) {
  std::vector<std::string> out;
  for (const auto& r : refs) out.push_back(r.instance().display_name());
  return out;
}

TEST(Registry, BuiltinSuiteHasEveryFamilyAndVariant) {
  const Registry r = builtin();
  for (const char* n :
       {"matmul/naive", "matmul/tiled", "memory/coalesced", "memory/strided", "memory/misaligned", "memory/broadcast",
        "memory/scattered", "stencil1d/global", "stencil1d/shared", "matvec/naive", "matvec/shared", "vector_add/add",
        "occupancy/block2d", "occupancy/register_heavy", "transpose/naive", "transpose/shared", "transpose/padded"}) {
    EXPECT_NE(r.find(n), nullptr) << n;
  }
  EXPECT_EQ(r.instances().size(), 33u);
}

TEST(Registry, RegisteringTheBuiltinsTwiceIsANoOp) {
  Registry r;
  register_builtin_benchmarks(r);
  const auto before = r.benchmarks().size();
  register_builtin_benchmarks(r);
  EXPECT_EQ(r.benchmarks().size(), before);
}

TEST(Registry, RefusedRegistrationsAreKeptNotThrownAndNameBothPlaces) {
  Registry r;
  BenchmarkBuilder& first = r.builder_at("lib/kernel", no_workload, "a.cu", 12);
  first.axis("n", {1});
  EXPECT_EQ(r.find("lib/kernel")->source, "a.cu:12");
  BenchmarkBuilder& again = r.builder_at("lib/kernel", no_workload, "b.cu", 7);
  again.axis("m", {1, 2}).description("the second one");  // edits a detached benchmark
  BenchmarkBuilder& bad = r.builder_at("no-slash", no_workload, "c.cu", 3);
  bad.axis("n", {1});
  ASSERT_EQ(r.registration_errors().size(), 2u);
  EXPECT_EQ(r.registration_errors()[0], "benchmark 'lib/kernel' is registered twice: at b.cu:7 and, first, at a.cu:12");
  EXPECT_EQ(r.registration_errors()[1], "c.cu:3: benchmark name 'no-slash' must have the form family/variant");
  ASSERT_EQ(r.benchmarks().size(), 1u);  // neither refused one is listed
  EXPECT_EQ(r.find("lib/kernel")->axes.size(), 1u);
  EXPECT_EQ(r.find("lib/kernel")->description, "");

  // A duplicate of a built-in says so.
  Registry with_builtins = builtin();
  with_builtins.builder_at("matmul/naive", no_workload, "mine.cu", 1);
  ASSERT_EQ(with_builtins.registration_errors().size(), 1u);
  EXPECT_NE(with_builtins.registration_errors()[0].find("first, at gpuperf's built-in suite"), std::string::npos);
}

TEST(Registry, AxesExpandAsACrossProductFirstAxisSlowest) {
  const Registry r = builtin();
  EXPECT_EQ(names(r.instances("^matmul/tiled")),
            (std::vector<std::string>{"matmul/tiled[n=1024,tile=16]", "matmul/tiled[n=1024,tile=32]",
                                      "matmul/tiled[n=1000,tile=16]", "matmul/tiled[n=1000,tile=32]"}));
  EXPECT_EQ(names(r.instances("memory/strided")).size(), 6u);
  EXPECT_EQ(names(r.instances("stride=32"))[0], "memory/strided[stride=32]");
}

TEST(Registry, FilterIsARegexSearchedAnywhere) {
  const Registry r = builtin();
  EXPECT_EQ(names(r.instances("transpose/(shared|padded)")),
            (std::vector<std::string>{"transpose/shared[n=4096]", "transpose/padded[n=4096]"}));
  EXPECT_TRUE(r.instances("no-such-kernel").empty());
  EXPECT_THROW(r.instances("matmul/[unclosed"), InputError);
}

TEST(Registry, OptInBenchmarksOnlyWithAFilter) {
  Registry r;
  r.builder("mine/default", no_workload);
  r.builder("mine/extra", no_workload).opt_in();
  EXPECT_EQ(names(r.instances()), (std::vector<std::string>{"mine/default"}));
  EXPECT_EQ(names(r.instances("mine")), (std::vector<std::string>{"mine/default", "mine/extra"}));
}

TEST(Registry, RejectsBadNamesDuplicatesAndEmptyAxes) {
  Registry r;
  r.builder("a/b", no_workload);
  EXPECT_THROW(r.builder("a/b", no_workload), InputError);
  EXPECT_THROW(r.builder("nofamily", no_workload), InputError);
  EXPECT_THROW(r.builder("a/b/c", no_workload), InputError);
  EXPECT_THROW(r.builder("a/b[x]", no_workload), InputError);
  EXPECT_THROW(r.builder("a/c", no_workload).axis("n", {}), InputError);
}

TEST(Registry, EveryVariantNamesABaselineOfItsOwnFamilyThatExists) {
  const Registry r = builtin();
  std::set<std::string> families_with_root;
  for (const Benchmark* b : r.benchmarks()) {
    if (b->baseline.empty()) {
      families_with_root.insert(b->family());
      continue;
    }
    const Benchmark* base = r.find(b->baseline);
    ASSERT_NE(base, nullptr) << b->name << " names missing baseline " << b->baseline;
    EXPECT_EQ(base->family(), b->family()) << b->name;
    EXPECT_NE(base, b);
  }
  // Each family has exactly one root (the variant the others are compared against).
  std::set<std::string> families;
  for (const Benchmark* b : r.benchmarks()) families.insert(b->family());
  EXPECT_EQ(families, families_with_root);
}

TEST(Registry, EveryBenchmarkHasADescriptionAndDeclarations) {
  const Registry r = builtin();
  for (const Benchmark* b : r.benchmarks()) {
    EXPECT_FALSE(b->description.empty()) << b->name;
    EXPECT_TRUE(static_cast<bool>(b->bytes)) << b->name;
    EXPECT_TRUE(static_cast<bool>(b->flops)) << b->name;
  }
}

TEST(Listing, TableGolden) {
  Registry r;
  r.builder("demo/base", no_workload)
      .axis("n", {1000, 1 << 20})
      .bytes([](const Params& p) { return 8.0 * static_cast<double>(std::get<std::int64_t>(p.at("n"))); })
      .flops([](const Params&) { return 0.0; });
  r.builder("demo/fast", no_workload).baseline("demo/base").opt_in().bytes([](const Params&) { return 2.5e9; });
  EXPECT_EQ(format_instance_table(r.instances("demo")),
            "instance                bytes  FLOPs  baseline\n"
            "demo/base[n=1000]     8.00 kB      -  -\n"
            "demo/base[n=1048576]  8.39 MB      -  -\n"
            "demo/fast (opt-in)    2.50 GB      -  demo/base\n"
            "3 instances\n");
}

TEST(Listing, SiFormatting) {
  EXPECT_EQ(format_si(999, "B"), "999 B");
  EXPECT_EQ(format_si(12582912, "B"), "12.6 MB");
  EXPECT_EQ(format_si(2147483648.0, ""), "2.15 G");
  EXPECT_EQ(format_si(201326592, "B"), "201 MB");
}

TEST(Listing, JsonCarriesParamsAndDeclarations) {
  Registry r;
  register_builtin_benchmarks(r);
  const std::string json = format_instance_json(r.instances("matmul/tiled\\[n=1000,tile=32"));
  EXPECT_NE(json.find("\"display_name\": \"matmul/tiled[n=1000,tile=32]\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"flops\": 2000000000.0"), std::string::npos) << json;
  EXPECT_NE(json.find("\"baseline\": \"matmul/naive\""), std::string::npos) << json;
}

// What the runner learns of a workload's memory (the profiler's flush reads it): the allocations made while
// the innermost log is open, less those freed meanwhile; nothing without a log.
TEST(AllocationLog, KeepsTheLiveAllocationsOfTheInnermostLogOnly) {
  char a[4], b[4], c[4];
  AllocationLog::note(a, 4);  // no log open: dropped
  AllocationLog outer;
  AllocationLog::note(a, 100);
  {
    AllocationLog inner;
    AllocationLog::note(b, 200);
    AllocationLog::note(c, 300);
    AllocationLog::note(nullptr, 8);
    AllocationLog::note(c, 0);
    AllocationLog::forget(c);  // a temporary of the factory, freed before it returned
    ASSERT_EQ(inner.ranges.size(), 1u);
    EXPECT_EQ(inner.ranges[0].ptr, b);
    EXPECT_EQ(inner.ranges[0].bytes, 200u);
  }
  AllocationLog::note(c, 50);  // the outer log again
  ASSERT_EQ(outer.ranges.size(), 2u);
  EXPECT_EQ(outer.ranges[0].ptr, a);
  EXPECT_EQ(outer.ranges[1].ptr, c);
  EXPECT_EQ(outer.ranges[1].bytes, 50u);
}

}  // namespace
}  // namespace gpuperf
