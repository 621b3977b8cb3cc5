// Matching source lines between runs and naming what moved on them (reports/analysis/line_changes.hpp), on
// hand-built lines with the counts the GPU gives (exact integers per launch).
#include <gtest/gtest.h>

#include "reports/analysis/line_changes.hpp"

namespace gpuperf::analysis {
namespace {

constexpr double kWarps = 524288;  // 16M elements, one warp instruction per 32
const char* kFile = "kernels/memory_access.cu";
const char* kCopy = "copy_coalesced(const float *, float *, unsigned int)";

SourceLine make(std::int64_t no, const std::string& text, double inst, const std::string& fn = kCopy) {
  SourceLine l;
  l.file = kFile;
  l.line = no;
  l.function = fn;
  l.text = text;
  l.inst_executed = inst;
  l.thread_inst_executed = inst * 32;
  return l;
}

SourceLine load_store(std::int64_t no, const std::string& text, double sectors_per_request) {
  SourceLine l = make(no, text, 5 * kWarps);
  l.global_ld_requests = l.global_st_requests = kWarps;
  l.global_ld_sectors = l.global_st_sectors = sectors_per_request * kWarps;
  l.global_ld_sectors_ideal = l.global_st_sectors_ideal = 4 * kWarps;
  return l;
}

// copy_coalesced before and after bench/detect/patches/lose_coalescing.patch: six lines added above the load line.
std::vector<SourceLine> before_patch() {
  return {make(22, "const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;", 4 * kWarps),
          load_store(23, "if (i < n) out[i] = in[i];", 4), make(24, "}", kWarps)};
}
std::vector<SourceLine> after_patch() {
  return {make(22, "const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;", 4 * kWarps),
          make(27, "const unsigned half = n / 2;", 2 * kWarps),
          make(28, "const unsigned j = i < half ? 2 * i : 2 * (i - half) + 1;", 4 * kWarps),
          load_store(29, "if (i < n) out[j] = in[j];", 8), make(30, "}", kWarps)};
}

TEST(LineMoved, ExactCountsMoveBeyondHalfACountAndATenthOfAPercent) {
  EXPECT_FALSE(count_moved(1000000, 1000000));
  EXPECT_FALSE(count_moved(1000000, 1000000.4));  // rounding of a per-launch division
  EXPECT_FALSE(count_moved(1000000, 1000500));    // 0.05%: below the floor
  EXPECT_TRUE(count_moved(1000000, 1002000));     // 0.2%
  EXPECT_FALSE(count_moved(100, 100.4));
  EXPECT_TRUE(count_moved(100, 101));
  EXPECT_TRUE(count_moved(0, 1));
  EXPECT_FALSE(ratio_moved(4.0, 4.003));
  EXPECT_TRUE(ratio_moved(4.0, 4.4));
}

TEST(LineMatching, TextFirstThenTheNumberShiftedAsTheNeighboursMoved) {
  const auto before = before_patch(), after = after_patch();
  const auto m = match_lines(before, after);
  ASSERT_EQ(m.size(), 5u);             // every after line once, no gone line
  EXPECT_EQ(m[0].before, &before[0]);  // same text, same number
  EXPECT_EQ(m[1].before, nullptr);     // new: half
  EXPECT_EQ(m[2].before, nullptr);     // new: j
  EXPECT_EQ(m[3].before, &before[1]);  // edited text; "}" below moved +6, so :23 is now :29
  EXPECT_EQ(m[4].before, &before[2]);  // "}" by text, 24 -> 30
}

// copy_coalesced as an H100 counted it (launches 1) on main and with lose_coalescing.patch built from another
// checkout: nvcc's anonymous-namespace hash in the kernel's name differs, the load line's text and number too.
TEST(LineMatching, ARebuiltKernelInAnAnonymousNamespaceIsTheSameKernel) {
  const std::string landed = "_ZN7gpuperf49_GLOBAL__N__0395d2d5_16_memory_access_cu_1454bd1214copy_coalescedEPKfPfj";
  const std::string edited = "_ZN7gpuperf49_GLOBAL__N__030d5e2e_16_memory_access_cu_1454bd1214copy_coalescedEPKfPfj";
  EXPECT_EQ(function_key(landed), function_key(edited));
  EXPECT_NE(function_key(landed),
            function_key("_ZN7gpuperf49_GLOBAL__N__0395d2d5_16_memory_access_cu_1454bd1212copy_stridedEPKfPfjj"));
  EXPECT_EQ(function_key("copy(float*)"), "copy(float*)");
  std::vector<SourceLine> before = {
      make(22, "const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;", 4 * kWarps, landed),
      load_store(23, "if (i < n) out[i] = in[i];", 4), make(24, "}", kWarps, landed)};
  before[1].function = landed;
  std::vector<SourceLine> after = {
      make(22, "const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;", 4 * kWarps, edited),
      make(27, "const unsigned half = n / 2;", kWarps, edited),
      make(28, "const unsigned j = i < half ? 2 * i : 2 * (i - half) + 1;", 5 * kWarps, edited),
      load_store(29, "if (i < n) out[j] = in[j];", 8), make(30, "}", kWarps, edited)};
  after[3].function = edited;
  const auto changes = changed_lines(before, after);
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes[0].line.line, 29);
  ASSERT_TRUE(changes[0].was_line.has_value());
  EXPECT_EQ(*changes[0].was_line, 23);
  EXPECT_FALSE(changes[0].is_new);
  ASSERT_FALSE(changes[0].counters.empty());
  EXPECT_EQ(changes[0].counters[0].counter, "global_ld_sectors_per_request");
  EXPECT_DOUBLE_EQ(changes[0].counters[0].before, 4.0);
  EXPECT_DOUBLE_EQ(changes[0].counters[0].after, 8.0);
  for (const auto& c : changes) EXPECT_NE(c.line.line, 22) << "an unchanged line matched across the rebuild";
}

TEST(LineMatching, EqualTextsPairInOrderAndLinesWithoutLineInfoByOffset) {
  std::vector<SourceLine> before = {make(40, "__syncthreads();", 10), make(44, "__syncthreads();", 20)};
  std::vector<SourceLine> after = {make(41, "__syncthreads();", 10), make(45, "__syncthreads();", 20)};
  auto m = match_lines(before, after);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].before, &before[0]);
  EXPECT_EQ(m[1].before, &before[1]);
  EXPECT_TRUE(changed_lines(before, after).empty());

  SourceLine a, b, c;
  a.function = b.function = c.function = "triton_kernel";
  a.sass_offset = 0x40;
  b.sass_offset = 0x80;
  c.sass_offset = 0x80;
  a.inst_executed = b.inst_executed = 100;
  c.inst_executed = 300;
  const std::vector<SourceLine> x = {a, b}, y = {c};
  m = match_lines(x, y);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].before, &x[1]);
  EXPECT_EQ(m[0].after, &y[0]);
  EXPECT_EQ(m[1].before, &x[0]);  // gone
  EXPECT_EQ(m[1].after, nullptr);
}

TEST(LineChanges, TheLoadLineThatLostCoalescingComesFirstWithItsSectorsPerRequest) {
  const auto changes = changed_lines(before_patch(), after_patch());
  ASSERT_EQ(changes.size(), 3u);  // the load line and the two new lines; line 22 and "}" did not move
  const LineChange& c = changes[0];
  EXPECT_EQ(c.line.line, 29);
  ASSERT_TRUE(c.was_line.has_value());
  EXPECT_EQ(*c.was_line, 23);
  EXPECT_FALSE(c.is_new);
  ASSERT_EQ(c.counters.size(), 2u);  // instructions did not move: 5 per warp both times
  EXPECT_EQ(c.counters[0].counter, "global_ld_sectors_per_request");
  EXPECT_DOUBLE_EQ(c.counters[0].before, 4.0);
  EXPECT_DOUBLE_EQ(c.counters[0].after, 8.0);
  ASSERT_TRUE(c.counters[0].ideal.has_value());
  EXPECT_DOUBLE_EQ(*c.counters[0].ideal, 4.0);
  EXPECT_EQ(c.counters[1].counter, "global_st_sectors_per_request");
  EXPECT_TRUE(changes[1].is_new);
  EXPECT_EQ(changes[1].line.line, 28);  // 4 instructions a warp outweigh 27's 2
  EXPECT_EQ(changes[2].line.line, 27);
  EXPECT_EQ(changed_lines(before_patch(), after_patch(), 1).size(), 1u);
}

TEST(LineChanges, UnchangedLinesThatMovedDownAreNotNamed) {
  auto shifted = before_patch();
  for (auto& l : shifted) l.line += 6;
  EXPECT_TRUE(changed_lines(before_patch(), shifted).empty());
}

TEST(LineChanges, AnFmaSplitInTwoDoublesItsLinesInstructions) {
  // matmul_naive's inner loop built with -fmad=false: FMUL + FADD where one FFMA was.
  SourceLine loop = make(26, "for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];", 6 * 1024 * 32768.0,
                         "matmul_naive");
  SourceLine split = loop;
  split.inst_executed = 7 * 1024 * 32768.0;
  split.thread_inst_executed = split.inst_executed * 32;
  const SourceLine store = make(27, "c[row * n + col] = sum;", 2 * 32768.0, "matmul_naive");
  const auto changes = changed_lines({loop, store}, {split, store});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].line.line, 26);
  ASSERT_EQ(changes[0].counters.size(), 1u);  // thread instructions moved with them: not repeated
  EXPECT_EQ(changes[0].counters[0].counter, "inst_executed");
  EXPECT_FALSE(changes[0].counters[0].ideal.has_value());
}

TEST(LineChanges, BankConflictsShowAsSharedWavefrontsAboveTheirIdeal) {
  SourceLine l = make(45, "for (int k = 0; k < TILE; ++k) sum += as[ty][k] * bs[k][tx];", 1000, "matmul_tiled");
  l.shared_wavefronts = l.shared_wavefronts_ideal = 2000;
  SourceLine conflicted = l;
  conflicted.shared_wavefronts = 4000;
  const auto changes = changed_lines({l}, {conflicted});
  ASSERT_EQ(changes.size(), 1u);
  ASSERT_EQ(changes[0].counters.size(), 1u);
  EXPECT_EQ(changes[0].counters[0].counter, "shared_wavefronts");
  EXPECT_DOUBLE_EQ(changes[0].counters[0].before, 2000);
  EXPECT_DOUBLE_EQ(changes[0].counters[0].after, 4000);
  EXPECT_DOUBLE_EQ(*changes[0].counters[0].ideal, 2000);
  EXPECT_DOUBLE_EQ(changes[0].weight, 0.5);  // 2000 of the kernel's 4000 wavefronts
}

TEST(LineCounters, OneLineOnItsOwnShowsItsRatiosAndTheirIdeal) {
  const auto c = line_counters(load_store(33, "out[i] = in[src];", 32));
  ASSERT_GE(c.size(), 3u);
  EXPECT_EQ(c[0].counter, "global_ld_sectors_per_request");
  EXPECT_DOUBLE_EQ(c[0].after, 32.0);
  EXPECT_DOUBLE_EQ(*c[0].ideal, 4.0);
  EXPECT_EQ(c[1].counter, "global_st_sectors_per_request");
  EXPECT_EQ(c[2].counter, "inst_executed");
}

}  // namespace
}  // namespace gpuperf::analysis
