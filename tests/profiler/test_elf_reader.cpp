// The cubin ELF reader on a cubin nvcc built with this tree (tests/profiler/cubin/fixture.cu) and on broken
// images: sections by name, function symbols and their SASS sections, relocations of the line tables.
#include "profiler/cubin/elf_reader.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace gpuperf::cubin {
namespace {

const ElfSymbol* function_named(const ElfFile& elf, const std::string& part) {
  for (const ElfSymbol& s : elf.symbols())
    if (s.type == kElfSymbolFunction && s.name.find(part) != std::string::npos) return &s;
  return nullptr;
}

TEST(ElfReader, ReadsTheFixtureCubinsSectionsAndFunctions) {
  const ElfFile elf = ElfFile::read(GPUPERF_FIXTURE_CUBIN);
  EXPECT_EQ(elf.machine(), 190);  // EM_CUDA
  ASSERT_NE(elf.section(".nv_debug_line_sass"), nullptr);
  ASSERT_NE(elf.section(".debug_line"), nullptr);
  EXPECT_EQ(elf.section(".no_such_section"), nullptr);

  // Each kernel: a FUNC symbol whose section is ".text.<its mangled name>", as long as the symbol says.
  for (const char* part : {"poly_kernel", "static_kernel", "tmpl_kernelILi3E"}) {
    const ElfSymbol* f = function_named(elf, part);
    ASSERT_NE(f, nullptr) << part;
    ASSERT_LT(f->section, elf.sections().size());
    const ElfSection& text = elf.sections()[f->section];
    EXPECT_EQ(text.name, ".text." + f->name);
    EXPECT_EQ(f->size, text.size);
    EXPECT_EQ(elf.bytes(text).size(), text.size);
    EXPECT_GT(f->size, 0u);
    EXPECT_EQ(elf.function(f->name), f);
  }
  EXPECT_NE(function_named(elf, "_GLOBAL__N__"), nullptr);  // the anonymous namespace's kernel
  EXPECT_EQ(function_named(elf, "horner"), nullptr);        // inlined: no symbol of its own
}

TEST(ElfReader, LineTableRelocationsNameEachKernel) {
  const ElfFile elf = ElfFile::read(GPUPERF_FIXTURE_CUBIN);
  const std::vector<ElfRelocation> rel = elf.relocations(*elf.section(".nv_debug_line_sass"));
  ASSERT_EQ(rel.size(), 3u);  // one DW_LNE_set_address per kernel
  for (const ElfRelocation& r : rel) {
    ASSERT_LT(r.symbol, elf.symbols().size());
    EXPECT_EQ(elf.symbols()[r.symbol].type, kElfSymbolFunction);
    EXPECT_LT(r.offset, elf.section(".nv_debug_line_sass")->size);
  }
}

TEST(ElfReader, RefusesWhatIsNotA64BitElfWithTheReason) {
  EXPECT_THROW(ElfFile::parse(std::vector<std::uint8_t>{}, "empty"), ElfError);
  try {
    ElfFile::parse(std::vector<std::uint8_t>(100, 0), "zeros.cubin");
    FAIL() << "zeros parsed";
  } catch (const ElfError& e) {
    EXPECT_NE(std::string(e.what()).find("zeros.cubin: not an ELF file"), std::string::npos) << e.what();
    EXPECT_EQ(e.exit_code(), kExitUsage);
  }
  std::vector<std::uint8_t> elf32(64, 0);
  elf32[0] = 0x7f, elf32[1] = 'E', elf32[2] = 'L', elf32[3] = 'F', elf32[4] = 1, elf32[5] = 1;
  EXPECT_THROW(ElfFile::parse(elf32, "32-bit"), ElfError);
  EXPECT_THROW(ElfFile::read("/nonexistent/k.cubin"), InputError);
}

std::vector<std::uint8_t> file_bytes(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(ElfReader, ParsesFromMemoryAndRefusesATruncatedCubin) {
  const std::vector<std::uint8_t> bytes = file_bytes(GPUPERF_FIXTURE_CUBIN);
  ASSERT_GT(bytes.size(), 1000u);
  const ElfFile whole = ElfFile::read(GPUPERF_FIXTURE_CUBIN);
  const ElfFile again = ElfFile::parse(bytes.data(), bytes.size(), "memory");
  EXPECT_EQ(again.sections().size(), whole.sections().size());
  EXPECT_EQ(again.symbols().size(), whole.symbols().size());
  // nvcc writes the section table last: half the file has none of it.
  const std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(bytes.size() / 2));
  try {
    ElfFile::parse(cut, "cut.cubin");
    FAIL() << "a truncated cubin parsed";
  } catch (const ElfError& e) {
    EXPECT_NE(std::string(e.what()).find("cut.cubin: section table"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuperf::cubin
