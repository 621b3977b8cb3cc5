#include "profiler/record/recorder/aggregate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <tuple>

#include "core/errors.hpp"
#include "core/kernel_kind.hpp"
#include "core/metrics.hpp"
#include "profiler/metric_eval.hpp"
#include "profiler/record/launch_selection.hpp"
#include "profiler/record/recorder/pm_attribution.hpp"
#include "profiler/source_line_aggregate.hpp"

namespace gpuperf::record {

KernelNaming kernel_naming_from_string(const std::string& s) {
  if (const std::optional<KernelNaming> naming = parse_kernel_naming(s)) return *naming;
  throw InputError("--kernel-name '" + s + "': expected demangled, function or mangled");
}

std::string dims(const std::uint32_t d[3]) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

std::string program_family(const std::string& app) {
  std::string base = app.substr(app.find_last_of('/') == std::string::npos ? 0 : app.find_last_of('/') + 1);
  for (char& c : base) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.' || c == '+';
    if (!ok) c = '_';
  }
  return base.empty() ? std::string("program") : base;
}

namespace {

// One launch, with its kernel's identity name.
struct Launch {
  const LaunchRecord* record;
  const std::string* kernel;                   // its identity name, in `names`
  const std::vector<std::string>* pm_metrics;  // its process's PM-sampled metrics (p line)
};

// Launches in the order the processes made them (processes by pid, then correlation id: the order of the launch
// calls, which the injection library's selection counts too; the kernels of one graph launch, which share its
// correlation id, by GPU start time), as ncu counts them. Not by start time alone: kernel replay hands a profiled
// launch's record back without timestamps, and --launch-skip then counted the profiled launches first (the
// warm-up program on an H200: the three it profiled were skipped, and the identity stored had no counters).
// `names` holds each mangled name's identity name, demangled once.
std::vector<Launch> launches_in_order(const std::vector<ProcessRecord>& processes, KernelNaming naming,
                                      std::map<std::string_view, std::string>& names) {
  std::vector<Launch> all;
  for (const auto& p : processes) {
    for (const auto& l : p.launches) {
      auto it = names.find(l.name);
      if (it == names.end()) it = names.emplace(l.name, kernel_name(std::string(l.name), naming)).first;
      all.push_back({&l, &it->second, &p.pm.metrics});
    }
  }
  const auto in_order = [](const Launch& a, const Launch& b) {
    return std::tie(a.record->pid, a.record->correlation, a.record->start_ns) <
           std::tie(b.record->pid, b.record->correlation, b.record->start_ns);
  };
  if (!std::is_sorted(all.begin(), all.end(), in_order)) std::stable_sort(all.begin(), all.end(), in_order);
  return all;
}

// What one kernel identity's launches add up to.
struct Acc {
  BenchmarkInstance instance;
  std::vector<double> samples;
  std::uint64_t launches = 0;
  std::uint64_t graph_launches = 0;
  std::uint64_t unfinished = 0;  // launches still running when the program ended (no duration)
  std::string_view mangled;      // its kernel's name as the injection library classified it
  double total_ns = 0;
  std::vector<const LaunchRecord*> profiled;  // its profiled launches (all metrics, or one group each)
  std::vector<const SourceLaunch*> sources;   // its instrumented launches (source lines)
  IdentityPm pm;                              // its launches in a PM-sampling window (--pm-sampling)
};

// The PM-sampled metrics of every process (p lines, first seen first) and the window's interval.
struct PmOrder {
  std::vector<std::string> metrics;
  std::uint64_t interval_ns = 0;
};

// The selected launches (--kernel-regex, --nvtx-include, --launch-skip/--launch-count) accumulated by device
// and identity (display name); `device_total_ns` each device's kernel time.
std::map<std::uint32_t, std::map<std::string, Acc>> accumulate(const std::vector<Launch>& all,
                                                               const std::string& program, const SelectOptions& options,
                                                               const PmOrder& pm_order, KernelTotals& totals,
                                                               std::map<std::uint32_t, double>& device_total_ns) {
  // The selection the injected library applies inside the program (launch_selection.hpp), here over every
  // process's launches in order; an invalid pattern fails here, before the program starts (recorder.cpp).
  LaunchSelection selection(options.kernel_regex, options.nvtx_include, options.launch_skip, options.launch_count,
                            options.naming);
  std::map<std::string_view, std::uint64_t> path_ids;             // NVTX path -> the selection's id for it (0: none)
  std::map<std::uint32_t, std::map<std::string, Acc>> by_device;  // device -> display name -> accumulation
  // Launches of one device, kernel, shape and NVTX path share an identity: look it up by those raw values,
  // and build the instance and its display name once per key, not once per launch.
  using Key = std::tuple<std::uint32_t, const std::string*, std::array<std::uint32_t, 6>, std::string_view>;
  std::map<Key, Acc*> by_key;
  for (const Launch& l : all) {
    const LaunchRecord& r = *l.record;
    if (selection.active()) {
      const std::uint64_t path_id =
          r.nvtx_path.empty() || options.nvtx_include.empty()  // the path is asked only by --nvtx-include
              ? 0
              : path_ids.try_emplace(r.nvtx_path, path_ids.size() + 1).first->second;
      if (!selection.admit(r.name, path_id, [&r] { return std::string(r.nvtx_path); })) continue;
    }
    const Key key{
        r.device, l.kernel, {r.grid[0], r.grid[1], r.grid[2], r.block[0], r.block[1], r.block[2]}, r.nvtx_path};
    Acc*& slot = by_key[key];
    if (slot == nullptr) {
      BenchmarkInstance inst;
      inst.name = program + "/" + *l.kernel;
      inst.params["grid"] = dims(r.grid);
      inst.params["block"] = dims(r.block);
      if (!r.nvtx_path.empty()) inst.params["nvtx"] = std::string(r.nvtx_path);
      Acc& acc = by_device[r.device][inst.display_name()];
      if (acc.launches == 0) {
        acc.instance = inst;
        acc.mangled = r.name;
      }
      slot = &acc;
    }
    Acc& acc = *slot;
    // A launch profiled by `--metrics` (kernel replay) comes with no timestamps (start = end = 0 on an H100):
    // it counts as a launch, but has no duration, and its replayed passes would not be the kernel's time.
    // A launch still running when its record was flushed (unfinished) counts too, without a duration; nor has an
    // instrumented launch one (source lines: about 10x the kernel's own).
    const bool timed = !r.unfinished && (r.start_ns != 0 || r.end_ns != 0) && r.source == nullptr;
    const double ns = timed ? static_cast<double>(r.end_ns - r.start_ns) : 0.0;
    if (r.source != nullptr && options.source_lines) acc.sources.push_back(r.source);
    if (timed && acc.samples.size() < options.max_samples) acc.samples.push_back(ns);
    if (options.metrics != nullptr && r.metrics.size() == options.metrics->perfworks.size() && !r.metrics.empty()) {
      acc.profiled.push_back(&r);
    }
    ++acc.launches;
    add_launch_pm(acc.pm, r, *l.pm_metrics, pm_order.metrics);
    if (r.graph != 0) ++acc.graph_launches;
    if (r.unfinished) {
      ++acc.unfinished;
      ++totals.launches_unfinished;
    }
    acc.total_ns += ns;
    device_total_ns[r.device] += ns;
    ++totals.launches_kept;
  }
  return by_device;
}

// An identity's counters from its profiled launches: each launch has every metric (an M line) or one group of
// them (a Q line, the others absent), and launches of one identity run the same kernel on the same shape, so
// its counters are combined across them. Round r takes each metric's r-th value in launch order; each complete
// round is one sample of every metric. With no complete round (the identity ran fewer profiled launches than
// there are groups, or a budget ended first), one round of what was collected, the rest absent (`missing`).
// Metrics a one-pass process (a rank of a distributed job, its Y line) never collects (`never`, per metric) do not
// count towards a round: they are absent from every one, and skipped with their own reason.
struct CombinedCounters {
  std::vector<std::vector<double>> rounds;
  bool partial = false;
  std::vector<bool> missing;  // per metric of the C line, when partial
  std::size_t collected = 0;  // metrics collected at least once
  std::size_t collectable = 0;
};

CombinedCounters combine_counters(const std::vector<const LaunchRecord*>& launches, std::size_t metrics,
                                  const std::vector<bool>& never) {
  std::vector<std::vector<double>> per_metric(metrics);  // values in launch order
  for (const LaunchRecord* r : launches) {
    for (std::size_t j = 0; j < metrics; ++j) {
      if (r->metrics_present.empty() || r->metrics_present[j]) per_metric[j].push_back(r->metrics[j]);
    }
  }
  const auto never_collected = [&](std::size_t j) { return j < never.size() && never[j]; };
  CombinedCounters out;
  std::size_t complete = std::numeric_limits<std::size_t>::max();
  for (std::size_t j = 0; j < metrics; ++j) {
    if (never_collected(j)) continue;
    complete = std::min(complete, per_metric[j].size());
    out.collected += per_metric[j].empty() ? 0 : 1;
    ++out.collectable;
  }
  if (complete == std::numeric_limits<std::size_t>::max()) complete = 0;  // nothing collectable
  if (complete > 0) {
    for (std::size_t k = 0; k < complete; ++k) {
      std::vector<double> round(metrics);
      for (std::size_t j = 0; j < metrics; ++j) round[j] = never_collected(j) ? std::nan("") : per_metric[j][k];
      out.rounds.push_back(std::move(round));
    }
    return out;
  }
  out.partial = true;
  out.missing.assign(metrics, false);
  std::vector<double> round(metrics, std::nan(""));
  for (std::size_t j = 0; j < metrics; ++j) {
    if (never_collected(j)) continue;
    if (per_metric[j].empty()) {
      out.missing[j] = true;
    } else {
      round[j] = per_metric[j][0];
    }
  }
  out.rounds.push_back(std::move(round));
  return out;
}

// The measurements that need a counter flagged in `absent` (per metric of the C line): skipped, saying `why`
// (never a value made up from the counters that were collected).
void skip_needing(const MetricPlan& plan, const std::vector<bool>& absent, const std::string& why,
                  std::vector<Measurement>& measurements) {
  for (std::size_t i = 0; i < measurements.size() && i < plan.terms.size(); ++i) {
    const auto& terms = plan.terms[i];
    if (std::none_of(terms.begin(), terms.end(), [&](std::size_t t) { return t < absent.size() && absent[t]; }))
      continue;
    measurements[i] = failed_measurement(measurements[i].metric, Status::skipped, why);
  }
}

// A partial identity's measurements that need a counter none of its launches collected.
void mark_missing(const MetricPlan& plan, const CombinedCounters& c, std::vector<Measurement>& measurements) {
  skip_needing(plan, c.missing,
               "partial counters: each profiled launch collects one group of the metrics, and this identity's "
               "profiled launches collected " +
                   std::to_string(c.collected) + " of " + std::to_string(c.collectable) +
                   " counters, not this one's (too few launches, or a budget ran out)",
               measurements);
}

// The measurements that need a counter a one-pass process never collects.
void mark_never(const MetricPlan& plan, const std::vector<bool>& never, std::vector<Measurement>& measurements) {
  skip_needing(plan, never,
               "not collected where a launch is replayed one pass (a rank of a distributed job, so that no memory a "
               "peer writes into is restored, or --profile-replay one-pass), and this metric needs more passes on "
               "this GPU (--profile-replay kernel replays every pass, in a rank at the risk of a hung collective)",
               measurements);
}

// What the processes say of source lines for every identity without an instrumented launch: why none.
struct LinesUnavailable {
  Status status = Status::unsupported;
  std::string why;  // "" when they were collected
};

// An identity's code (core/result.hpp CodeIdentity): its kernel's fingerprint from the `c` lines, and its launch
// shape as its params say it (the record has no dynamic shared memory).
CodeIdentity identity_code(const Acc& acc, const std::map<std::string, std::string>& fingerprints) {
  CodeIdentity code;
  if (auto it = fingerprints.find(std::string(acc.mangled)); it != fingerprints.end()) code.fingerprint = it->second;
  code.launch =
      "grid=" + to_string(acc.instance.params.at("grid")) + " block=" + to_string(acc.instance.params.at("block"));
  return code;
}

// One identity's result: its durations, launches, kernel time and share of the device's, with --metrics one
// sample per profiled launch of each metric (combined across its launches' groups), in the plan's order, and
// with source lines its Result::source.
Result identity_result(const Acc& acc, double device_total_ns, const SelectOptions& options, KernelTotals& totals,
                       const LinesUnavailable& lines, SourceTextCache& texts,
                       const std::map<std::uint32_t, const std::vector<bool>*>& not_collected, const PmOrder& pm) {
  Result res;
  res.instance = acc.instance;
  Measurement d;
  d.metric = find_metric("duration")->info;
  d.samples = acc.samples;
  d.summary = summarize(d.samples);
  if (d.samples.empty()) {
    d.status = Status::skipped;
    d.message = acc.unfinished == acc.launches
                    ? "it had not finished when the program ended (its launch was still running)"
                    : "every launch of it was profiled (--metrics), and a profiled launch has no duration";
  }
  res.metrics.push_back(std::move(d));
  res.metrics.push_back(single_value("launches", static_cast<double>(acc.launches)));
  res.metrics.push_back(single_value("gpu_time_total", acc.total_ns));
  const double total = device_total_ns;
  res.metrics.push_back(single_value("gpu_time_share", total > 0 ? 100.0 * acc.total_ns / total : 0.0));
  if (acc.graph_launches == acc.launches) ++totals.identities_graph_only;
  const bool communication = kernel_kind(acc.mangled, options.communication_kernels) == KernelKind::communication;
  if (options.metrics != nullptr && acc.profiled.empty() && communication) {
    ++totals.identities_communication;  // never profiled by the injection library (launch_policy.hpp)
  }
  if (options.metrics != nullptr && !acc.profiled.empty()) {
    std::vector<bool> never;  // what the one-pass processes of its profiled launches could not collect
    for (const LaunchRecord* r : acc.profiled) {
      const auto it = not_collected.find(r->pid);
      if (it == not_collected.end()) continue;
      never.resize(std::max(never.size(), it->second->size()), false);
      for (std::size_t j = 0; j < it->second->size(); ++j) never[j] = never[j] || (*it->second)[j];
    }
    const CombinedCounters combined = combine_counters(acc.profiled, options.metrics->perfworks.size(), never);
    if (combined.partial) {
      ++totals.identities_partial_counters;
    } else {
      ++totals.identities_with_counters;
    }
    std::vector<Measurement> merged;
    for (const std::vector<double>& values : combined.rounds) {
      auto per_launch = evaluate_target(*options.metrics, &values, Status::ok, "", nullptr, "");
      if (merged.empty()) {
        merged = std::move(per_launch);
        continue;
      }
      for (std::size_t j = 0; j < merged.size() && j < per_launch.size(); ++j) {
        if (per_launch[j].status == Status::ok && merged[j].status == Status::ok) {
          merged[j].samples.push_back(per_launch[j].samples.at(0));
        }
      }
    }
    if (combined.partial) mark_missing(*options.metrics, combined, merged);
    mark_never(*options.metrics, never, merged);
    for (auto& m : merged) {
      if (m.status == Status::ok) m.summary = summarize(m.samples);
      res.metrics.push_back(std::move(m));
    }
  }
  if (acc.pm.launches > 0) {  // beside the range-profiled counters, under names of their own (pm_sampling.hpp)
    for (Measurement& m : identity_pm_measurements(acc.pm, pm.metrics, pm.interval_ns))
      res.metrics.push_back(std::move(m));
  }
  if (options.source_lines) {
    NoSourceLaunch none;
    none.communication = communication;
    none.graph_only = acc.graph_launches == acc.launches;
    none.all_profiled = acc.profiled.size() >= acc.launches;
    none.launches = acc.launches;
    res.source = identity_source_lines(acc.sources, texts, lines.status, lines.why, none);
    if (res.source.status == Status::ok) ++totals.identities_with_lines;
  }
  return res;
}

// Why identities have no source lines when a process could not collect them: its "S 0" reason, or, from a
// process that never started them, its errors (another tool holding CUPTI stops metrics and lines alike).
LinesUnavailable lines_unavailable(const std::vector<ProcessRecord>& processes) {
  LinesUnavailable out;
  for (const auto& p : processes) {
    if (p.source && !p.source->unavailable.empty()) {
      out.status = p.source->unavailable_status;
      out.why = p.source->unavailable;
      return out;
    }
  }
  for (const auto& p : processes) {
    if (p.source && p.source->started) return out;
  }
  for (const auto& p : processes) {
    if (!p.launches.empty()) {
      out.why = "the recorded program did not start source lines";
      for (std::size_t i = 0; i < p.errors.size(); ++i) out.why += (i == 0 ? ": " : "; ") + p.errors[i];
      return out;
    }
  }
  return out;
}

}  // namespace

std::map<std::uint32_t, std::vector<Result>> aggregate_launches(const std::vector<ProcessRecord>& processes,
                                                                const std::string& program,
                                                                const SelectOptions& options, KernelTotals& totals) {
  if (program.find('/') != std::string::npos) throw InputError("program name '" + program + "' may not contain '/'");
  std::map<std::string_view, std::string> names;  // mangled -> identity name, demangled once
  const std::vector<Launch> all = launches_in_order(processes, options.naming, names);
  totals = KernelTotals{};
  totals.launches_seen = all.size();
  std::map<std::uint32_t, double> device_total_ns;
  PmOrder pm;
  for (const auto& p : processes) {
    for (const std::string& m : p.pm.metrics) {
      if (std::find(pm.metrics.begin(), pm.metrics.end(), m) == pm.metrics.end()) pm.metrics.push_back(m);
    }
    if (p.pm.window && pm.interval_ns == 0) pm.interval_ns = p.pm.window->interval_ns;
  }
  auto by_device = accumulate(all, program, options, pm, totals, device_total_ns);

  // Per device, the identities heaviest first.
  std::map<std::uint32_t, std::vector<Result>> out;
  const LinesUnavailable lines = options.source_lines ? lines_unavailable(processes) : LinesUnavailable{};
  SourceTextCache texts;  // the line's text from the source on this machine, as `run` reads it
  std::map<std::uint32_t, const std::vector<bool>*> not_collected;  // pid -> its Y line's metrics
  for (const auto& p : processes) {
    if (p.one_pass) not_collected[p.pid] = &p.not_collected;
  }
  std::map<std::string, std::string> fingerprints;  // mangled name -> code fingerprint, from every process
  for (const auto& p : processes) fingerprints.insert(p.fingerprints.begin(), p.fingerprints.end());
  for (auto& [device, accs] : by_device) {
    std::vector<Acc*> order;
    for (auto& [name, acc] : accs) order.push_back(&acc);
    std::stable_sort(order.begin(), order.end(), [](const Acc* a, const Acc* b) { return a->total_ns > b->total_ns; });
    for (Acc* acc : order) {
      out[device].push_back(
          identity_result(*acc, device_total_ns[device], options, totals, lines, texts, not_collected, pm));
      out[device].back().code = identity_code(*acc, fingerprints);
      ++totals.identities;
    }
  }
  return out;
}

}  // namespace gpuperf::record
