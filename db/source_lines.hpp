// What both engines and the interchange format share about a result's source lines (core/source_lines.hpp):
// the size bound a stored run keeps, and the checks a run's lines must pass before any engine stores them.
//
// The bound. A kernel can have hundreds of source lines (a Triton kernel's inlined helpers, CUTLASS's
// templates), and a suite run has dozens of kernels, every night. A finding points at the few lines that
// dominate a kernel's instructions or that waste memory traffic, so per result the store keeps:
//   - the kTopLines lines with the most warp instructions executed (inst_executed), and
//   - the kTopLines lines with the most excess sectors and wavefronts: global load and store sectors above
//     their ideal plus shared wavefronts above theirs (uncoalesced access and bank conflicts),
// their union, in the order the collector gave them; `lines_total` keeps how many the kernel had. Ties are
// broken by that order, so the same lines give the same kept set. A line with nothing in either key (zero
// instructions and no excess) is kept only while there is room, as the top-by-instructions set would.
#pragma once

#include <cstddef>
#include <string>

#include "core/result.hpp"

namespace gpuperf::db {

inline constexpr std::size_t kTopLines = 20;

// A line's counters by name: the column of both engines' source_line table and the key of the interchange
// format, in that order everywhere.
struct LineCounter {
  const char* name;
  double SourceLine::*member;
};
inline constexpr LineCounter kLineCounters[] = {
    {"inst_executed", &SourceLine::inst_executed},
    {"thread_inst_executed", &SourceLine::thread_inst_executed},
    {"global_ld_requests", &SourceLine::global_ld_requests},
    {"global_st_requests", &SourceLine::global_st_requests},
    {"global_ld_sectors", &SourceLine::global_ld_sectors},
    {"global_ld_sectors_ideal", &SourceLine::global_ld_sectors_ideal},
    {"global_st_sectors", &SourceLine::global_st_sectors},
    {"global_st_sectors_ideal", &SourceLine::global_st_sectors_ideal},
    {"shared_wavefronts", &SourceLine::shared_wavefronts},
    {"shared_wavefronts_ideal", &SourceLine::shared_wavefronts_ideal},
    {"local_sectors", &SourceLine::local_sectors},
};
inline constexpr std::size_t kLineCounterCount = sizeof kLineCounters / sizeof kLineCounters[0];

// A result has something to store: its pass ran (any status but skipped) or it carries lines.
inline bool has_source_lines(const SourceLines& s) { return s.status != Status::skipped || !s.lines.empty(); }

// Global load + store sectors above their ideal, plus shared wavefronts above theirs (never negative).
double excess_sectors(const SourceLine& line);

// `lines` reduced to the bound above; `lines_total` becomes max(lines_total, the count before).
SourceLines bound_source_lines(const SourceLines& lines, std::size_t top = kTopLines);

// InputError naming `where` (and the line) for: a counter that is negative or not finite, a negative line
// number, a SASS offset below -1, or a negative launch or line count.
void validate_source_lines(const SourceLines& lines, const std::string& where);

}  // namespace gpuperf::db
