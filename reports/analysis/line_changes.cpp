#include "reports/analysis/line_changes.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <tuple>

namespace gpuperf::analysis {
namespace {

bool relative_moved(double before, double after) {
  return std::fabs(after - before) > kLineRelativeFloor * std::max(std::fabs(before), std::fabs(after));
}

// A counter as a kernel's lines show it: its key, label, the counter and its ideal (null: none), and the
// request count that makes it a per-request ratio (null: a plain count).
struct CounterView {
  const char* key;
  const char* per_request_key;
  const char* label;
  const char* per_request_label;
  double SourceLine::*count;
  double SourceLine::*ideal;
  double SourceLine::*requests;
};
constexpr CounterView kViews[] = {
    {"global_ld_sectors", "global_ld_sectors_per_request", "global load sectors", "global load sectors per request",
     &SourceLine::global_ld_sectors, &SourceLine::global_ld_sectors_ideal, &SourceLine::global_ld_requests},
    {"global_st_sectors", "global_st_sectors_per_request", "global store sectors", "global store sectors per request",
     &SourceLine::global_st_sectors, &SourceLine::global_st_sectors_ideal, &SourceLine::global_st_requests},
    {"shared_wavefronts", nullptr, "shared wavefronts", nullptr, &SourceLine::shared_wavefronts,
     &SourceLine::shared_wavefronts_ideal, nullptr},
    {"local_sectors", nullptr, "local memory sectors (spills)", nullptr, &SourceLine::local_sectors, nullptr, nullptr},
    {"inst_executed", nullptr, "warp instructions", nullptr, &SourceLine::inst_executed, nullptr, nullptr},
    {"thread_inst_executed", nullptr, "thread instructions", nullptr, &SourceLine::thread_inst_executed, nullptr,
     nullptr},
};

using Key = std::tuple<std::string, std::string>;  // (function key, file)

}  // namespace

// nvcc names a kernel in an anonymous namespace "_GLOBAL__N__<8 hex>_<n>_<file>_<8 hex>": the first hash
// changes with the path and the build of the file (a runner's workspace, a patched copy), the rest does not.
// Lines are matched on the name with that hash blanked, so a rebuilt kernel is still the same kernel.
std::string function_key(const std::string& function) {
  static const std::string kAnon = "_GLOBAL__N__";
  std::string key = function;
  for (std::size_t at = key.find(kAnon); at != std::string::npos; at = key.find(kAnon, at + kAnon.size())) {
    std::size_t h = at + kAnon.size();
    while (h < key.size() && std::isxdigit(static_cast<unsigned char>(key[h])) != 0) key[h++] = 'x';
  }
  return key;
}

namespace {}  // namespace

bool count_moved(double before, double after) {
  return std::fabs(after - before) > 0.5 && relative_moved(before, after);
}
bool ratio_moved(double before, double after) { return relative_moved(before, after); }

std::vector<LineMatch> match_lines(const std::vector<SourceLine>& before, const std::vector<SourceLine>& after) {
  std::vector<int> partner_of_after(after.size(), -1);
  std::vector<bool> before_taken(before.size(), false);
  // 1. (function, text), in order among equal texts.
  {
    std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> by_text;
    for (std::size_t i = 0; i < before.size(); ++i) {
      if (!before[i].text.empty()) by_text[{function_key(before[i].function), before[i].text}].push_back(i);
    }
    std::map<std::pair<std::string, std::string>, std::size_t> used;
    for (std::size_t j = 0; j < after.size(); ++j) {
      if (after[j].text.empty()) continue;
      const std::pair<std::string, std::string> k{function_key(after[j].function), after[j].text};
      auto it = by_text.find(k);
      if (it == by_text.end()) continue;
      std::size_t& n = used[k];
      if (n >= it->second.size()) continue;
      partner_of_after[j] = static_cast<int>(it->second[n]);
      before_taken[it->second[n++]] = true;
    }
  }
  // The shifts the text matches show, per (function, file): before's line -> after's line - before's.
  std::map<Key, std::map<std::int64_t, std::int64_t>> shifts;
  for (std::size_t j = 0; j < after.size(); ++j) {
    if (partner_of_after[j] < 0) continue;
    const SourceLine& b = before[static_cast<std::size_t>(partner_of_after[j])];
    if (b.line > 0 && after[j].line > 0 && b.file == after[j].file) {
      shifts[{function_key(b.function), b.file}][b.line] = after[j].line - b.line;
    }
  }
  // Unmatched after lines by (function, file, line) and by (function, SASS offset) for lines without line info.
  std::map<std::tuple<std::string, std::string, std::int64_t>, std::size_t> open_after;
  std::map<std::pair<std::string, std::int64_t>, std::size_t> open_offset;
  for (std::size_t j = 0; j < after.size(); ++j) {
    if (partner_of_after[j] >= 0) continue;
    if (after[j].line > 0) {
      open_after.emplace(std::make_tuple(function_key(after[j].function), after[j].file, after[j].line), j);
    } else {
      open_offset.emplace(std::make_pair(function_key(after[j].function), after[j].sass_offset), j);
    }
  }
  auto take = [&](std::size_t i, std::int64_t line) {
    auto it = open_after.find({function_key(before[i].function), before[i].file, line});
    if (it == open_after.end()) return false;
    partner_of_after[it->second] = static_cast<int>(i);
    before_taken[i] = true;
    open_after.erase(it);
    return true;
  };
  // 2. By number, shifted as the nearest text-matched neighbours (the one above first, then the one below).
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (before_taken[i] || before[i].line <= 0) continue;
    auto s = shifts.find({function_key(before[i].function), before[i].file});
    if (s == shifts.end()) continue;
    const auto& m = s->second;
    auto below = m.upper_bound(before[i].line);
    if (below != m.begin() && take(i, before[i].line + std::prev(below)->second)) continue;
    if (below != m.end()) take(i, before[i].line + below->second);
  }
  // 3. By plain number; lines without line info by SASS offset.
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (before_taken[i]) continue;
    if (before[i].line > 0) {
      take(i, before[i].line);
    } else if (auto it = open_offset.find({function_key(before[i].function), before[i].sass_offset});
               it != open_offset.end()) {
      partner_of_after[it->second] = static_cast<int>(i);
      before_taken[i] = true;
      open_offset.erase(it);
    }
  }
  std::vector<LineMatch> out;
  for (std::size_t j = 0; j < after.size(); ++j) {
    out.push_back(
        {partner_of_after[j] < 0 ? nullptr : &before[static_cast<std::size_t>(partner_of_after[j])], &after[j]});
  }
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (!before_taken[i]) out.push_back({&before[i], nullptr});
  }
  return out;
}

std::vector<LineChange> changed_lines(const std::vector<SourceLine>& before, const std::vector<SourceLine>& after,
                                      std::size_t limit) {
  // The kernel's totals of each counter, the larger of the two runs': a line's weight is its share.
  std::vector<double> total(sizeof kViews / sizeof kViews[0], 0.0);
  for (std::size_t v = 0; v < total.size(); ++v) {
    double b = 0, a = 0;
    for (const SourceLine& l : before) b += l.*kViews[v].count;
    for (const SourceLine& l : after) a += l.*kViews[v].count;
    total[v] = std::max(a, b);
  }
  static const SourceLine kNone{};
  std::vector<LineChange> out;
  for (const LineMatch& m : match_lines(before, after)) {
    const SourceLine& b = m.before != nullptr ? *m.before : kNone;
    const SourceLine& a = m.after != nullptr ? *m.after : kNone;
    LineChange c;
    c.line = m.after != nullptr ? a : b;
    c.is_new = m.before == nullptr;
    c.is_gone = m.after == nullptr;
    if (m.before != nullptr && m.after != nullptr && b.line != a.line) c.was_line = b.line;
    for (std::size_t v = 0; v < total.size(); ++v) {
      const CounterView& view = kViews[v];
      // Thread instructions say nothing new beside warp instructions that moved with them.
      if (view.count == &SourceLine::thread_inst_executed && !c.counters.empty() &&
          c.counters.back().counter == std::string("inst_executed")) {
        continue;
      }
      const double cb = b.*view.count, ca = a.*view.count;
      const double rb = view.requests != nullptr ? b.*view.requests : 0,
                   ra = view.requests != nullptr ? a.*view.requests : 0;
      // Per request where both sides made requests and the ratio moved: the access pattern changed.
      if (view.requests != nullptr && rb > 0 && ra > 0 && ratio_moved(cb / rb, ca / ra)) {
        LineCounterChange x{view.per_request_key, view.per_request_label, true, cb / rb, ca / ra, std::nullopt};
        if (view.ideal != nullptr) x.ideal = (a.*view.ideal) / ra;
        c.counters.push_back(x);
      } else if (count_moved(cb, ca)) {
        LineCounterChange x{view.key, view.label, false, cb, ca, std::nullopt};
        if (view.ideal != nullptr) x.ideal = m.after != nullptr ? a.*view.ideal : b.*view.ideal;
        c.counters.push_back(x);
      } else {
        continue;
      }
      if (total[v] > 0) c.weight = std::max(c.weight, std::fabs(ca - cb) / total[v]);
    }
    if (!c.counters.empty()) out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const LineChange& x, const LineChange& y) { return x.weight > y.weight; });
  if (limit > 0 && out.size() > limit) out.resize(limit);
  return out;
}

std::vector<LineCounterChange> line_counters(const SourceLine& l) {
  std::vector<LineCounterChange> out;
  for (const CounterView& view : kViews) {
    const double c = l.*view.count;
    if (c <= 0) continue;
    const double r = view.requests != nullptr ? l.*view.requests : 0;
    if (r > 0) {
      out.push_back({view.per_request_key, view.per_request_label, true, c / r, c / r, (l.*view.ideal) / r});
    } else {
      LineCounterChange x{view.key, view.label, false, c, c, std::nullopt};
      if (view.ideal != nullptr) x.ideal = l.*view.ideal;
      out.push_back(x);
    }
  }
  return out;
}

}  // namespace gpuperf::analysis
