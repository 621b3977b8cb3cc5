// The cubin's own line table on tests/profiler/cubin/fixture.cu, built with nvcc -lineinfo at build time:
// every instruction of a kernel has a line; the inlined helper's instructions name the helper's line and
// the kernel's line that calls it.
#include "profiler/cubin/line_table.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace gpuperf::cubin {
namespace {

const ElfSymbol& function_named(const ElfFile& elf, const std::string& part) {
  for (const ElfSymbol& s : elf.symbols())
    if (s.type == kElfSymbolFunction && s.name.find(part) != std::string::npos) return s;
  throw std::runtime_error("no function " + part);
}

std::string base(const std::string& path) { return path.substr(path.rfind('/') + 1); }

TEST(LineTable, TheInlinedHelpersLineAndItsCallSite) {
  const ElfFile elf = ElfFile::read(GPUPERF_FIXTURE_CUBIN);
  const LineTable table = LineTable::read(elf);
  ASSERT_FALSE(table.empty());
  const ElfSymbol& poly = function_named(elf, "poly_kernel");
  std::map<std::string, int> instructions;  // "file:line@site" -> SASS instructions (16 bytes each)
  for (std::uint64_t pc = 0; pc < poly.size; pc += 16) {
    const auto at = table.locate(poly.name, pc);
    ASSERT_TRUE(at.has_value()) << "pc " << pc;
    EXPECT_EQ(base(at->file), "fixture.cu");
    std::string key = base(at->file) + ":" + std::to_string(at->line);
    if (!at->inlined_at_file.empty()) {
      key += "@" + base(at->inlined_at_file) + ":" + std::to_string(at->inlined_at_line);
      EXPECT_NE(at->inlined_function.find("horner"), std::string::npos) << at->inlined_function;
    }
    ++instructions[key];
  }
  // The helper's fmaf (line 5), unrolled 16 times into the loop of line 12, and only there.
  EXPECT_GE(instructions["fixture.cu:5@fixture.cu:12"], 16);
  EXPECT_EQ(instructions.count("fixture.cu:5"), 0u);
  EXPECT_GT(instructions["fixture.cu:10"], 0);  // const float v = x[i];
  EXPECT_GT(instructions["fixture.cu:13"], 0);  // y[i] = acc;
  // Past the function's end, another function, or no line info: nothing.
  EXPECT_FALSE(table.locate(poly.name, poly.size).has_value());
  EXPECT_FALSE(table.locate("_Z9no_kernelv", 0).has_value());
}

TEST(LineTable, EachKernelHasItsOwnSequence) {
  const ElfFile elf = ElfFile::read(GPUPERF_FIXTURE_CUBIN);
  const LineTable table = LineTable::read(elf);
  const ElfSymbol& stat = function_named(elf, "static_kernel");
  const ElfSymbol& tmpl = function_named(elf, "tmpl_kernel");
  for (std::uint64_t pc = 0; pc < stat.size; pc += 16) {
    const auto at = table.locate(stat.name, pc);
    ASSERT_TRUE(at.has_value());
    EXPECT_EQ(at->line, 18u);
    EXPECT_TRUE(at->inlined_at_file.empty());
  }
  std::map<std::uint32_t, int> lines;
  for (std::uint64_t pc = 0; pc < tmpl.size; pc += 16) ++lines[table.locate(tmpl.name, pc).value().line];
  EXPECT_GT(lines[22], 0);  // y[threadIdx.x] += N;
  for (const auto& [line, n] : lines) EXPECT_TRUE(line >= 21 && line <= 23) << line;
}

TEST(LineTable, ACubinWithoutLineInfoHasAnEmptyTable) {
  // The fixture's image with .debug_line renamed: what a cubin built without -lineinfo reads as.
  const ElfFile elf = ElfFile::read(GPUPERF_FIXTURE_CUBIN);
  ASSERT_NE(elf.section(".debug_line"), nullptr);
  std::string image;
  {
    std::FILE* f = std::fopen(GPUPERF_FIXTURE_CUBIN, "rb");
    ASSERT_NE(f, nullptr);
    for (int c; (c = std::fgetc(f)) != EOF;) image.push_back(static_cast<char>(c));
    std::fclose(f);
  }
  const std::size_t at = image.find(".debug_line");
  ASSERT_NE(at, std::string::npos);
  image[at + 1] = 'X';
  const LineTable none = LineTable::read(ElfFile::parse(image.data(), image.size(), "renamed"));
  EXPECT_TRUE(none.empty());
  EXPECT_FALSE(none.locate(function_named(elf, "poly_kernel").name, 0).has_value());
}

TEST(LineTable, ATruncatedLineProgramIsRefusedWithItsSection) {
  const ElfFile elf = ElfFile::read(GPUPERF_FIXTURE_CUBIN);
  std::string image;
  {
    std::FILE* f = std::fopen(GPUPERF_FIXTURE_CUBIN, "rb");
    ASSERT_NE(f, nullptr);
    for (int c; (c = std::fgetc(f)) != EOF;) image.push_back(static_cast<char>(c));
    std::fclose(f);
  }
  // The unit's length claims more bytes than the section holds.
  const ElfSection& line = *elf.section(".debug_line");
  image[line.offset + 3] = '\x7f';
  try {
    LineTable::read(ElfFile::parse(image.data(), image.size(), "cut"));
    FAIL() << "a truncated line program was read";
  } catch (const ElfError& e) {
    EXPECT_NE(std::string(e.what()).find(".debug_line"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuperf::cubin
