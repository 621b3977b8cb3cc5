// Bytes and FLOPs per launch, as each family declares them: the minimal traffic (each input read once,
// each output written once) and the arithmetic, worked out by hand here.
#include <gtest/gtest.h>

#include "kernels/benchmark.hpp"

namespace gpuperf {
namespace {

struct Declared {
  double bytes, flops;
};

Declared declared(const std::string& display_name) {
  static Registry r = [] {
    Registry reg;
    register_builtin_benchmarks(reg);
    return reg;
  }();
  for (const auto& ref : r.instances(".")) {
    if (ref.instance().display_name() == display_name) {
      return {ref.benchmark->bytes(ref.params), ref.benchmark->flops(ref.params)};
    }
  }
  ADD_FAILURE() << "no instance " << display_name;
  return {0, 0};
}

constexpr double k16M = 16777216.0;

TEST(Declarations, Matmul) {
  EXPECT_DOUBLE_EQ(declared("matmul/naive[n=1024]").bytes, 3.0 * 1024 * 1024 * 4);
  EXPECT_DOUBLE_EQ(declared("matmul/naive[n=1024]").flops, 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(declared("matmul/tiled[n=1000,tile=32]").bytes, 12e6);
  EXPECT_DOUBLE_EQ(declared("matmul/tiled[n=1000,tile=32]").flops, 2e9);
}

TEST(Declarations, MemoryAccessPatternsMoveTheSameUsefulBytes) {
  for (const char* n : {"memory/coalesced", "memory/strided[stride=32]", "memory/misaligned[offset=1]"}) {
    EXPECT_DOUBLE_EQ(declared(n).bytes, 2 * k16M * 4) << n;
    EXPECT_DOUBLE_EQ(declared(n).flops, 0) << n;
  }
  EXPECT_DOUBLE_EQ(declared("memory/broadcast").bytes, (k16M + k16M / 32) * 4);
  EXPECT_DOUBLE_EQ(declared("memory/scattered").bytes, 3 * k16M * 4);  // plus the index array
}

TEST(Declarations, StencilMatvecVectorAddOccupancyTranspose) {
  EXPECT_DOUBLE_EQ(declared("stencil1d/shared").bytes, (2 * k16M + 6) * 4);
  EXPECT_DOUBLE_EQ(declared("stencil1d/global").flops, 14 * k16M);
  EXPECT_DOUBLE_EQ(declared("matvec/naive[m=100000,n=1000]").bytes, (1e8 + 1000 + 100000) * 4);
  EXPECT_DOUBLE_EQ(declared("matvec/shared[m=100000,n=1000]").flops, 2e8);
  EXPECT_DOUBLE_EQ(declared("vector_add/add[block=32]").bytes, 3 * k16M * 4);
  EXPECT_DOUBLE_EQ(declared("vector_add/add[block=1024]").flops, k16M);
  EXPECT_DOUBLE_EQ(declared("occupancy/register_heavy[block=16]").flops, 30 * k16M);
  EXPECT_DOUBLE_EQ(declared("transpose/padded[n=4096]").bytes, 2 * k16M * 4);
}

TEST(Declarations, PairedVariantsDeclareTheSameWork) {
  // Ratios between paired variants are ratios of durations only if both do the same work.
  Registry r;
  register_builtin_benchmarks(r);
  for (const auto& ref : r.instances(".")) {
    if (ref.benchmark->baseline.empty()) continue;
    const Benchmark* base = r.find(ref.benchmark->baseline);
    ASSERT_NE(base, nullptr);
    Params shared;
    for (const auto& axis : base->axes) {
      auto it = ref.params.find(axis.name);
      shared[axis.name] = it != ref.params.end() ? it->second : axis.values.front();
    }
    if (ref.benchmark->name == "memory/broadcast" || ref.benchmark->name == "memory/scattered") continue;
    EXPECT_DOUBLE_EQ(ref.benchmark->flops(ref.params), base->flops(shared)) << ref.instance().display_name();
    EXPECT_DOUBLE_EQ(ref.benchmark->bytes(ref.params), base->bytes(shared)) << ref.instance().display_name();
  }
}

}  // namespace
}  // namespace gpuperf
