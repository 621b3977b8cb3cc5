#include "reports/report_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "core/metrics.hpp"
#include "core/short_name.hpp"
#include "core/value_text.hpp"
#include "reports/analysis/detect.hpp"
#include "reports/analysis/identity_findings.hpp"
#include "reports/family_pairs.hpp"
#include "reports/format.hpp"

namespace gpuperf::reports {

std::string ReportQuery::machines_text() const {
  if (machines.empty()) return "all";
  std::string out;
  for (const auto& m : machines) out += (out.empty() ? "" : ", ") + m;
  return out;
}

bool TrendSeries::constant() const {
  for (const auto& p : points) {
    if (p.summary.median != points.front().summary.median) return false;
  }
  return true;
}

const Summary* TrendSeries::at(std::size_t run) const {
  auto it =
      std::lower_bound(points.begin(), points.end(), run, [](const TrendPoint& p, std::size_t r) { return p.run < r; });
  if (it == points.end() || it->run != run) return nullptr;
  return &it->summary;
}

std::string InstanceTrends::family() const { return benchmark_family(instance.name); }

std::string InstanceTrends::short_display_name() const {
  BenchmarkInstance shown = instance;
  if (!short_name.empty()) shown.name = short_name;
  return shown.display_name();
}

const TrendSeries* InstanceTrends::find(const std::string& metric) const {
  for (const auto& s : series) {
    if (s.metric.name == metric) return &s;
  }
  return nullptr;
}

std::string MachineReport::title() const { return host; }

std::string MachineReport::ratio_label(const VariantPair& pair) const {
  const auto& v = instances[pair.variant].instance;
  const auto& b = instances[pair.baseline].instance;
  const std::string& num = pair.numerator_is_baseline ? b.name : v.name;
  const std::string& den = pair.numerator_is_baseline ? v.name : b.name;
  if (benchmark_variant(num) == benchmark_variant(den)) return num + " / " + den;
  return benchmark_variant(num) + "/" + benchmark_variant(den);
}

std::size_t ReportModel::total_runs() const {
  std::size_t n = 0;
  for (const auto& m : machines) n += m.runs.size();
  return n;
}

std::string step_name_cell(const ChangeRow& row) {
  return "environment step: " + std::to_string(row.step_kernels.size()) + " kernels";
}

std::vector<std::string> step_hints(const ChangeRow& row) {
  std::string kernels;
  for (std::size_t i = 0; i < row.step_kernels.size() && i < kShownStepKernels; ++i) {
    kernels += (i == 0 ? "" : ", ") + row.step_kernels[i];
  }
  if (row.step_kernels.size() > kShownStepKernels) {
    kernels += " and " + std::to_string(row.step_kernels.size() - kShownStepKernels) + " more";
  }
  return {row.step, "kernels: " + kernels};
}

std::size_t ReportModel::total_regressions() const {
  std::size_t n = 0;
  for (const auto& m : machines) n += m.regressions.size();
  return n;
}

std::size_t ReportModel::total_improvements() const {
  std::size_t n = 0;
  for (const auto& m : machines) n += m.improvements.size();
  return n;
}

std::pair<double, double> window_levels(const std::vector<double>& values) {
  if (values.empty()) return {0, 0};
  const std::size_t k = std::clamp<std::size_t>(values.size() / 10, 1, 5);
  const auto k_diff = static_cast<std::ptrdiff_t>(k);
  return {median(std::vector<double>(values.begin(), values.begin() + k_diff)),
          median(std::vector<double>(values.end() - k_diff, values.end()))};
}

std::size_t metric_rank(const std::string& name) {
  const auto& table = known_metrics();
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].info.name == name) return i;
  }
  return table.size();
}

namespace {

bool run_before(const RunRef& a, const RunRef& b) {
  return std::tie(a.started_at, a.run_id) < std::tie(b.started_at, b.run_id);
}

// Newest first, then the largest change first, then by name so the order is total.
void sort_changes(std::vector<ChangeRow>& rows, const std::vector<InstanceTrends>& instances) {
  std::sort(rows.begin(), rows.end(), [&](const ChangeRow& a, const ChangeRow& b) {
    if (a.run != b.run) return a.run > b.run;
    // Within a run, duration first: it is what users feel, and its hints name the counters listed after it.
    const bool a_dur = a.change.metric.name == "duration", b_dur = b.change.metric.name == "duration";
    if (a_dur != b_dur) return a_dur;
    const double ca = std::fabs(a.change.change_pct), cb = std::fabs(b.change.change_pct);
    if (ca != cb) return ca > cb;
    const auto& na = instances[a.instance].instance.display_name();
    const auto& nb = instances[b.instance].instance.display_name();
    if (na != nb) return na < nb;
    return metric_rank(a.change.metric.name) < metric_rank(b.change.metric.name);
  });
}

// The duration change of the same instance that `row`'s change belongs to: at the same run, or within one
// run for a noisy metric (whose change point is placed to within a run, as root_cause_hints() allows).
ChangeRow* duration_change_of(const ChangeRow& row, std::vector<ChangeRow>& rows) {
  for (ChangeRow& d : rows) {
    if (d.instance != row.instance || d.change.metric.name != "duration") continue;
    const std::size_t apart = d.run > row.run ? d.run - row.run : row.run - d.run;
    if (apart == 0 || (apart == 1 && !row.change.metric.deterministic)) return &d;
  }
  return nullptr;
}

// Folds the changes of one run of one instance into findings (ChangeRow) and lists them. GB/s and GFLOP/s
// follow the duration and add nothing to its finding; a counter adds itself as a hint when the duration's
// hints lack it. A counter change with no duration change is listed alone, marked counter_only when
// the instance has a duration series (one with no change found, which may also mean too few runs to tell).
void add_findings(MachineReport& m, std::vector<ChangeRow>& rows) {
  std::vector<bool> folded(rows.size(), false);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ChangeRow& row = rows[i];
    if (row.change.metric.name == "duration") continue;
    ChangeRow* d = duration_change_of(row, rows);
    if (d == nullptr) {
      row.counter_only = m.instances[row.instance].find("duration") != nullptr;
      continue;
    }
    folded[i] = true;
    const MetricTraits* traits = find_metric(row.change.metric.name);
    if (traits != nullptr && traits->source == MetricSource::derived) continue;
    d->with.push_back(row.change);
    const std::string& name = row.change.metric.name;
    const bool hinted = std::any_of(d->hints.begin(), d->hints.end(),
                                    [&](const std::string& h) { return h.rfind(name + ' ', 0) == 0; });
    if (!hinted) {
      d->hints.push_back(name + ' ' + format_value(row.change.before, row.change.metric.unit, UnitText::terminal) +
                         " -> " + format_value(row.change.after, row.change.metric.unit, UnitText::terminal));
    }
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (folded[i]) continue;
    InstanceTrends& it = m.instances[rows[i].instance];
    if (rows[i].change.kind == analysis::ChangeKind::regression) {
      m.regressions.push_back(std::move(rows[i]));
      ++it.regressions;
    } else {
      m.improvements.push_back(std::move(rows[i]));
      ++it.improvements;
    }
  }
}

// The rows of one environment step become one (ChangeRow::step), as detect shows it: the row of its largest
// change stays, naming the step and its kernels; the charts keep every kernel's marker.
void fold_environment_steps(MachineReport& m, std::vector<ChangeRow>& rows, const ReportInput& input) {
  std::map<std::size_t, std::size_t> kept;  // step number -> index of its row in `out`
  std::vector<ChangeRow> out;
  for (ChangeRow& row : rows) {
    const std::size_t k = row.change.environment_step;
    if (k == 0 || k > input.environment_steps.size() || row.change.metric.name != "duration") {
      out.push_back(std::move(row));
      continue;
    }
    const std::string kernel = m.instances[row.instance].short_display_name() + " " +
                               format_change(row.change.before, row.change.after, row.change.change_pct);
    const auto it = kept.find(k);
    if (it == kept.end()) {
      row.step = analysis::describe_step(input.environment_steps[k - 1], input.change_points);
      row.step_kernels = {kernel};
      kept.emplace(k, out.size());
      out.push_back(std::move(row));
      continue;
    }
    ChangeRow& first = out[it->second];
    first.step_kernels.push_back(kernel);
    if (std::abs(row.change.change_pct) > std::abs(first.change.change_pct)) {
      std::swap(first.change, row.change);
      std::swap(first.instance, row.instance);
      std::swap(first.run, row.run);
      std::swap(first.hints, row.hints);
    }
  }
  rows = std::move(out);
}

// The x axis: every run that left a point in one of this machine's series, in run order; and each run's index.
std::unordered_map<std::int64_t, std::size_t> run_axis(MachineReport& m, const std::vector<db::Series*>& series,
                                                       const std::vector<db::RunInfo>& runs) {
  std::unordered_map<std::int64_t, const db::RunInfo*> info;
  for (const auto& r : runs) info.emplace(r.id, &r);
  std::unordered_map<std::int64_t, RunRef> by_id;
  for (const db::Series* s : series) {
    for (const auto& p : s->points) {
      auto [it, fresh] = by_id.try_emplace(p.run_id);
      if (!fresh) continue;
      RunRef& ref = it->second;
      ref.run_id = p.run_id;
      ref.uuid = p.run_uuid;
      ref.commit = p.commit;
      ref.branch = p.branch;
      ref.started_at = p.started_at;
      if (auto i = info.find(p.run_id); i != info.end()) {
        ref.rank = i->second->rank;
        ref.world_size = i->second->world_size;
      }
    }
  }
  for (auto& [id, ref] : by_id) m.runs.push_back(ref);
  std::sort(m.runs.begin(), m.runs.end(), run_before);
  std::unordered_map<std::int64_t, std::size_t> run_index;
  for (std::size_t i = 0; i < m.runs.size(); ++i) run_index[m.runs[i].run_id] = i;
  return run_index;
}

// Series grouped by instance, instances by name then parameters compared as values (n=512 before n=1024),
// each instance's series in the traits table's order. Returns display name -> instance index.
std::map<std::string, std::size_t> group_instances(MachineReport& m, std::vector<db::Series*>& series,
                                                   const std::unordered_map<std::int64_t, std::size_t>& run_index,
                                                   const ReportInput& input) {
  std::map<std::string, std::size_t> instance_of;  // display name -> index
  for (db::Series* s : series) {
    if (s->points.empty()) continue;
    const std::string name = s->key.instance.display_name();
    auto [it, fresh] = instance_of.try_emplace(name, m.instances.size());
    if (fresh) {
      InstanceTrends t;
      t.instance = s->key.instance;
      if (auto b = input.baselines.find(t.instance.name); b != input.baselines.end()) t.baseline = b->second;
      m.instances.push_back(std::move(t));
    }
    TrendSeries ts;
    ts.metric = s->key.metric;
    ts.points.reserve(s->points.size());
    for (const auto& p : s->points) ts.points.push_back(TrendPoint{run_index.at(p.run_id), p.summary});
    std::sort(ts.points.begin(), ts.points.end(),
              [](const TrendPoint& a, const TrendPoint& b) { return a.run < b.run; });
    m.instances[it->second].series.push_back(std::move(ts));
    ++m.series_count;
  }
  std::sort(m.instances.begin(), m.instances.end(), [](const InstanceTrends& a, const InstanceTrends& b) {
    return std::tie(a.instance.name, a.instance.params) < std::tie(b.instance.name, b.instance.params);
  });
  instance_of.clear();
  for (std::size_t i = 0; i < m.instances.size(); ++i) {
    auto& inst = m.instances[i];
    instance_of[inst.instance.display_name()] = i;
    std::sort(inst.series.begin(), inst.series.end(), [](const TrendSeries& a, const TrendSeries& b) {
      return std::make_pair(metric_rank(a.metric.name), a.metric.name) <
             std::make_pair(metric_rank(b.metric.name), b.metric.name);
    });
  }
  return instance_of;
}

// Change points join their series by (machine, instance, metric) and their run by id; a change whose run is
// outside the window is not shown. Every change is flagged on its own chart (in run order); the lists hold
// findings.
void place_changes(MachineReport& m, const std::map<std::string, std::size_t>& instance_of,
                   const std::unordered_map<std::int64_t, std::size_t>& run_index, const ReportInput& input) {
  std::vector<ChangeRow> rows;
  for (const auto& cp : input.change_points) {
    if (cp.machine != m.fingerprint) continue;
    auto inst = instance_of.find(cp.instance.display_name());
    if (inst == instance_of.end()) continue;
    auto run = run_index.find(cp.run_id);
    if (run == run_index.end()) continue;
    TrendSeries* ts = nullptr;
    for (auto& s : m.instances[inst->second].series) {
      if (s.metric.name == cp.metric.name) ts = &s;
    }
    if (ts == nullptr) continue;
    ts->changes.push_back(cp);
    ts->change_runs.push_back(run->second);
    rows.push_back(ChangeRow{inst->second, run->second, cp, {}, cp.hints, false, {}, {}});
  }
  add_findings(m, rows);
  for (auto& inst : m.instances) {
    for (auto& s : inst.series) {
      std::vector<std::size_t> order(s.changes.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(),
                [&](std::size_t a, std::size_t b) { return s.change_runs[a] < s.change_runs[b]; });
      std::vector<analysis::ChangePoint> changes;
      std::vector<std::size_t> change_runs;
      for (std::size_t i : order) {
        changes.push_back(std::move(s.changes[i]));
        change_runs.push_back(s.change_runs[i]);
      }
      s.changes = std::move(changes);
      s.change_runs = std::move(change_runs);
    }
  }
  fold_environment_steps(m, m.regressions, input);
  fold_environment_steps(m, m.improvements, input);
  sort_changes(m.regressions, m.instances);
  sort_changes(m.improvements, m.instances);
}

MachineReport build_machine(const db::MachineRow* machine_row, std::int64_t machine_id,
                            std::vector<db::Series*>& series, const std::vector<db::RunInfo>& runs,
                            const ReportInput& input) {
  MachineReport m;
  m.machine_id = machine_id;
  if (machine_row != nullptr) {
    m.fingerprint = machine_row->fingerprint;
    m.machine = machine_row->machine;
  } else if (!series.empty()) {
    m.fingerprint = series.front()->key.fingerprint;
  }
  const std::unordered_map<std::int64_t, std::size_t> run_index = run_axis(m, series, runs);

  // The summary's latest run: the newest of the window's runs on this machine.
  for (const auto& r : runs) {
    if (r.machine_id != machine_id) continue;
    if (!m.latest || std::tie(r.started_at, r.id) > std::tie(m.latest->started_at, m.latest->id)) m.latest = r;
  }

  const std::map<std::string, std::size_t> instance_of = group_instances(m, series, run_index, input);
  place_changes(m, instance_of, run_index, input);
  for (InstanceTrends& t : m.instances) t.bound = latest_bound(t);
  m.families = build_family_panels(m.instances);
  m.programs = build_program_panels(m.instances);
  m.notes = place_notes(m, input.annotations);
  return m;
}

}  // namespace

ReportModel build_report_model(ReportInput input) {
  ReportModel model;
  model.query = input.query;
  model.tool_version = input.tool_version;

  // Machines that have series, or at least runs in the window.
  std::map<std::int64_t, std::vector<db::Series*>> by_machine;
  for (auto& s : input.series) by_machine[s.key.machine_id].push_back(&s);
  for (const auto& r : input.runs) by_machine.try_emplace(r.machine_id);

  for (auto& [id, series] : by_machine) {
    const db::MachineRow* row = nullptr;
    for (const auto& mr : input.machines) {
      if (mr.id == id) row = &mr;
    }
    model.machines.push_back(build_machine(row, id, series, input.runs, input));
  }
  for (auto& src : input.sources) {  // each kernel's source lines, to its machine
    for (auto& m : model.machines) {
      if (m.fingerprint == src.fingerprint) m.sources[src.instance.display_name()] = std::move(src);
    }
  }
  // Machines grouped by GPU generation, newest first (a fleet's H100s together, then its A100s, then its T4s),
  // by hostname within one.
  const auto generation = [](const Machine& m) {
    int major = 0, minor = 0;
    if (std::sscanf(m.cc.c_str(), "%d.%d", &major, &minor) != 2) return -1;  // unknown: last
    return major * 100 + minor;
  };
  std::sort(model.machines.begin(), model.machines.end(), [&](const MachineReport& a, const MachineReport& b) {
    const int newer_a = -generation(a.machine), newer_b = -generation(b.machine);
    return std::tie(newer_a, a.machine.hostname, a.fingerprint, a.machine_id) <
           std::tie(newer_b, b.machine.hostname, b.fingerprint, b.machine_id);
  });
  // Short names, unique across the whole report (a kernel keeps one short name on every machine).
  std::vector<std::string> names;
  for (const auto& m : model.machines) {
    for (const auto& inst : m.instances) names.push_back(inst.instance.name);
  }
  const ShortNames short_names(names);
  for (auto& m : model.machines) {
    for (auto& inst : m.instances) inst.short_name = short_names(inst.instance.name);
  }
  for (auto& m : model.machines) m.host = machine_name(m.machine.hostname, m.machine.gpu_name, m.fingerprint);
  return model;
}

std::optional<InstanceBound> latest_bound(const InstanceTrends& instance) {
  const TrendSeries* sm = instance.find("sm_throughput");
  const TrendSeries* memory = instance.find("memory_throughput");
  if (sm == nullptr || memory == nullptr) return std::nullopt;
  for (auto p = sm->points.rbegin(); p != sm->points.rend(); ++p) {
    const Summary* mem = memory->at(p->run);
    if (mem == nullptr) continue;
    InstanceBound b;
    b.run = p->run;
    b.sol.sm = p->summary.median;
    b.sol.memory = mem->median;
    if (const TrendSeries* dram = instance.find("dram_throughput")) {
      if (const Summary* d = dram->at(p->run)) b.sol.dram = d->median;
    }
    b.verdict = classify_bound(b.sol);
    return b;
  }
  return std::nullopt;
}

namespace {

// The panel's GPU time by kernel family at its run and at the newest earlier run that recorded the program.
void program_families(ProgramPanel& p, const std::vector<InstanceTrends>& instances,
                      const std::vector<std::size_t>& indices) {
  for (std::size_t i : indices) {
    const TrendSeries* total = instances[i].find("gpu_time_total");
    if (total == nullptr) continue;
    for (const TrendPoint& pt : total->points) {
      if (pt.run < p.run && (!p.previous_run || pt.run > *p.previous_run)) p.previous_run = pt.run;
    }
  }
  static const analysis::KernelFamilies kFamilies;  // the built-in table: a report has no --kernel-family
  std::map<std::string, analysis::TimePart> parts;
  for (std::size_t i : indices) {
    const TrendSeries* total = instances[i].find("gpu_time_total");
    if (total == nullptr) continue;
    const std::string family = kFamilies.family_of_instance(instances[i].instance.name);
    analysis::TimePart& t = parts[family];
    t.name = family;
    if (const Summary* v = total->at(p.run)) {
      t.candidate_ns += v->median;
      ++t.candidate_kernels;
    }
    if (const Summary* v = p.previous_run ? total->at(*p.previous_run) : nullptr) {
      t.base_ns += v->median;
      ++t.base_kernels;
      p.kernel_time_before_ns += v->median;
    }
  }
  for (auto& [name, part] : parts) {
    if (part.candidate_kernels + part.base_kernels > 0) p.families.push_back(std::move(part));
  }
  std::stable_sort(p.families.begin(), p.families.end(), [](const analysis::TimePart& a, const analysis::TimePart& b) {
    return a.candidate_ns > b.candidate_ns;
  });
}

}  // namespace

std::vector<ProgramPanel> build_program_panels(const std::vector<InstanceTrends>& instances) {
  std::map<std::string, std::vector<std::size_t>> members;
  std::map<std::string, std::size_t> newest;
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const TrendSeries* share = instances[i].find("gpu_time_share");
    if (share == nullptr || share->points.empty()) continue;
    members[instances[i].family()].push_back(i);
    newest[instances[i].family()] = std::max(newest[instances[i].family()], share->points.back().run);
  }
  std::vector<ProgramPanel> out;
  for (const auto& [name, indices] : members) {
    ProgramPanel p;
    p.program = name;
    p.run = newest[name];
    for (std::size_t i : indices) {
      auto at = [&](const char* metric, std::size_t run) -> std::optional<double> {
        const TrendSeries* s = instances[i].find(metric);
        const Summary* v = s != nullptr ? s->at(run) : nullptr;
        return v != nullptr ? std::optional<double>(v->median) : std::nullopt;
      };
      ProgramKernel k;
      k.instance = i;
      k.share_pct = at("gpu_time_share", p.run);
      // Only the kernels of the newest run: one that stopped running is history, not the program's profile now.
      if (!k.share_pct) continue;
      k.launches = at("launches", p.run);
      k.median_ns = at("duration", p.run);
      if (p.run > 0 && k.median_ns) {
        const auto before = at("duration", p.run - 1);
        if (before && *before > 0) {
          k.change_pct = (*k.median_ns / *before - 1) * 100;
        } else {
          k.is_new = true;
        }
      }
      p.kernel_time_ns += at("gpu_time_total", p.run).value_or(0.0);
      if (const auto total = at("gpu_time_total", p.run)) {
        analysis::add_kernel(p.split, instances[i].instance.name, *total, k.launches.value_or(0.0));
      }
      p.kernels.push_back(k);
    }
    // The run before, where it recorded the program: its kernels, whether or not they still run.
    if (p.run > 0) {
      analysis::KindSplit before;
      for (std::size_t i : indices) {
        const TrendSeries* total = instances[i].find("gpu_time_total");
        const Summary* v = total != nullptr ? total->at(p.run - 1) : nullptr;
        if (v == nullptr) continue;
        const TrendSeries* launches = instances[i].find("launches");
        const Summary* n = launches != nullptr ? launches->at(p.run - 1) : nullptr;
        analysis::add_kernel(before, instances[i].instance.name, v->median, n != nullptr ? n->median : 0.0);
      }
      if (before.compute.kernels + before.communication.kernels > 0) p.split_before = before;
    }
    std::stable_sort(p.kernels.begin(), p.kernels.end(),
                     [](const ProgramKernel& a, const ProgramKernel& b) { return *a.share_pct > *b.share_pct; });
    program_families(p, instances, indices);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace gpuperf::reports
