// Damage as issue 57 found it: 20 pages of an SQLite file between its second and its last overwritten with
// seeded random bytes. The header page stays sound, so the file still opens as a gpuperf database and only a
// check of its pages finds the damage. Header-only: the db and cli tests share it.
#pragma once

#include <cstddef>
#include <random>
#include <string>

namespace gpuperf::testing {

inline void damage_pages(std::string& file, std::size_t page = 4096) {
  const std::size_t pages = file.size() / page;
  std::mt19937 rng(57);
  std::uniform_int_distribution<std::size_t> pick(2, pages - 2);
  for (int i = 0; i < 20; ++i) {
    const std::size_t at = pick(rng) * page;
    for (std::size_t b = 0; b < page; ++b) file[at + b] = static_cast<char>(rng() & 0xFF);
  }
}

}  // namespace gpuperf::testing
