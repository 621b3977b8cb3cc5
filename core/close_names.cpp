#include "core/close_names.hpp"

#include <algorithm>
#include <utility>

namespace gpuperf {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  // Three rows of the dynamic programme: the swap looks two characters back.
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

namespace {

// Scores are edits per character of the longer name. A list of hints may reach further than the one name
// said to be meant.
constexpr double kFarthestHint = 0.6;
constexpr double kFarthestMeant = 0.5;  // excluded: "frobnicate" did not mean "profile" (6 edits of 10)

// (score, index in candidates) of the candidates scoring at most `farthest`, in the candidates' order.
std::vector<std::pair<double, std::size_t>> scored(const std::string& name, const std::vector<std::string>& candidates,
                                                   double farthest) {
  std::vector<std::pair<double, std::size_t>> out;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string& c = candidates[i];
    double d = static_cast<double>(edit_distance(name, c));
    // A candidate that contains the name (or is contained in it) is a strong hint: "occupancy" finds
    // "achieved_occupancy" even though the edit distance is large. One or two letters are no hint.
    const bool contains = name.size() >= 3 && c.find(name) != std::string::npos;
    const bool contained = c.size() >= 3 && name.find(c) != std::string::npos;
    if (contains || contained) d *= 0.25;
    const double score = d / static_cast<double>(std::max<std::size_t>(1, std::max(name.size(), c.size())));
    if (score <= farthest) out.emplace_back(score, i);
  }
  return out;
}

}  // namespace

std::vector<std::string> close_names(const std::string& name, const std::vector<std::string>& candidates,
                                     std::size_t max_results) {
  auto best = scored(name, candidates, kFarthestHint);
  std::sort(best.begin(), best.end(), [&](const auto& x, const auto& y) {
    return x.first < y.first || (x.first == y.first && candidates[x.second] < candidates[y.second]);
  });
  std::vector<std::string> out;
  for (const auto& [score, i] : best) {
    if (out.size() >= max_results) break;
    out.push_back(candidates[i]);
  }
  return out;
}

std::vector<std::string> most_similar(const std::string& name, const std::vector<std::string>& candidates) {
  const auto close = scored(name, candidates, kFarthestMeant);
  double best = kFarthestMeant;
  for (const auto& [score, i] : close) best = std::min(best, score);
  std::vector<std::string> out;
  for (const auto& [score, i] : close) {
    if (score == best && score < kFarthestMeant) out.push_back(candidates[i]);
  }
  return out;
}

}  // namespace gpuperf
