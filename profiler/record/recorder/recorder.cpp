#include "profiler/record/recorder/recorder.hpp"
#include "profiler/record/recorder/pm_attribution.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <utility>

#include "core/command_line.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/perfworks_spelling.hpp"
#include "gpuperf/version.hpp"
#include "profiler/collector.hpp"
#include "profiler/cupti/range_backend_loader.hpp"
#include "profiler/git_info.hpp"
#include "profiler/gpu/device_info.hpp"
#include "profiler/gpu/nvml.hpp"
#include "profiler/metric_catalog.hpp"
#include "profiler/metric_plan.hpp"
#include "profiler/record/launch_policy.hpp"
#include "profiler/record/loaded_libraries.hpp"
#include "profiler/record/recorder/program_name.hpp"
#include "profiler/record/recorder/record_file.hpp"
#include "profiler/speed_of_light.hpp"

namespace gpuperf::record {
namespace {

// A temporary folder for the record files, removed with the object unless it was asked to be kept.
class RecordDir {
 public:
  explicit RecordDir(const std::string& keep) : keep_(!keep.empty()) {
    if (keep_) {
      std::filesystem::create_directories(keep);
      path_ = std::filesystem::absolute(keep).string();
      return;
    }
    std::string tmpl = (std::filesystem::temp_directory_path() / "gpuperf-record.XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw EnvironmentError("cannot create a temporary folder for the records");
    path_ = tmpl;
  }
  ~RecordDir() {
    std::error_code ec;
    if (!keep_) std::filesystem::remove_all(path_, ec);  // best effort
  }
  RecordDir(const RecordDir&) = delete;
  RecordDir& operator=(const RecordDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  bool keep_;
  std::string path_;
};

// Whether NVML's quick count may stand in for CUDA's check before the program starts: NVML counts the
// machine's GPUs, not those CUDA_VISIBLE_DEVICES selects, so a selection that hides them all ("", "-1",
// "NoDevFiles") is left to CUDA.
bool gpus_present_quickly() {
  const auto count = gpu::nvml_device_count();
  if (!count || *count == 0) return false;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr) return true;
  const std::string v = visible;
  return !v.empty() && v[0] != '-' && v.rfind("NoDevFiles", 0) != 0;
}

std::string family(const RecordOptions& o) { return o.name.empty() ? program_name(o.command) : program_family(o.name); }

}  // namespace

// The profiler's requests of `names` (the others, static attributes, joined in `left_out`).
static std::vector<MetricRequest> profiler_requests(const std::vector<std::string>& names, std::string& left_out) {
  std::vector<MetricRequest> requests;
  for (auto& r : resolve_metric_requests(names, nullptr)) {
    if (r.source == MetricSource::profiler) {
      requests.push_back(std::move(r));
    } else {
      left_out += (left_out.empty() ? "" : ", ") + r.name;
    }
  }
  return requests;
}

// --metrics default: the plan with the speed-of-light throughputs as TriageCompute metrics, every one of them; the
// program takes it at its first context where the chip accepts them (those it accepts) and it needs fewer passes
// (speed_of_light.hpp). None for another selection.
std::optional<MetricPlan> plan_triage_metrics(const RecordOptions& o) {
  const MetricSelection selection = parse_metrics_option(o.metrics);
  if (!selection.enabled || !selection.from_default) return std::nullopt;
  std::string left_out;
  const auto all = [](const std::string&) { return true; };
  std::vector<MetricRequest> requests = profiler_requests(with_triage_names(selection.names, all), left_out);
  if (requests.empty()) return std::nullopt;
  return plan_metrics(std::move(requests));
}

// `plan` with each counter spelled as `line` spells it (a chip that names it otherwise, as the library asked it:
// perfworks_spellings).
static MetricPlan as_line_spells(const MetricPlan& plan, const std::vector<std::string>& line) {
  const auto in_line = [&](const std::string& p) { return std::find(line.begin(), line.end(), p) != line.end(); };
  std::vector<MetricRequest> requests = plan.requests;
  for (MetricRequest& r : requests) {
    for (std::string& p : r.perfworks) p = chip_spelling(p, in_line);
  }
  return plan_metrics(std::move(requests));
}

// The plan a process's metrics line (C) names: `today`'s, or `triage`'s requests whose counters all are in it (the
// chip refused the others), each counter as the chip spells it; nullopt when neither gives exactly its names.
static std::optional<MetricPlan> plan_of_line(const std::vector<std::string>& line, const MetricPlan& today,
                                              const std::optional<MetricPlan>& triage) {
  if (line == today.perfworks) return today;
  if (MetricPlan spelled = as_line_spells(today, line); spelled.perfworks == line) return spelled;
  if (!triage) return std::nullopt;
  std::vector<MetricRequest> kept;
  for (const MetricRequest& r : as_line_spells(*triage, line).requests) {
    if (std::all_of(r.perfworks.begin(), r.perfworks.end(),
                    [&](const std::string& p) { return std::find(line.begin(), line.end(), p) != line.end(); }))
      kept.push_back(r);
  }
  MetricPlan plan = plan_metrics(std::move(kept));
  if (plan.perfworks != line) return std::nullopt;
  return plan;
}

// The plan the recorded processes profiled with, from their C lines (the first process that wrote one decides);
// a process whose line names another set (a second chip) is told in `warnings`: its counters are not stored.
MetricPlan recorded_plan(const std::vector<ProcessRecord>& processes, const MetricPlan& today,
                         const std::optional<MetricPlan>& triage, std::vector<std::string>& warnings) {
  std::optional<MetricPlan> chosen;
  for (const auto& p : processes) {
    if (p.metric_names.empty()) continue;
    if (!chosen) {
      chosen = plan_of_line(p.metric_names, today, triage);
      if (chosen) continue;
    }
    if (!chosen || p.metric_names != chosen->perfworks)
      warnings.push_back("process " + std::to_string(p.pid) +
                         " profiled another metric set than the other processes (another chip?): its counters are "
                         "not stored");
  }
  return chosen ? *chosen : today;
}

// --metrics: the collector's metric plan (none when not asked); the injection library profiles
// plan.perfworks in that order. `tell`: say through options.note which metrics are left out.
std::optional<MetricPlan> plan_record_metrics(const RecordOptions& o, bool tell) {
  const MetricSelection selection = parse_metrics_option(o.metrics);
  if (!selection.enabled) return std::nullopt;
  std::string left_out;
  std::vector<MetricRequest> requests = profiler_requests(selection.names, left_out);
  if (!left_out.empty() && tell && o.note) {
    o.note(
        "not recorded for a program's kernels (they need the kernel function, which a recorded program does not "
        "give): " +
        left_out);
  }
  if (requests.empty())
    throw InputError("--metrics '" + o.metrics + "' names no hardware metric a program's kernels can give");
  MetricPlan plan = plan_metrics(std::move(requests));
  if (o.profile_launches == 0) throw InputError("--profile-launches must be at least 1 with --metrics");
  return plan;
}

namespace {

void check_before_metrics(const RecordOptions& o) {
  if (o.command.empty()) throw InputError("no program given: -- APP [ARGS...]");
  if (o.select.max_samples == 0) throw InputError("--max-samples must be at least 1");
  for (const std::string& c : o.communication_kernels) {
    // One a line in the library's variable: a substring may hold anything but a line break.
    if (c.empty() || c.find('\n') != std::string::npos)
      throw InputError("--communication-kernel '" + c +
                       "': expected a non-empty substring of a kernel name on one line");
  }
  for (const std::string* pattern : {&o.select.kernel_regex, &o.select.nvtx_include}) {
    if (pattern->find('\n') != std::string::npos)  // the library's configuration is one a line
      throw InputError("--kernel-regex and --nvtx-include take a pattern on one line");
  }
  if (o.pm.on) {
    if (o.pm.nvtx.find('\n') != std::string::npos)
      throw InputError("--pm-sampling-nvtx takes a range name on one line");
    if (!o.pm.nvtx.empty() && !o.nvtx) throw InputError("--pm-sampling-nvtx needs NVTX ranges: drop --no-nvtx");
    if (o.pm.interval_ns == 0 || o.pm.max_samples == 0 || o.pm.buffer_mib == 0 || o.pm.launch_count == 0)
      throw InputError(
          "--pm-sampling-interval, --pm-sampling-buffer-size, --pm-sampling-max-samples and "
          "--pm-sampling-launch-count must be at least 1");
  }
  resolve_program(o.command.front());
  KernelTotals none;
  aggregate_launches({}, family(o), o.select, none);  // bad regexes fail here
}

// The library's configuration (record_config.hpp): the selection it profiles within and, with --metrics, the
// plan's Perfworks names (and the TriageCompute alternative), the CUPTI back end and the launches to profile.
RecordConfig library_config(const std::optional<MetricPlan>& plan, const std::optional<MetricPlan>& triage,
                            const RecordOptions& o) {
  RecordConfig c;
  c.kernel_regex = o.select.kernel_regex;
  c.nvtx_include = o.select.nvtx_include;
  c.launch_skip = o.select.launch_skip;
  c.launch_count = o.select.launch_count;
  c.kernel_name = o.select.naming;
  c.pm_sampling = o.pm.on;
  c.pm_nvtx = o.pm.nvtx;
  c.pm_launch_skip = o.pm.launch_skip;
  c.pm_launch_count = o.pm.launch_count;
  c.pm_interval_ns = o.pm.interval_ns;
  c.pm_buffer_bytes = o.pm.buffer_mib << 20;
  c.pm_max_samples = o.pm.max_samples;
  if (!plan) return c;
  c.metrics = plan->perfworks;
  if (triage) c.metrics_triage = triage->perfworks;
  try {
    c.cupti_module = cupti::find_backend_module();
  } catch (const EnvironmentError& e) {
    throw EnvironmentError(std::string("--metrics needs gpuperf's CUPTI back end: ") + e.what());
  }
  c.profile_launches = o.profile_launches;
  c.profile_budget = o.profile_budget;
  c.profile_ms = o.profile_seconds * 1000;
  c.source_lines = o.source_lines;
  c.profile_watchdog_ms = o.profile_watchdog_ms;
  c.communication_kernels = o.communication_kernels;
  c.profile_groups = o.profile_groups;
  c.replay = parse_replay_choice(o.profile_replay).value_or(ReplayChoice::automatic);
  // The diagnostic settings (GPUPERF_RECORD_PROFILE_TRACE=1, ...) reach the program in the environment it
  // inherits, where their own variables win (record_config.hpp).
  return c;
}

}  // namespace

void fill_rank(Run& run, const std::vector<ProcessRecord>& processes, std::uint32_t device) {
  bool first = true, agree = true;
  std::optional<int> rank, local_rank, world_size;
  for (const auto& p : processes) {
    const bool on_device = std::any_of(p.launches.begin(), p.launches.end(),
                                       [device](const LaunchRecord& l) { return l.device == device; });
    if (!on_device) continue;
    if (first) {
      rank = p.rank;
      local_rank = p.local_rank;
      world_size = p.world_size;
      first = false;
    } else if (p.rank != rank || p.local_rank != local_rank || p.world_size != world_size) {
      agree = false;  // two ranks' processes on one GPU: the run is theirs together, of no one rank
    }
  }
  if (!agree) return;
  run.rank = rank;
  run.local_rank = local_rank;
  run.world_size = world_size;
}

void check_record_options(const RecordOptions& options) {
  check_before_metrics(options);
  plan_record_metrics(options, false);
}

namespace {

// A recorded run's environment (core/environment.hpp): the machine's settings as `run` reads them, less the
// toolkit gpuperf was built with (not the program's), the CUDA libraries and frameworks its processes loaded
// (loaded_libraries.hpp), and what `--env` declared over them.
std::map<std::string, std::string> record_environment(int device, const Machine& machine,
                                                      const std::vector<ProcessRecord>& processes,
                                                      const std::map<std::string, std::string>& declared) {
  std::map<std::string, std::string> out = gpu::describe_environment(device, machine);
  out.erase(env::kToolkit);
  std::vector<std::string> paths;
  for (const ProcessRecord& p : processes) paths.insert(paths.end(), p.libraries.begin(), p.libraries.end());
  for (const auto& [k, v] : library_versions(paths)) out[k] = v;
  for (const auto& [k, v] : declared) out[k] = v;
  return out;
}

}  // namespace

Recording record_program(const RecordOptions& o) {
  const auto started = std::chrono::steady_clock::now();
  check_before_metrics(o);  // exit 2 before anything runs
  SelectOptions select = o.select;
  select.communication_kernels = o.communication_kernels;
  const std::optional<MetricPlan> plan = plan_record_metrics(o, true);
  const std::optional<MetricPlan> triage = plan ? plan_triage_metrics(o) : std::nullopt;
  const RecordConfig config = library_config(plan, triage, o);
  if (plan) select.source_lines = o.source_lines;

  check_no_other_injection();
  // Exit 3 without a GPU, before the program runs. Where NVML sees GPUs that CUDA_VISIBLE_DEVICES does not
  // hide, that answer is enough here, and CUDA's own check (its start-up alone takes 0.03 s on a machine of
  // one H100, 0.3 s on one of two H200s) runs while the program does; if it fails after all, the error
  // comes once the program has ended and nothing is stored.
  if (!gpus_present_quickly()) gpu::device_count();
  Recording out;
  out.program = family(o);
  out.inject_library = find_inject_library();

  RecordDir dir(o.keep_records);
  // While the program runs, gpuperf finds what the runs need of this machine and checkout (the CUDA
  // driver's start-up, NVML, the device properties, git), then reads the records as they are written: once
  // the program has ended, only its last buffers are left to read.
  std::vector<Machine> machines;
  GitInfo git;
  RecordDirReader reader(dir.path());
  bool described = false;
  auto while_running = [&] {
    if (!described) {
      described = true;
      const int devices = gpu::device_count();
      for (int d = 0; d < devices; ++d) machines.push_back(gpu::describe_machine(d));
      if (o.commit.empty() || o.branch.empty()) git = detect_git(".");
    }
    reader.poll();
  };
  out.program_started = std::chrono::steady_clock::now();
  out.seconds_before = std::chrono::duration<double>(out.program_started - started).count();
  out.end = run_program(o.command, dir.path(), out.inject_library, o.nvtx, config, while_running);
  const auto processes = reader.finish();
  out.processes = processes.size();
  out.warnings = record_warnings(processes);
  MetricPlan profiled_plan;  // the set the program chose at its first context (speed_of_light.hpp)
  if (plan) {
    profiled_plan = recorded_plan(processes, *plan, triage, out.warnings);
    select.metrics = &profiled_plan;
  }
  auto by_device = aggregate_launches(processes, out.program, select, out.totals);
  out.flushed = flushed_of(processes);
  const bool incomplete = !out.flushed.complete;
  if (incomplete) out.incomplete = incomplete_message(out.flushed, out.end.exit_status);
  if (plan) out.profiled = describe_profiled(out.totals, processes, o.profile_launches, o.source_lines);
  out.own_work = describe_own_work(processes);
  if (o.pm.on) {
    out.pm_sampling = describe_pm(processes);
    if (out.pm_sampling.empty())
      out.pm_sampling = "no process opened its window (" +
                        (o.pm.nvtx.empty() ? "it made at most " + std::to_string(o.pm.launch_skip) + " launches"
                                           : "no NVTX range '" + o.pm.nvtx + "' was pushed") +
                        ", or PM sampling could not start: see the warnings)";
  }

  if (by_device.empty()) {
    out.nothing_recorded =
        out.totals.launches_seen == 0
            ? nothing_recorded_reason(processes.size(), out.flushed, out.end.exit_status, out.inject_library)
            : "no launch matched the selection";
    if (!o.allow_empty) return out;
    by_device[0] = {};
  }
  const bool failed = out.end.exit_status != 0;
  for (auto& [device, results] : by_device) {
    Run run;
    run.uuid = make_uuid();
    run.started_at = out.end.started_at;
    run.finished_at = out.end.finished_at;
    run.commit = o.commit.empty() ? git.commit : o.commit;
    run.branch = o.branch.empty() ? git.branch : o.branch;
    run.label = o.label;
    run.tool_version = GPUPERF_VERSION;
    run.machine = device < machines.size() ? machines[device] : gpu::describe_machine(static_cast<int>(device));
    run.environment = record_environment(static_cast<int>(device), run.machine, processes, o.environment);
    run.command = command_line(o.command);
    run.exit_status = out.end.exit_status;
    run.results = std::move(results);
    fill_rank(run, processes, device);
    // An incomplete run keeps the kernels' own statuses; each result says that its launch counts and totals
    // stop at the last flush (the schema has no run-level note, and the results are what those numbers are).
    if (incomplete) {
      for (Result& r : run.results) r.message = out.incomplete;
    }
    run.status = (failed || incomplete) ? Status::failed : Status::ok;
    out.runs.push_back(std::move(run));
  }
  if (plan) out.profiled += describe_lacking(out.runs) + describe_excluded(processes);
  if (select.source_lines) out.source_lines = describe_source_lines(out.runs, out.totals, processes);
  return out;
}

}  // namespace gpuperf::record
