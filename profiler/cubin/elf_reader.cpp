// The ELF64 little-endian layout as the System V ABI defines it; offsets below are the specification's.
#include "profiler/cubin/elf_reader.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

namespace gpuperf::cubin {

namespace {

constexpr std::size_t kHeaderSize = 64;
constexpr std::size_t kSectionHeaderSize = 64;
constexpr std::size_t kSymbolSize = 24;
constexpr std::uint16_t kSectionIndexExtended = 0xffff;

template <typename T>
T load(const std::vector<std::uint8_t>& image, std::uint64_t at) {
  T value{};
  std::memcpy(&value, image.data() + at, sizeof(T));  // little-endian host: x86-64 and aarch64 as built
  return value;
}

bool fits(const std::vector<std::uint8_t>& image, std::uint64_t offset, std::uint64_t size) {
  return offset <= image.size() && size <= image.size() - offset;
}

// A NUL-terminated name at `at` in a string table section, or empty past its end.
std::string string_at(const std::vector<std::uint8_t>& image, const ElfSection& table, std::uint32_t at) {
  if (at >= table.size) return {};
  const char* begin = reinterpret_cast<const char*>(image.data() + table.offset + at);
  const std::size_t room = static_cast<std::size_t>(table.size - at);
  return std::string(begin, strnlen(begin, room));
}

}  // namespace

ElfFile ElfFile::parse(std::vector<std::uint8_t> image, std::string origin) {
  ElfFile elf;
  elf.image_ = std::move(image);
  elf.origin_ = std::move(origin);
  elf.parse_header();
  elf.parse_sections();
  elf.parse_symbols();
  return elf;
}

ElfFile ElfFile::parse(const void* data, std::size_t size, std::string origin) {
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  return parse(std::vector<std::uint8_t>(bytes, bytes + size), std::move(origin));
}

ElfFile ElfFile::read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read " + path);
  std::vector<std::uint8_t> image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError("cannot read " + path);
  return parse(std::move(image), path);
}

void ElfFile::parse_header() {
  static const std::uint8_t kMagic[4] = {0x7f, 'E', 'L', 'F'};
  if (image_.size() < kHeaderSize || std::memcmp(image_.data(), kMagic, 4) != 0)
    throw ElfError(origin_ + ": not an ELF file (" + std::to_string(image_.size()) + " bytes, no ELF magic)");
  if (image_[4] != 2 || image_[5] != 1)
    throw ElfError(origin_ + ": only 64-bit little-endian ELF is read (class " + std::to_string(image_[4]) + ", data " +
                   std::to_string(image_[5]) + ")");
  file_type_ = load<std::uint16_t>(image_, 16);
  machine_ = load<std::uint16_t>(image_, 18);
  flags_ = load<std::uint32_t>(image_, 48);
}

void ElfFile::parse_sections() {
  const auto table = load<std::uint64_t>(image_, 40);
  const auto entry = load<std::uint16_t>(image_, 58);
  std::uint64_t count = load<std::uint16_t>(image_, 60);
  std::uint32_t names = load<std::uint16_t>(image_, 62);
  if (table == 0) return;  // no section table
  if (entry < kSectionHeaderSize || !fits(image_, table, entry))
    throw ElfError(origin_ + ": section table at " + std::to_string(table) + " lies outside the file");
  if (count == 0) count = load<std::uint64_t>(image_, table + 32);  // more than 0xff00 sections: in section 0
  if (names == kSectionIndexExtended) names = load<std::uint32_t>(image_, table + 40);
  if (count > image_.size() / entry || !fits(image_, table, count * entry))
    throw ElfError(origin_ + ": section table (" + std::to_string(count) + " entries) runs past the file's end");
  sections_.resize(static_cast<std::size_t>(count));
  std::vector<std::uint32_t> name_at(sections_.size());
  for (std::size_t i = 0; i < sections_.size(); ++i) {
    const std::uint64_t at = table + i * entry;
    ElfSection& s = sections_[i];
    s.index = i;
    name_at[i] = load<std::uint32_t>(image_, at);
    s.type = load<std::uint32_t>(image_, at + 4);
    s.flags = load<std::uint64_t>(image_, at + 8);
    s.address = load<std::uint64_t>(image_, at + 16);
    s.offset = load<std::uint64_t>(image_, at + 24);
    s.size = load<std::uint64_t>(image_, at + 32);
    s.link = load<std::uint32_t>(image_, at + 40);
    s.info = load<std::uint32_t>(image_, at + 44);
    s.entry_size = load<std::uint64_t>(image_, at + 56);
    if (s.type != kElfSectionNobits && !fits(image_, s.offset, s.size))
      throw ElfError(origin_ + ": section " + std::to_string(i) + " (" + std::to_string(s.size) + " bytes at " +
                     std::to_string(s.offset) + ") runs past the file's end");
  }
  if (names >= sections_.size())
    throw ElfError(origin_ + ": the section-name table index " + std::to_string(names) + " is out of range");
  for (std::size_t i = 0; i < sections_.size(); ++i)
    sections_[i].name = string_at(image_, sections_[names], name_at[i]);
}

void ElfFile::parse_symbols() {
  for (const ElfSection& table : sections_) {
    if (table.type != kElfSectionSymtab) continue;
    if (table.entry_size < kSymbolSize || table.link >= sections_.size())
      throw ElfError(origin_ + ": symbol table " + table.name + " has entries of " + std::to_string(table.entry_size) +
                     " bytes or no string table");
    const ElfSection& strings = sections_[table.link];
    const std::uint64_t count = table.size / table.entry_size;
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t at = table.offset + i * table.entry_size;
      ElfSymbol sym;
      sym.index = static_cast<std::size_t>(i);
      sym.name = string_at(image_, strings, load<std::uint32_t>(image_, at));
      const auto info = load<std::uint8_t>(image_, at + 4);
      sym.type = static_cast<std::uint8_t>(info & 0xf);
      sym.bind = static_cast<std::uint8_t>(info >> 4);
      sym.other = load<std::uint8_t>(image_, at + 5);
      sym.section = load<std::uint16_t>(image_, at + 6);
      sym.value = load<std::uint64_t>(image_, at + 8);
      sym.size = load<std::uint64_t>(image_, at + 16);
      symbols_.push_back(std::move(sym));
    }
    return;  // one symbol table per file (a cubin has one .symtab)
  }
}

const ElfSection* ElfFile::section(std::string_view name) const {
  for (const ElfSection& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

std::string_view ElfFile::bytes(const ElfSection& section) const {
  if (section.type == kElfSectionNobits) return {};
  return std::string_view(reinterpret_cast<const char*>(image_.data() + section.offset),
                          static_cast<std::size_t>(section.size));
}

std::vector<ElfRelocation> ElfFile::relocations(const ElfSection& target) const {
  std::vector<ElfRelocation> out;
  for (const ElfSection& s : sections_) {
    if ((s.type != kElfSectionRel && s.type != kElfSectionRela) || s.info != target.index) continue;
    const bool with_addend = s.type == kElfSectionRela;
    const std::uint64_t entry = s.entry_size ? s.entry_size : (with_addend ? 24 : 16);
    for (std::uint64_t at = s.offset; at + entry <= s.offset + s.size; at += entry) {
      ElfRelocation r;
      r.offset = load<std::uint64_t>(image_, at);
      const auto info = load<std::uint64_t>(image_, at + 8);
      r.symbol = static_cast<std::uint32_t>(info >> 32);
      r.type = static_cast<std::uint32_t>(info & 0xffffffffu);
      if (with_addend) r.addend = load<std::int64_t>(image_, at + 16);
      out.push_back(r);
    }
  }
  return out;
}

const ElfSymbol* ElfFile::function(std::string_view name) const {
  for (const ElfSymbol& s : symbols_)
    if (s.type == kElfSymbolFunction && s.name == name) return &s;
  return nullptr;
}

}  // namespace gpuperf::cubin
