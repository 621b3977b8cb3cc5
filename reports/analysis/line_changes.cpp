#include "reports/analysis/line_changes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
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

std::vector<std::string> keys(const std::vector<SourceLine>& lines) {
  std::vector<std::string> out;
  out.reserve(lines.size());
  for (const SourceLine& l : lines) out.push_back(function_key(l.function));
  return out;
}

bool same_counters(const SourceLine& a, const SourceLine& b) {
  for (const CounterView& v : kViews) {
    if (count_moved(a.*v.count, b.*v.count)) return false;
  }
  return true;
}

// 1b. Lines without text on both sides (their source was nowhere): per (function, file), the shift under
// which the most lines agree in every counter, and those lines matched at it, so that a build that moved
// every line down one still pairs them; these pairs then guide the rest (step 2) as text matches do.
void align_without_text(const std::vector<SourceLine>& before, const std::vector<SourceLine>& after,
                        const std::vector<std::string>& kb, const std::vector<std::string>& ka,
                        std::vector<int>& partner_of_after, std::vector<bool>& before_taken) {
  auto candidate = [&](std::size_t i, std::size_t j) {
    const SourceLine &b = before[i], &a = after[j];
    return !before_taken[i] && partner_of_after[j] < 0 && b.text.empty() && a.text.empty() && b.line > 0 &&
           a.line > 0 && kb[i] == ka[j] && b.file == a.file && same_counters(a, b);
  };
  std::map<Key, std::map<std::int64_t, int>> votes;
  for (std::size_t j = 0; j < after.size(); ++j) {
    for (std::size_t i = 0; i < before.size(); ++i) {
      if (candidate(i, j)) ++votes[{ka[j], after[j].file}][after[j].line - before[i].line];
    }
  }
  std::map<Key, std::int64_t> shift;
  for (const auto& [key, by_shift] : votes) {
    int most = 0;
    for (const auto& [d, n] : by_shift) {
      const auto it = shift.find(key);
      if (n > most || (n == most && it != shift.end() && std::llabs(d) < std::llabs(it->second))) {
        most = n;
        shift[key] = d;
      }
    }
  }
  for (std::size_t j = 0; j < after.size(); ++j) {
    const auto d = shift.find({ka[j], after[j].file});
    if (d == shift.end()) continue;
    for (std::size_t i = 0; i < before.size(); ++i) {
      if (!candidate(i, j) || before[i].line + d->second != after[j].line) continue;
      partner_of_after[j] = static_cast<int>(i);
      before_taken[i] = true;
      break;
    }
  }
}

// 4. What is still unmatched on both sides and is the same line: the same text (whatever the function's
// name became), or, without text, the same function and counters (the nearest number first). A line is
// never listed both as new and as gone: an unchanged line whose kernel was renamed or whose number moved
// with no text to follow it is the same line.
void pair_equal_leftovers(const std::vector<SourceLine>& before, const std::vector<SourceLine>& after,
                          const std::vector<std::string>& kb, const std::vector<std::string>& ka,
                          std::vector<int>& partner_of_after, std::vector<bool>& before_taken) {
  for (std::size_t j = 0; j < after.size(); ++j) {
    if (partner_of_after[j] >= 0 || after[j].line <= 0) continue;
    const SourceLine& a = after[j];
    int best = -1;
    std::int64_t best_distance = 0;
    for (std::size_t i = 0; i < before.size(); ++i) {
      const SourceLine& b = before[i];
      if (before_taken[i] || b.line <= 0) continue;
      const bool equal = !a.text.empty() && !b.text.empty()
                             ? a.text == b.text
                             : a.text.empty() && b.text.empty() && ka[j] == kb[i] && same_counters(a, b);
      if (!equal) continue;
      const std::int64_t distance = (a.file == b.file ? 0 : 1000000) + std::llabs(a.line - b.line);
      if (best < 0 || distance < best_distance) best = static_cast<int>(i), best_distance = distance;
    }
    if (best < 0) continue;
    partner_of_after[j] = best;
    before_taken[static_cast<std::size_t>(best)] = true;
  }
}

}  // namespace

bool count_moved(double before, double after) {
  return std::fabs(after - before) > 0.5 && relative_moved(before, after);
}
bool ratio_moved(double before, double after) { return relative_moved(before, after); }

std::vector<LineMatch> match_lines(const std::vector<SourceLine>& before, const std::vector<SourceLine>& after) {
  std::vector<int> partner_of_after(after.size(), -1);
  std::vector<bool> before_taken(before.size(), false);
  const std::vector<std::string> kb = keys(before), ka = keys(after);  // function keys, made once
  // 1. (function, text), in order among equal texts.
  {
    std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> by_text;
    for (std::size_t i = 0; i < before.size(); ++i) {
      if (!before[i].text.empty()) by_text[{kb[i], before[i].text}].push_back(i);
    }
    std::map<std::pair<std::string, std::string>, std::size_t> used;
    for (std::size_t j = 0; j < after.size(); ++j) {
      if (after[j].text.empty()) continue;
      const std::pair<std::string, std::string> k{ka[j], after[j].text};
      auto it = by_text.find(k);
      if (it == by_text.end()) continue;
      std::size_t& n = used[k];
      if (n >= it->second.size()) continue;
      partner_of_after[j] = static_cast<int>(it->second[n]);
      before_taken[it->second[n++]] = true;
    }
  }
  align_without_text(before, after, kb, ka, partner_of_after, before_taken);
  // The shifts the text matches show, per (function, file): before's line -> after's line - before's.
  std::map<Key, std::map<std::int64_t, std::int64_t>> shifts;
  for (std::size_t j = 0; j < after.size(); ++j) {
    if (partner_of_after[j] < 0) continue;
    const SourceLine& b = before[static_cast<std::size_t>(partner_of_after[j])];
    if (b.line > 0 && after[j].line > 0 && b.file == after[j].file) {
      shifts[{ka[j], b.file}][b.line] = after[j].line - b.line;
    }
  }
  // Unmatched after lines by (function, file, line), in order (a helper's line inlined at two call sites is
  // two lines of one number), and by (function, SASS offset) for lines without line info.
  std::map<std::tuple<std::string, std::string, std::int64_t>, std::deque<std::size_t>> open_after;
  std::map<std::pair<std::string, std::int64_t>, std::size_t> open_offset;
  for (std::size_t j = 0; j < after.size(); ++j) {
    if (partner_of_after[j] >= 0) continue;
    if (after[j].line > 0) {
      open_after[std::make_tuple(ka[j], after[j].file, after[j].line)].push_back(j);
    } else {
      open_offset.emplace(std::make_pair(ka[j], after[j].sass_offset), j);
    }
  }
  auto take = [&](std::size_t i, std::int64_t line) {
    auto it = open_after.find({kb[i], before[i].file, line});
    if (it == open_after.end() || it->second.empty()) return false;
    partner_of_after[it->second.front()] = static_cast<int>(i);
    before_taken[i] = true;
    it->second.pop_front();
    return true;
  };
  // 2. By number, shifted as the nearest text-matched neighbours (the one above first, then the one below).
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (before_taken[i] || before[i].line <= 0) continue;
    auto s = shifts.find({kb[i], before[i].file});
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
    } else if (auto it = open_offset.find({kb[i], before[i].sass_offset}); it != open_offset.end()) {
      partner_of_after[it->second] = static_cast<int>(i);
      before_taken[i] = true;
      open_offset.erase(it);
    }
  }
  pair_equal_leftovers(before, after, kb, ka, partner_of_after, before_taken);
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
    c.edited = m.before != nullptr && m.after != nullptr && b.text != a.text;
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
  // Heaviest change first; where two explain as much, the line whose text changed (the edit itself) first.
  std::stable_sort(out.begin(), out.end(), [](const LineChange& x, const LineChange& y) {
    if (x.weight != y.weight) return x.weight > y.weight;
    return x.edited && !y.edited;
  });
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
