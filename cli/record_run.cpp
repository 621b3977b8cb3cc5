#include "cli/record_run.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/open_store.hpp"
#include "core/command_line.hpp"
#include "core/errors.hpp"
#include "core/short_name.hpp"
#include "db/store.hpp"
#include "gpuperf/version.hpp"
#include "profiler/collector.hpp"
#include "profiler/cupti/range_backend_loader.hpp"
#include "profiler/git_info.hpp"
#include "profiler/gpu/device_info.hpp"
#include "profiler/gpu/nvml.hpp"
#include "profiler/metric_catalog.hpp"
#include "profiler/metric_plan.hpp"
#include "profiler/record/aggregate.hpp"
#include "profiler/record/launch.hpp"
#include "profiler/record/program_name.hpp"
#include "profiler/record/record_file.hpp"
#include "reports/format.hpp"

namespace gpuperf::cli {
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

}  // namespace

std::string format_top_kernels(const Run& run, std::size_t top) {
  std::string out = "kernel (top " + std::to_string(std::min(top, run.results.size())) + " of " +
                    std::to_string(run.results.size()) + " by GPU time)  launches  median  total  share\n";
  std::vector<std::string> names;
  for (const Result& r : run.results) names.push_back(r.instance.name);
  const ShortNames short_names(names);
  for (std::size_t i = 0; i < run.results.size() && i < top; ++i) {
    const Result& r = run.results[i];
    auto value = [&](const char* metric) {
      const Measurement* m = r.find(metric);
      return m != nullptr ? m->summary.median : 0.0;
    };
    const std::string name = short_names.display_name(r.instance);
    char line[160];
    std::snprintf(line, sizeof line, "  %.0f  %s  %s  %.1f%%\n", value("launches"),
                  reports::format_value(value("duration"), "ns").c_str(), reports::format_value(value("gpu_time_total"), "ns").c_str(),
                  value("gpu_time_share"));
    out += name + line;
  }
  return out;
}


void add_record_options(CLI::App* cmd, RecordArgs& a, bool metrics) {
  cmd->add_option("--name", a.name,
                  "Program name the kernels are stored under (default: the script an interpreter or launcher runs, "
                  "without its extension, else the executable's base name)");
  cmd->add_option("--kernel-regex", a.kernel_regex, "Only kernels whose name matches this ECMAScript regex");
  cmd->add_option("--nvtx-include", a.nvtx_include,
                  "Only launches whose NVTX range path (outer/inner) matches this ECMAScript regex");
  cmd->add_option("--launch-skip", a.launch_skip, "Skip the first N selected launches");
  cmd->add_option("--launch-count", a.launch_count, "Keep at most N selected launches after the skipped ones");
  cmd->add_option("--max-samples", a.max_samples,
                  "Durations stored per kernel (the first ones; launch counts and totals cover all)");
  cmd->add_option("--kernel-name", a.kernel_name, "demangled (template arguments kept, no parameter list), function, or mangled")
      ->check(CLI::IsMember({"demangled", "function", "mangled"}));
  cmd->add_flag("--no-nvtx", a.no_nvtx,
                "Record no NVTX range paths (saves tracing each launch call; identities then have no nvtx)");
  cmd->add_flag("--allow-empty", a.allow_empty, "Store an empty run when the program launched no kernel");
  cmd->add_option("--keep-records", a.keep_records, "Keep the raw record files in this folder");
  cmd->add_option("--profile-launches", a.profile_launches,
                  "With --metrics: launches profiled per kernel, the first ones (each costs a replay)");
  if (!metrics) return;
  cmd->add_option("--metrics", a.metrics,
                  "Hardware metrics of the first launches of each kernel (kernel replay): none (default), default, "
                  "or a list of gpuperf and Perfworks names");
}

int program_exit_code(const Recorded& recorded, const RecordArgs& a) {
  if (recorded.exit_status == 0) return kExitOk;
  std::fprintf(stderr, "gpuperf: error: %s ended with %s (stored with the run)\n", a.command.front().c_str(),
               describe_exit_status(recorded.exit_status).c_str());
  return kExitProgramFailed;
}

Recorded record_and_store(const Context& ctx, const RecordArgs& a) {
  const auto started = std::chrono::steady_clock::now();
  if (a.command.empty()) throw InputError("no program given: -- APP [ARGS...]");
  if (a.max_samples == 0) throw InputError("--max-samples must be at least 1");
  record::SelectOptions select;
  select.kernel_regex = a.kernel_regex;
  select.nvtx_include = a.nvtx_include;
  select.launch_skip = a.launch_skip;
  select.launch_count = a.launch_count;
  select.max_samples = a.max_samples;
  select.naming = record::kernel_naming_from_string(a.kernel_name);
  const std::string program = a.name.empty() ? record::program_name(a.command) : record::program_family(a.name);
  record::resolve_program(a.command.front());  // exit 2 before anything runs
  {
    record::KernelTotals none;
    record::aggregate_launches({}, program, select, none);  // bad regexes fail before the program runs
  }
  // --metrics: the collector's metric plan; the injection library profiles plan.perfworks in that order.
  std::vector<std::pair<std::string, std::string>> env;
  std::optional<MetricPlan> plan;
  if (const MetricSelection selection = parse_metrics_option(a.metrics); selection.enabled) {
    std::vector<MetricRequest> requests;
    std::string left_out;
    for (auto& r : resolve_metric_requests(selection.names, nullptr)) {
      if (r.source == MetricSource::profiler) {
        requests.push_back(std::move(r));
      } else {
        left_out += (left_out.empty() ? "" : ", ") + r.name;
      }
    }
    if (!left_out.empty() && !ctx.quiet) {
      std::fprintf(stderr, "gpuperf: note: not recorded for a program's kernels (they need the kernel function, "
                   "which a recorded program does not give): %s\n", left_out.c_str());
    }
    if (requests.empty()) throw InputError("--metrics '" + a.metrics + "' names no hardware metric a program's kernels can give");
    plan = plan_metrics(std::move(requests));
    if (a.profile_launches == 0) throw InputError("--profile-launches must be at least 1 with --metrics");
    std::string names, module;
    for (const auto& n : plan->perfworks) names += (names.empty() ? "" : ",") + n;
    try {
      module = cupti::find_backend_module();
    } catch (const EnvironmentError& e) {
      throw EnvironmentError(std::string("--metrics needs gpuperf's CUPTI back end: ") + e.what());
    }
    env = {{"GPUPERF_RECORD_METRICS", names},
           {"GPUPERF_RECORD_CUPTI_MODULE", module},
           {"GPUPERF_RECORD_PROFILE_LAUNCHES", std::to_string(a.profile_launches)}};
    select.metrics = &*plan;
  }

  record::check_no_other_injection();
  // Exit 3 without a GPU, before the program runs. Where NVML sees GPUs that CUDA_VISIBLE_DEVICES does not
  // hide, that answer is enough here, and CUDA's own check (its start-up alone takes 0.03 s on a machine of
  // one H100, 0.3 s on one of two H200s) runs while the program does; if it fails after all, the error
  // comes once the program has ended and nothing is stored.
  if (!gpus_present_quickly()) gpu::device_count();
  const std::string inject = record::find_inject_library();

  RecordDir dir(a.keep_records);
  // While the program runs, gpuperf finds what the runs need of this machine and checkout (the CUDA
  // driver's start-up, NVML, the device properties, git), then reads the records as they are written: once
  // the program has ended, only its last buffers are left to read.
  std::vector<Machine> machines;
  GitInfo git;
  record::RecordDirReader reader(dir.path());
  bool described = false;
  auto while_running = [&] {
    if (!described) {
      described = true;
      const int devices = gpu::device_count();
      for (int d = 0; d < devices; ++d) machines.push_back(gpu::describe_machine(d));
      if (a.commit.empty() || a.branch.empty()) git = detect_git(".");
    }
    reader.poll();
  };
  const auto program_started = std::chrono::steady_clock::now();
  const record::ProgramEnd end =
      record::run_program(a.command, dir.path(), inject, !a.no_nvtx, env, while_running);
  const auto processes = reader.finish();
  record::KernelTotals totals;
  auto by_device = record::aggregate_launches(processes, program, select, totals);

  bool incomplete = false;
  std::uint64_t dropped = 0;
  for (const auto& p : processes) {
    for (const auto& e : p.errors) std::fprintf(stderr, "gpuperf: warning: process %u: %s\n", p.pid, e.c_str());
    if (!p.complete) {
      incomplete = true;
      std::fprintf(stderr,
                   "gpuperf: warning: process %u ended without flushing its records (killed?): launches it made "
                   "last may be missing\n",
                   p.pid);
    }
    dropped += p.dropped;
  }
  if (dropped > 0) {
    std::fprintf(stderr, "gpuperf: warning: CUPTI dropped %llu kernel records (buffers full)\n",
                 static_cast<unsigned long long>(dropped));
  }
  const bool failed = end.exit_status != 0;
  if (!ctx.quiet) {
    std::fprintf(stderr, "%s: %s after %.2f s; %zu process(es) recorded, %llu kernel launches (%llu kept), %zu kernel(s)\n",
                 a.command.front().c_str(), describe_exit_status(end.exit_status).c_str(), end.wall_seconds,
                 processes.size(), static_cast<unsigned long long>(totals.launches_seen),
                 static_cast<unsigned long long>(totals.launches_kept), totals.identities);
  }
  if (by_device.empty() && !a.allow_empty) {
    const std::string why =
        processes.empty()
            ? "it made no CUDA call (or the CUDA driver could not load " + inject + ")"
            : (totals.launches_seen == 0 ? "it launched no kernel" : "no launch matched the selection");
    throw Error("nothing recorded from " + a.command.front() + " (" + describe_exit_status(end.exit_status) + "): " +
                    why + "; nothing stored (--allow-empty stores an empty run)",
                failed ? kExitProgramFailed : kExitUsage);
  }
  if (by_device.empty()) by_device[0] = {};

  Recorded out;
  out.exit_status = end.exit_status;
  for (auto& [device, results] : by_device) {
    Run run;
    run.uuid = make_uuid();
    run.started_at = end.started_at;
    run.finished_at = end.finished_at;
    run.commit = a.commit.empty() ? git.commit : a.commit;
    run.branch = a.branch.empty() ? git.branch : a.branch;
    run.label = a.label;
    run.tool_version = GPUPERF_VERSION;
    run.machine = device < machines.size() ? machines[device] : gpu::describe_machine(static_cast<int>(device));
    run.command = command_line(a.command);
    run.exit_status = end.exit_status;
    run.results = std::move(results);
    run.status = (failed || incomplete) ? Status::failed : Status::ok;
    out.runs.push_back(std::move(run));
  }
  const auto stored = open_store(ctx, db::Access::read_write).insert_runs(out.runs);
  for (std::size_t i = 0; i < out.runs.size(); ++i) {
    out.run_ids.push_back(stored[i].run_id);
    if (!ctx.quiet) {
      std::fprintf(stderr, "stored run %s (id %lld, program %s, %zu kernels) in %s\n", out.runs[i].uuid.c_str(),
                   static_cast<long long>(stored[i].run_id), program.c_str(), out.runs[i].results.size(),
                   ctx.db_path.c_str());
    }
  }
  if (!ctx.quiet) {
    // gpuperf's own share of the wall time (bench/record_overhead.py reads this line).
    using seconds = std::chrono::duration<double>;
    const double before = seconds(program_started - started).count();
    const double after = seconds(std::chrono::steady_clock::now() - program_started).count() - end.wall_seconds;
    std::fprintf(stderr, "gpuperf's own time: %.3f s before the program, %.3f s after it (%llu launches read)\n",
                 before, after, static_cast<unsigned long long>(totals.launches_seen));
  }
  return out;
}

}  // namespace gpuperf::cli
