// A reader of the ELF files NVIDIA's tools produce (cubins: `nvcc -cubin`, the images CUPTI hands over at
// module load, the ELF inside a fatbin): sections by name with their bytes, the symbol table, relocations.
// Plain C++, no CUDA header: it runs in the collector, the injected library, the store's tools and CPU tests.
// Only 64-bit little-endian ELF (every cubin since CUDA 3); anything else is refused with the reason.
//
//   ElfFile elf = ElfFile::parse(bytes);                    // or ElfFile::read("k.cubin")
//   if (const ElfSection* s = elf.section(".nv_debug_line_sass")) use(elf.bytes(*s));
//   for (const ElfSymbol& f : elf.symbols()) if (f.type == kElfSymbolFunction) ...;   // kernels and device functions
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/errors.hpp"

namespace gpuperf::cubin {

// Section types and symbol types the callers ask about (the ELF specification's values).
inline constexpr std::uint32_t kElfSectionProgbits = 1;
inline constexpr std::uint32_t kElfSectionSymtab = 2;
inline constexpr std::uint32_t kElfSectionRela = 4;
inline constexpr std::uint32_t kElfSectionNobits = 8;
inline constexpr std::uint32_t kElfSectionRel = 9;
inline constexpr std::uint8_t kElfSymbolObject = 1;
inline constexpr std::uint8_t kElfSymbolFunction = 2;
inline constexpr std::uint8_t kElfSymbolSection = 3;
inline constexpr std::uint8_t kElfBindLocal = 0;
inline constexpr std::uint8_t kElfBindGlobal = 1;
inline constexpr std::uint8_t kElfBindWeak = 2;

struct ElfSection {
  std::string name;  // ".text._Z6kernelPf", ".nv_debug_line_sass", ...
  std::size_t index = 0;
  std::uint32_t type = 0;
  std::uint64_t flags = 0;
  std::uint32_t link = 0;
  std::uint32_t info = 0;
  std::uint64_t address = 0;
  std::uint64_t offset = 0;  // in the file
  std::uint64_t size = 0;    // bytes (a NOBITS section has a size but no bytes in the file)
  std::uint64_t entry_size = 0;
};

struct ElfSymbol {
  std::string name;  // mangled, as the compiler wrote it
  std::size_t index = 0;
  std::uint16_t section = 0;  // section index (0: undefined; >= 0xff00: special)
  std::uint64_t value = 0;    // in a cubin: the offset in its section
  std::uint64_t size = 0;     // bytes (a function's: its SASS)
  std::uint8_t type = 0;      // kElfSymbolFunction, kElfSymbolObject, kElfSymbolSection, ...
  std::uint8_t bind = 0;      // kElfBindLocal, kElfBindGlobal, kElfBindWeak
  std::uint8_t other = 0;     // st_other: visibility and NVIDIA's flags
};

// One entry of a REL or RELA section: at `offset` in the section it applies to, symbol + addend.
struct ElfRelocation {
  std::uint64_t offset = 0;
  std::uint32_t symbol = 0;  // index into symbols()
  std::uint32_t type = 0;    // machine-specific (R_CUDA_*)
  std::int64_t addend = 0;   // 0 for REL entries
};

// A malformed or unsupported ELF: what is wrong and where (the file's name when read from one). Exit 2.
class ElfError : public InputError {
 public:
  explicit ElfError(const std::string& what) : InputError(what) {}
};

class ElfFile {
 public:
  // Parses an image held in memory; `origin` names it in errors ("k.cubin", "module 3"). Throws ElfError.
  static ElfFile parse(std::vector<std::uint8_t> image, std::string origin = "ELF image");
  static ElfFile parse(const void* data, std::size_t size, std::string origin = "ELF image");
  // Reads a file (InputError when it cannot be read, ElfError when it is not a supported ELF).
  static ElfFile read(const std::string& path);

  std::uint16_t machine() const { return machine_; }  // 190 (EM_CUDA) for a cubin
  std::uint16_t file_type() const { return file_type_; }
  std::uint32_t flags() const { return flags_; }  // e_flags: a cubin's SM version lives here
  const std::vector<ElfSection>& sections() const { return sections_; }
  const std::vector<ElfSymbol>& symbols() const { return symbols_; }

  // The first section of that name, nullptr when none.
  const ElfSection* section(std::string_view name) const;
  // The section's bytes (empty for NOBITS); a view into this object, valid while it lives.
  std::string_view bytes(const ElfSection& section) const;
  // The relocations that apply to `target` (from the REL/RELA sections whose info names it).
  std::vector<ElfRelocation> relocations(const ElfSection& target) const;
  // The function symbol (kElfSymbolFunction) of that name, nullptr when none.
  const ElfSymbol* function(std::string_view name) const;

 private:
  ElfFile() = default;
  void parse_header();
  void parse_sections();
  void parse_symbols();

  std::vector<std::uint8_t> image_;
  std::string origin_;
  std::uint16_t machine_ = 0;
  std::uint16_t file_type_ = 0;
  std::uint32_t flags_ = 0;
  std::vector<ElfSection> sections_;
  std::vector<ElfSymbol> symbols_;
};

}  // namespace gpuperf::cubin
