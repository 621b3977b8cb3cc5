#include "profiler/record/inject/pass_groups.hpp"

#include <algorithm>
#include <numeric>

namespace gpuperf::record::inject {

namespace {

// `members` (indices into `metrics`, ascending) in at most `groups` groups balancing `weight`: the heaviest first,
// each into the group with the least weight so far; groups in ascending order of their first index.
std::vector<std::vector<std::size_t>> balance(const std::vector<std::size_t>& members, std::size_t groups,
                                              const std::vector<std::size_t>& weight) {
  std::vector<std::size_t> order = members;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return weight[a] > weight[b]; });
  std::vector<std::vector<std::size_t>> out(std::max<std::size_t>(1, std::min(groups, members.size())));
  std::vector<std::size_t> load(out.size(), 0);
  for (std::size_t i : order) {
    const std::size_t g = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    out[g].push_back(i);
    load[g] += weight[i];
  }
  for (auto& g : out) std::sort(g.begin(), g.end());
  out.erase(std::remove_if(out.begin(), out.end(), [](const auto& g) { return g.empty(); }), out.end());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  return out;
}

}  // namespace

std::vector<std::vector<std::size_t>> split_passes(const std::vector<std::string>& metrics, std::size_t groups,
                                                   const PassCount& passes) {
  std::vector<std::size_t> all(metrics.size());
  std::iota(all.begin(), all.end(), 0);
  if (groups <= 1 || metrics.size() < 2 || passes(metrics) <= 1) return {all};
  std::vector<std::size_t> weight(metrics.size());
  std::vector<std::size_t> heavy, rest;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    weight[i] = std::max<std::size_t>(1, passes({metrics[i]}));
    (weight[i] > 1 ? heavy : rest).push_back(i);  // needs_passes_alone, from the count just taken
  }
  if (heavy.empty() || rest.empty()) return balance(all, groups, weight);
  std::vector<std::vector<std::size_t>> out = balance(rest, groups - 1, weight);
  out.push_back(std::move(heavy));
  return out;
}

std::size_t default_groups(const std::vector<std::string>& metrics, std::size_t per_identity, const PassCount& passes) {
  const std::size_t most = std::min<std::size_t>(std::max<std::size_t>(per_identity, 1), 8);
  if (most < 2 || passes(metrics) <= kOneGroupMostPasses) return 1;
  const bool heavy =
      std::any_of(metrics.begin(), metrics.end(), [&](const std::string& m) { return needs_passes_alone(m, passes); });
  return heavy ? 2 : most;
}

}  // namespace gpuperf::record::inject

namespace gpuperf::record::inject {

SinglePassGroups pack_single_pass(const std::vector<std::string>& metrics, const PassCount& passes) {
  SinglePassGroups out;
  std::vector<std::vector<std::string>> names;  // of out.groups
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    if (needs_passes_alone(metrics[i], passes)) {
      out.unfit.push_back(i);
      continue;
    }
    std::size_t g = 0;
    for (; g < out.groups.size(); ++g) {
      names[g].push_back(metrics[i]);
      if (passes(names[g]) <= 1) break;
      names[g].pop_back();
    }
    if (g == out.groups.size()) {
      out.groups.emplace_back();
      names.emplace_back(1, metrics[i]);
    }
    out.groups[g].push_back(i);
  }
  return out;
}

std::size_t next_group(std::vector<bool>& collected, std::optional<std::size_t> kept, bool first_for_new) {
  if (collected.empty()) return 0;
  const bool fresh = std::none_of(collected.begin(), collected.end(), [](bool c) { return c; });
  if (std::all_of(collected.begin(), collected.end(), [](bool c) { return c; }))
    collected.assign(collected.size(), false);
  std::size_t g = 0;
  if (fresh && first_for_new) {
    g = 0;
  } else if (kept && *kept < collected.size() && !collected[*kept]) {
    g = *kept;
  } else {
    g = static_cast<std::size_t>(std::find(collected.begin(), collected.end(), false) - collected.begin());
  }
  collected[g] = true;
  return g;
}

bool needs_passes_alone(const std::string& metric, const PassCount& passes) { return passes({metric}) > 1; }

bool last_group_needs_passes_alone(const std::vector<std::vector<std::size_t>>& groups,
                                   const std::vector<std::string>& metrics, const PassCount& passes) {
  if (groups.size() < 2 || groups.back().empty()) return false;
  const auto heavy = [&](std::size_t i) { return i < metrics.size() && needs_passes_alone(metrics[i], passes); };
  if (!std::all_of(groups.back().begin(), groups.back().end(), heavy)) return false;
  return std::none_of(groups.begin(), groups.end() - 1,
                      [&](const auto& g) { return std::any_of(g.begin(), g.end(), heavy); });
}

bool give_back_group(std::vector<bool>& collected, std::size_t group, unsigned& lost, unsigned most) {
  if (lost >= most) return false;
  ++lost;
  if (group < collected.size()) collected[group] = false;
  return true;
}

}  // namespace gpuperf::record::inject
