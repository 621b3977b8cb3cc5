#include "reports/analysis/program_change.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "core/stats.hpp"
#include "reports/analysis/next_step.hpp"

namespace gpuperf::analysis {
namespace {

// A recorded result's single value of `metric`; nullopt where it has none.
std::optional<double> value_of(const Result& r, const char* metric) {
  const Measurement* m = r.find(metric);
  if (m == nullptr || m->summary.n == 0) return std::nullopt;
  return m->summary.median;
}

std::string param_text(const BenchmarkInstance& instance, const char* key) {
  const auto it = instance.params.find(key);
  return it == instance.params.end() ? std::string() : gpuperf::to_string(it->second);
}

// "train_step/forward" -> "train_step".
std::string top_range(const std::string& path) { return path.substr(0, path.find('/')); }

bool heavier_change(const TimePart& a, const TimePart& b) {
  const double da = std::fabs(a.delta_ns()), db = std::fabs(b.delta_ns());
  if (da != db) return da > db;
  return a.name < b.name;
}

std::vector<TimePart> parts_of(std::map<std::string, TimePart>&& by_name) {
  std::vector<TimePart> parts;
  for (auto& [name, part] : by_name) parts.push_back(std::move(part));
  std::stable_sort(parts.begin(), parts.end(), heavier_change);
  return parts;
}

void add_to(std::map<std::string, TimePart>& parts, const std::string& name, const KernelTimeChange& k) {
  TimePart& p = parts[name];
  p.name = name;
  if (k.base_ns) {
    p.base_ns += *k.base_ns;
    ++p.base_kernels;
  }
  if (k.candidate_ns) {
    p.candidate_ns += *k.candidate_ns;
    ++p.candidate_kernels;
  }
}

// Pairs `gone` with `added` (indices into kernels) as one replacement (pair_replacements marks the kernels).
void pair(ProgramChange& p, std::vector<std::size_t> gone, std::vector<std::size_t> added, const std::string& range,
          const std::string& family) {
  Replacement r;
  r.range = range;
  r.family = family;
  const auto heavier = [&](std::size_t a, std::size_t b) {
    const double ta = p.kernels[a].base_ns.value_or(0) + p.kernels[a].candidate_ns.value_or(0);
    const double tb = p.kernels[b].base_ns.value_or(0) + p.kernels[b].candidate_ns.value_or(0);
    return ta != tb ? ta > tb : a < b;
  };
  std::sort(gone.begin(), gone.end(), heavier);
  std::sort(added.begin(), added.end(), heavier);
  for (std::size_t i : gone) r.base_ns += p.kernels[i].base_ns.value_or(0);
  for (std::size_t i : added) r.candidate_ns += p.kernels[i].candidate_ns.value_or(0);
  r.gone = std::move(gone);
  r.added = std::move(added);
  p.replacements.push_back(std::move(r));
}

// Same range and family first; then, per range, what is left when it is little enough to read as one change.
void pair_replacements(ProgramChange& p) {
  std::map<std::pair<std::string, std::string>, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> groups;
  for (std::size_t i = 0; i < p.kernels.size(); ++i) {
    const KernelTimeChange& k = p.kernels[i];
    if (k.gone()) groups[{k.range, k.family}].first.push_back(i);
    if (k.added()) groups[{k.range, k.family}].second.push_back(i);
  }
  std::map<std::string, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> left;  // by range
  for (auto& [key, sides] : groups) {
    if (!sides.first.empty() && !sides.second.empty()) {
      pair(p, std::move(sides.first), std::move(sides.second), key.first, key.second);
      continue;
    }
    auto& l = left[key.first];
    l.first.insert(l.first.end(), sides.first.begin(), sides.first.end());
    l.second.insert(l.second.end(), sides.second.begin(), sides.second.end());
  }
  for (auto& [range, sides] : left) {
    if (sides.first.empty() || sides.second.empty()) continue;
    if (sides.first.size() > kMaxCrossGone || sides.second.size() > kMaxCrossNew) continue;
    pair(p, std::move(sides.first), std::move(sides.second), range, "");
  }
  std::stable_sort(p.replacements.begin(), p.replacements.end(), [](const Replacement& a, const Replacement& b) {
    return a.base_ns + a.candidate_ns > b.base_ns + b.candidate_ns;
  });
  for (std::size_t r = 0; r < p.replacements.size(); ++r) {  // each kernel's replacement, in the sorted order
    for (std::size_t i : p.replacements[r].gone) p.kernels[i].replacement = r;
    for (std::size_t i : p.replacements[r].added) p.kernels[i].replacement = r;
  }
}

std::string ms_text(double ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g ms", ns / 1e6);
  return buf;
}

}  // namespace

std::optional<double> TimePart::change_pct() const {
  if (base_ns <= 0) return std::nullopt;
  return (candidate_ns / base_ns - 1) * 100;
}

std::size_t ProgramChange::gone_count() const {
  return static_cast<std::size_t>(
      std::count_if(kernels.begin(), kernels.end(), [](const KernelTimeChange& k) { return k.gone(); }));
}

std::size_t ProgramChange::added_count() const {
  return static_cast<std::size_t>(
      std::count_if(kernels.begin(), kernels.end(), [](const KernelTimeChange& k) { return k.added(); }));
}

std::optional<double> program_gpu_time(const Run& run) {
  if (run.command.empty()) return std::nullopt;
  std::optional<double> total;
  for (const Result& r : run.results) {
    if (const auto t = value_of(r, "gpu_time_total")) total = total.value_or(0) + *t;
  }
  return total;
}

std::optional<ProgramChange> program_change(const Run& base, const Run& candidate, const KernelFamilies& families) {
  const auto base_total = program_gpu_time(base), candidate_total = program_gpu_time(candidate);
  if (!base_total || !candidate_total) return std::nullopt;
  ProgramChange p;
  p.command = candidate.command;
  p.base_ns = *base_total;
  p.candidate_ns = *candidate_total;
  p.family_rules = families.user_rules();

  // (name, params key) -> kernel, over both sides.
  std::map<std::pair<std::string, std::string>, KernelTimeChange> by_key;
  const auto add_side = [&](const Run& run, bool is_base) {
    for (const Result& r : run.results) {
      const auto t = value_of(r, "gpu_time_total");
      if (!t) continue;
      KernelTimeChange& k = by_key[{r.instance.name, params_key(r.instance.params)}];
      if (k.instance.name.empty()) {
        k.instance = r.instance;
        k.family = families.family_of_instance(r.instance.name);
        k.range = param_text(r.instance, "nvtx");
      }
      (is_base ? k.base_ns : k.candidate_ns) = *t;
      (is_base ? k.base_launches : k.candidate_launches) = value_of(r, "launches").value_or(0);
      if (p.program.empty() || !is_base) p.program = benchmark_family(r.instance.name);
    }
  };
  add_side(base, true);
  add_side(candidate, false);
  for (auto& [key, k] : by_key) p.kernels.push_back(std::move(k));
  std::stable_sort(p.kernels.begin(), p.kernels.end(), [](const KernelTimeChange& a, const KernelTimeChange& b) {
    return std::fabs(a.delta_ns()) > std::fabs(b.delta_ns());
  });

  std::map<std::string, TimePart> by_family, by_range;
  bool any_range = false;
  for (const KernelTimeChange& k : p.kernels) {
    add_to(by_family, k.family, k);
    add_to(by_range, top_range(k.range), k);
    any_range = any_range || !k.range.empty();
  }
  p.families = parts_of(std::move(by_family));
  if (any_range) p.ranges = parts_of(std::move(by_range));
  pair_replacements(p);
  return p;
}

void judge_program(ProgramChange& p, const std::vector<double>& base_runs, const std::vector<double>& candidate_runs,
                   double min_effect_pct, bool gated, const std::string& base_branch, const std::string& base_commit) {
  p.base_runs = {p.base_ns};
  p.base_runs.insert(p.base_runs.end(), base_runs.begin(), base_runs.end());
  p.candidate_runs = {p.candidate_ns};
  p.candidate_runs.insert(p.candidate_runs.end(), candidate_runs.begin(), candidate_runs.end());
  p.min_effect_pct = min_effect_pct;
  p.gated = gated;
  p.note.clear();
  p.next_step.clear();
  p.runs_needed = 0;
  const double b = median(p.base_runs), c = median(p.candidate_runs);
  p.change_pct = b > 0 ? (c / b - 1) * 100 : 0;
  const auto [b_lo, b_hi] = std::minmax_element(p.base_runs.begin(), p.base_runs.end());
  const auto [c_lo, c_hi] = std::minmax_element(p.candidate_runs.begin(), p.candidate_runs.end());
  const std::string runs = std::to_string(p.base_runs.size()) + " base run" + (p.base_runs.size() == 1 ? "" : "s") +
                           ", " + std::to_string(p.candidate_runs.size()) + " candidate run" +
                           (p.candidate_runs.size() == 1 ? "" : "s");
  if (p.base_runs.size() < kMinProgramRuns) {
    p.verdict = Verdict::not_enough_data;
    p.runs_needed = kMinProgramRuns - p.base_runs.size();
    p.note = runs + "; the program's time is judged over at least " + std::to_string(kMinProgramRuns) +
             " recordings of the base";
    p.next_step = "on the base's commit" + (base_commit.empty() ? std::string() : " " + base_commit.substr(0, 10)) +
                  ": " + repeat_record_command(p.command, base_branch, p.runs_needed) + ", then compare again";
    return;
  }
  if (std::fabs(p.change_pct) < min_effect_pct) {
    p.verdict = Verdict::same;
    char floor[64];
    std::snprintf(floor, sizeof floor, "; within the %g%% floor", min_effect_pct);
    p.note = runs + floor;
    return;
  }
  if (*c_lo > *b_hi) {
    p.verdict = Verdict::slower;
  } else if (*c_hi < *b_lo) {
    p.verdict = Verdict::faster;
  } else {
    p.verdict = Verdict::ambiguous;
    p.note = runs + "; the runs overlap (base " + ms_text(*b_lo) + " to " + ms_text(*b_hi) + ", candidate " +
             ms_text(*c_lo) + " to " + ms_text(*c_hi) + ")";
    return;
  }
  p.note = runs + "; every candidate run beyond every base run (base " + ms_text(*b_lo) + " to " + ms_text(*b_hi) + ")";
}

}  // namespace gpuperf::analysis
