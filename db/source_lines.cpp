#include "db/source_lines.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/errors.hpp"

namespace gpuperf::db {
namespace {

// The indices of the `top` largest values of key(line), ties broken by the index (the collector's order).
template <typename Key>
std::vector<std::size_t> top_indices(const std::vector<SourceLine>& lines, std::size_t top, Key key) {
  std::vector<std::size_t> idx(lines.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return key(lines[a]) > key(lines[b]); });
  if (idx.size() > top) idx.resize(top);
  return idx;
}

}  // namespace

double excess_sectors(const SourceLine& l) {
  return std::max(0.0, l.global_ld_sectors - l.global_ld_sectors_ideal) +
         std::max(0.0, l.global_st_sectors - l.global_st_sectors_ideal) +
         std::max(0.0, l.shared_wavefronts - l.shared_wavefronts_ideal);
}

SourceLines bound_source_lines(const SourceLines& in, std::size_t top) {
  SourceLines out = in;
  out.lines_total = std::max<std::int64_t>(in.lines_total, static_cast<std::int64_t>(in.lines.size()));
  if (in.lines.size() <= top) return out;  // the top-by-instructions set alone holds every line
  std::vector<bool> keep(in.lines.size(), false);
  for (std::size_t i : top_indices(in.lines, top, [](const SourceLine& l) { return l.inst_executed; })) keep[i] = true;
  for (std::size_t i : top_indices(in.lines, top, excess_sectors)) {
    if (excess_sectors(in.lines[i]) > 0) keep[i] = true;  // no excess: not a line this key points at
  }
  out.lines.clear();
  for (std::size_t i = 0; i < in.lines.size(); ++i) {
    if (keep[i]) out.lines.push_back(in.lines[i]);
  }
  return out;
}

void validate_source_lines(const SourceLines& s, const std::string& where) {
  if (s.launches < 0) throw InputError(where + ": source lines: launches is negative");
  if (s.lines_total < 0) throw InputError(where + ": source lines: lines_total is negative");
  for (std::size_t i = 0; i < s.lines.size(); ++i) {
    const SourceLine& l = s.lines[i];
    const std::string lw =
        where + ": source line " + std::to_string(i) + " (" +
        (l.file.empty() ? l.function + "+" + std::to_string(l.sass_offset) : l.file + ":" + std::to_string(l.line)) +
        ")";
    if (l.line < 0) throw InputError(lw + ": the line number is negative");
    if (l.sass_offset < -1) throw InputError(lw + ": the SASS offset is below -1");
    for (const LineCounter& c : kLineCounters) {
      const double v = l.*c.member;
      if (!std::isfinite(v) || v < 0) throw InputError(lw + ": " + c.name + " is negative or not a finite number");
    }
  }
}

}  // namespace gpuperf::db
