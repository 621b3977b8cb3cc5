// The report model: everything the HTML and Markdown writers show, built once from the store's history and
// the analysis's change points. The writers only read it; nothing here does I/O.
//
//   ReportModel
//    └─ MachineReport (one per machine fingerprint; its runs are the x axis of all its charts)
//         ├─ changes: regressions and improvements (change points with commit ranges and hints)
//         ├─ families: variant pairs (e.g. memory/strided against memory/coalesced) and their ratio over time
//         └─ instances: per benchmark instance, one trend series per metric
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/bound.hpp"
#include "db/store.hpp"
#include "reports/analysis/kind_split.hpp"
#include "reports/analysis/program_change.hpp"
#include "reports/analysis/types.hpp"
#include "reports/source_view.hpp"

namespace gpuperf::reports {

// What the user asked to see (gpuperf report's filters), shown in the report's header.
struct ReportQuery {
  std::optional<std::string> branch;
  std::vector<std::string> machines;  // each a fingerprint, hostname or machine id; none: every machine.
                                      // Once loaded (ReportInput::query), the machines read, as the header names them
  std::optional<std::string> since;   // ISO 8601 prefix, e.g. "2026-06" or "2026-06-01"
  std::optional<std::size_t> last;    // each machine's newest N runs

  // The machines joined with ", " (the header's), "all" when none was given.
  std::string machines_text() const;
};

// One position on a machine's time axis.
struct RunRef {
  std::int64_t run_id = 0;
  std::string uuid, commit, branch, started_at;
  std::optional<int> rank, world_size;  // a recorded process of a distributed job (Run::rank), from the window's runs
};

struct TrendPoint {
  std::size_t run = 0;  // index into MachineReport::runs
  Summary summary;      // the plotted value is summary.median
};

// One (instance, metric) series of a machine, in run order.
struct TrendSeries {
  MetricInfo metric;
  std::vector<TrendPoint> points;
  std::vector<analysis::ChangePoint> changes;  // of this series, in run order
  std::vector<std::size_t> change_runs;        // run index of each change (parallel to `changes`)

  bool constant() const;  // every median equal (a flat counter: shown as a line of text, not a chart)
  double latest() const { return points.back().summary.median; }
  double first() const { return points.front().summary.median; }
  // The median at run index `run`, or nullptr where this series has no point.
  const Summary* at(std::size_t run) const;
};

// A kernel's speed of light at the newest run of the window that measured it (core/bound.hpp).
struct InstanceBound {
  std::size_t run = 0;  // index into MachineReport::runs
  SpeedOfLight sol;
  BoundVerdict verdict;
};

struct InstanceTrends {
  BenchmarkInstance instance;
  // instance.name as people read it (core/short_name.hpp): folded to at most 120 characters, unique among the
  // report's names. Tables show it; the HTML keeps the full name on hover and in an expandable element.
  std::string short_name;
  std::string baseline;             // the family baseline benchmark's name, "" for a baseline
  std::vector<TrendSeries> series;  // metric display order: the traits table's order, then by name
  std::size_t regressions = 0, improvements = 0;
  std::optional<InstanceBound> bound;  // none without sm_throughput and memory_throughput at a common run

  std::string family() const;  // "matmul" for "matmul/tiled"
  // display_name() with the short name: "train/kernel<…>[block=256x1x1,grid=64x1x1]".
  std::string short_display_name() const;
  const TrendSeries* find(const std::string& metric) const;
};

// A variant and the baseline instance it pairs with (same values on the axes both share).
struct VariantPair {
  std::size_t variant = 0, baseline = 0;  // indices into MachineReport::instances
  std::string key_metric;                 // the hardware metric that differs most between the two, or ""
  // The ratio of durations, with the same role on top in every pair of a family (reports/family_pairs.cpp,
  // orient_family): the role slower in most of the family's pairs. numerator_is_baseline says which.
  bool numerator_is_baseline = false;
  struct RatioPoint {
    std::size_t run = 0;
    double value = 0;
  };
  std::vector<RatioPoint> ratio;  // numerator duration / denominator duration, at runs where both exist
};

struct FamilyPanel {
  std::string family;
  std::vector<VariantPair> pairs;
};

// A program recorded with `gpuperf record` (its kernels are the instances with a gpu_time_share series):
// its kernels at the newest run that recorded it, the heaviest first.
struct ProgramKernel {
  std::size_t instance = 0;                              // index into MachineReport::instances
  std::optional<double> launches, median_ns, share_pct;  // at the panel's run
  std::optional<double> change_pct;                      // median duration against the run before, when both have one
  bool is_new = false;  // no duration at the run before (the panel's run is not the first)
};

struct ProgramPanel {
  std::string program;                 // the family: the program's name
  std::size_t run = 0;                 // index into MachineReport::runs: the newest run with this program
  std::vector<ProgramKernel> kernels;  // the kernels at `run`, by gpu_time_share, largest first
  double kernel_time_ns = 0;           // the program's kernel time at `run` (sum of gpu_time_total)
  // Its GPU time by kernel kind at `run` (analysis/kind_split.hpp), and at the run before when that run
  // recorded the program too: the writers show the split where there is communication.
  analysis::KindSplit split;
  std::optional<analysis::KindSplit> split_before;
  // The program's GPU time by kernel family (analysis/kernel_family.hpp) at `run` (TimePart::candidate_ns) and
  // at `previous_run` (base_ns), the newest earlier run that recorded it; largest at `run` first. The writers
  // lead the program's section with it.
  std::vector<analysis::TimePart> families;
  std::optional<std::size_t> previous_run;  // index into MachineReport::runs
  double kernel_time_before_ns = 0;         // the program's kernel time at previous_run
};

// A finding as the report lists it: a change point, with the other metrics of the same instance that moved
// at the same run folded into it. A duration change carries the counters that moved with it (as hints);
// a counter that moved without a duration change is a finding of its own, marked so.
struct ChangeRow {
  std::size_t instance = 0;  // index into MachineReport::instances
  std::size_t run = 0;       // index into MachineReport::runs of the first run at the new level
  analysis::ChangePoint change;
  std::vector<analysis::ChangePoint> with;  // counters folded into a duration change (not listed on their own)
  std::vector<std::string> hints;           // the change's root-cause hints, plus any folded change they lack
  bool counter_only = false;                // not a duration change, and the instance has no duration change at its run
  // An environment step (analysis::EnvironmentStep): one finding in place of a row per kernel, as detect shows
  // it. `step`: its description ("driver 580.159.04 -> 590.12: 30 kernels stepped together (30 slower, median
  // +15.0%), same code"); `step_kernels`: each kernel with its change ("suite/k00[n=1024] +15.0%"). The row's
  // `change` and `instance` are its largest change's.
  std::string step;
  std::vector<std::string> step_kernels;
};

// An environment step's row as both writers show it (unescaped): its benchmark cell ("environment step: 30
// kernels") and its hints (the step's description, then its kernels, the first kShownStepKernels of them).
inline constexpr std::size_t kShownStepKernels = 12;
std::string step_name_cell(const ChangeRow& row);
std::vector<std::string> step_hints(const ChangeRow& row);

// A team's note (db::Annotation) placed on a machine's time axis: a run's note at that run, a commit's at the
// first run of the window with that commit, a night's at the machine's first run started that day (UTC).
struct RunNote {
  std::size_t run = 0;  // index into MachineReport::runs
  std::string on;       // "run 1a2b3c4d", "commit 3f2a1c9e", "night 2026-11-20"
  std::string text, by, at;
};
// The notes of `notes` that fall on `m`'s runs, in run order (reports/report_answers.cpp).
struct MachineReport;
std::vector<RunNote> place_notes(const MachineReport& m, const std::vector<db::Annotation>& notes);
// A finding's state as the reports show it: "accepted: REASON" or "acknowledged: REASON" when the team answered
// it (gpuperf ack), else format_state's "confirmed" or "unconfirmed (N runs)".
std::string change_state(const analysis::ChangePoint& cp);

struct MachineReport {
  std::int64_t machine_id = 0;
  std::string fingerprint;
  Machine machine;
  std::vector<RunRef> runs;               // the runs of the window that have results, oldest first
  std::optional<db::RunInfo> latest;      // the newest of them
  std::vector<ChangeRow> regressions;     // findings: newest first, then the largest change first
  std::vector<ChangeRow> improvements;    // same order (a finding's kind is its duration change's)
  std::vector<FamilyPanel> families;      // by family name
  std::vector<ProgramPanel> programs;     // recorded programs, by name
  std::vector<InstanceTrends> instances;  // by name, then parameter values (n=512 before n=1024)
  std::size_t series_count = 0;
  // The machine's name, as every command names it (core machine_name): "node1 (NVIDIA H200, GPU-4fc4ff4a)".
  std::string host;
  // Each instance's source lines at the newest run (source_view.hpp), by BenchmarkInstance::display_name().
  std::map<std::string, InstanceSource> sources;
  std::vector<RunNote> notes;  // the team's annotations on this machine's runs, in run order

  std::string title() const;  // the machine's name (host)
  // "slower/faster" for a pair's ratio, by benchmark variant names ("naive/tiled"), as every writer labels it.
  std::string ratio_label(const VariantPair& pair) const;
};

struct ReportModel {
  ReportQuery query;
  std::string tool_version;
  std::vector<MachineReport> machines;  // by hostname, then fingerprint
  std::size_t total_runs() const;
  std::size_t total_regressions() const;
  std::size_t total_improvements() const;
};

// What the model is built from: plain data, so tests can build it by hand.
struct ReportInput {
  ReportQuery query;
  std::string tool_version;
  std::vector<db::MachineRow> machines;
  std::vector<db::RunInfo> runs;   // the runs of the window (for the summary's latest run)
  std::vector<db::Series> series;  // history() of the window, without raw samples
  std::vector<analysis::ChangePoint> change_points;
  // The kernels of one machine that stepped together with its environment (analysis::attach_identities), each
  // one finding: ChangePoint::environment_step numbers them from 1.
  std::vector<analysis::EnvironmentStep> environment_steps;
  std::map<std::string, std::string> baselines;  // benchmark name -> its family baseline's name
  std::vector<InstanceSource> sources;           // load_instance_sources() of the window
  std::vector<db::Annotation> annotations;       // the team's notes (db::Store::annotations)
};

ReportModel build_report_model(ReportInput input);

// The speed of light of `instance` at the newest run where both sm_throughput and memory_throughput have a
// point (dram_throughput when it has one there too); none without such a run.
std::optional<InstanceBound> latest_bound(const InstanceTrends& instance);

// The recorded programs among `instances` (see ProgramPanel), by name.
std::vector<ProgramPanel> build_program_panels(const std::vector<InstanceTrends>& instances);

// The level at each end of a window of values, oldest first: the median of its first and of its last k values
// (k = n/10, between 1 and 5), so one noisy run does not make a trend. {0, 0} for no values.
std::pair<double, double> window_levels(const std::vector<double>& values);

// Display rank of a metric: the traits table's order; unknown metrics after it.
std::size_t metric_rank(const std::string& name);

}  // namespace gpuperf::reports
