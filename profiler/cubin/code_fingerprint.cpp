#include "profiler/cubin/code_fingerprint.hpp"

#include <cstdio>

#include "profiler/cubin/elf_reader.hpp"

namespace gpuperf::cubin {

std::string sass_fingerprint(std::string_view sass) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64 (core/result.hpp's fnv1a64, which this library cannot link)
  for (unsigned char c : sass) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string("sass:") + buf;
}

std::map<std::string, std::string> function_fingerprints(const ElfFile& elf) {
  constexpr std::string_view kText = ".text.";
  std::map<std::string, std::string> out;
  for (const ElfSection& s : elf.sections()) {
    if (s.type != kElfSectionProgbits || s.name.compare(0, kText.size(), kText) != 0) continue;
    out.emplace(s.name.substr(kText.size()), sass_fingerprint(elf.bytes(s)));
  }
  return out;
}

std::map<std::string, std::string> function_fingerprints(const void* cubin, std::size_t size) noexcept {
  try {
    if (cubin == nullptr || size < 4 ||
        std::string_view(static_cast<const char*>(cubin), 4) !=
            "\x7f"
            "ELF")
      return {};
    return function_fingerprints(ElfFile::parse(cubin, size, "a loaded module"));
  } catch (...) {
    return {};  // not a cubin this reader takes: no fingerprints, the kernels keep none
  }
}

std::string kernels_fingerprint(const std::vector<std::string>& kernels,
                                const std::map<std::string, std::string>& fingerprints) {
  std::string joined;
  for (const std::string& k : kernels) {
    auto it = fingerprints.find(k);
    if (it == fingerprints.end()) return "";
    joined += (joined.empty() ? "" : ",") + it->second;
  }
  if (kernels.size() == 1) return joined;
  return joined.empty() ? "" : sass_fingerprint(joined);
}

std::string format_launch(const std::uint32_t grid[3], const std::uint32_t block[3], std::uint64_t dynamic_smem) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "grid=%ux%ux%u block=%ux%ux%u smem=%llu", grid[0], grid[1], grid[2], block[0],
                block[1], block[2], static_cast<unsigned long long>(dynamic_smem));
  return buf;
}

}  // namespace gpuperf::cubin
