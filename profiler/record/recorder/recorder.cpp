#include "profiler/record/recorder/recorder.hpp"
#include "profiler/record/recorder/pm_attribution.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <utility>

#include "core/command_line.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/perfworks_spelling.hpp"
#include "core/stats.hpp"
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

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", s);
  return text;
}

// A G line's identity for people: "<mangled> gx gy gz bx by bz range" -> "gemm 8x1x1 128x1x1".
std::string given_up_identity(const std::string& identity) {
  const std::size_t space = identity.find(' ');
  std::string out = kernel_name(identity.substr(0, space), KernelNaming::function);
  unsigned v[7] = {0, 0, 0, 0, 0, 0, 0};
  if (space != std::string::npos && std::sscanf(identity.c_str() + space, "%u %u %u %u %u %u %u", &v[0], &v[1], &v[2],
                                                &v[3], &v[4], &v[5], &v[6]) >= 6) {
    out += " " + std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]) + " " +
           std::to_string(v[3]) + "x" + std::to_string(v[4]) + "x" + std::to_string(v[5]);
  }
  return out;
}

// What the record files say went wrong: unreadable records, processes that did not flush, dropped records.
std::vector<std::string> record_warnings(const std::vector<ProcessRecord>& processes) {
  std::vector<std::string> out;
  std::uint64_t dropped = 0;
  for (const auto& p : processes) {
    for (const auto& e : p.errors) out.push_back("process " + std::to_string(p.pid) + ": " + e);
    if (!p.complete) {
      const bool flushed = p.last_flush_ns > 0 && p.last_flush_ns >= p.started_ns;
      const double flushed_s = flushed ? static_cast<double>(p.last_flush_ns - p.started_ns) * 1e-9 : 0.0;
      out.push_back("process " + std::to_string(p.pid) + " ended without flushing its records (killed?): " +
                    std::to_string(p.launches.size()) + " launches kept" +
                    (flushed ? ", flushed up to " + seconds_text(flushed_s) + " after it started; later ones are lost"
                             : "; nothing was flushed before it ended"));
    }
    for (const auto& g : p.given_up) {
      out.push_back("process " + std::to_string(p.pid) + ": profiling of launch " + std::to_string(g.correlation) +
                    " (" + given_up_identity(g.identity) + ") was given up after " +
                    seconds_text(static_cast<double>(g.ms) * 1e-3) +
                    " (--profile-watchdog-ms); no launch after it was profiled");
    }
    std::uint64_t unfinished = 0;
    std::string last;
    for (const auto& l : p.launches) {
      if (!l.unfinished) continue;
      ++unfinished;
      last = kernel_name(std::string(l.name), KernelNaming::function);
    }
    if (unfinished > 0)
      out.push_back("process " + std::to_string(p.pid) + ": " + std::to_string(unfinished) +
                    " launch(es) had not finished when it ended (the last of them " + last +
                    "): stored as launches without a duration");
    dropped += p.dropped;
  }
  if (dropped > 0) out.push_back("CUPTI dropped " + std::to_string(dropped) + " kernel records (buffers full)");
  return out;
}

// 7217 -> "7,217".
std::string thousands(std::uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// How long profiling held the program (W lines), with the identity that took longest; "" without W lines.
std::string describe_profile_time(const std::vector<ProcessRecord>& processes) {
  struct Identity {
    std::uint64_t launches = 0, ns = 0;
  };
  std::map<std::string, Identity> by_identity;  // "<function> [<nvtx>] <grid> <block>"
  std::uint64_t launches = 0, total_ns = 0;
  for (const auto& p : processes) {
    for (const auto& l : p.launches) {
      if (l.profile_ns == 0) continue;
      ++launches;
      total_ns += l.profile_ns;
      std::string key = kernel_name(std::string(l.name), KernelNaming::function);
      if (!l.nvtx_path.empty()) key += " [" + std::string(l.nvtx_path) + "]";
      key += " " + dims(l.grid) + " " + dims(l.block);
      Identity& i = by_identity[key];
      ++i.launches;
      i.ns += l.profile_ns;
    }
  }
  if (launches == 0) return "";
  auto slowest = by_identity.begin();
  for (auto it = by_identity.begin(); it != by_identity.end(); ++it) {
    if (it->second.ns > slowest->second.ns) slowest = it;
  }
  return "; profiling took " + seconds_text(static_cast<double>(total_ns) * 1e-9) + " in " + std::to_string(launches) +
         " launches, the slowest identity " + slowest->first + ": " + std::to_string(slowest->second.launches) +
         " launches, " + seconds_text(static_cast<double>(slowest->second.ns) * 1e-9);
}

}  // namespace

std::string describe_excluded(const std::vector<ProcessRecord>& processes) {
  std::vector<std::string> kernels;  // function names, each once
  for (const auto& p : processes) {
    for (const std::string& mangled : p.excluded) {
      std::string name = kernel_name(mangled, KernelNaming::function);
      if (std::find(kernels.begin(), kernels.end(), name) == kernels.end()) kernels.push_back(std::move(name));
    }
  }
  if (kernels.empty()) return "";
  std::string out =
      "; the selection (--kernel-regex, --nvtx-include, --launch-skip, --launch-count) kept launches of " +
      std::to_string(kernels.size()) + " kernel(s) out of profiling, traced only:";
  for (std::size_t i = 0; i < kernels.size() && i < 5; ++i) out += (i == 0 ? " " : ", ") + kernels[i];
  return out + (kernels.size() > 5 ? ", ..." : "");
}

std::string describe_lacking(const std::vector<Run>& runs) {
  std::map<std::string, std::vector<std::string>> by_set;  // "m1, m2" -> identities lacking exactly those
  for (const Run& run : runs) {
    for (const Result& r : run.results) {
      std::string set;
      for (const Measurement& m : r.metrics) {
        if (m.status == Status::skipped && m.message.rfind("partial counters", 0) == 0)
          set += (set.empty() ? "" : ", ") + m.metric.name;
      }
      if (!set.empty()) by_set[set].push_back(r.instance.display_name());
    }
  }
  if (by_set.empty()) return "";
  std::string out = "; partial identities lack";
  bool first = true;
  for (const auto& [set, identities] : by_set) {
    out += std::string(first ? " " : "; ") + set + " (" + std::to_string(identities.size()) + ": " +
           identities.front() + (identities.size() > 1 ? ", ..." : "") + ")";
    first = false;
  }
  return out +
         ": each profiled launch collects one group of the metrics, and their profiled launches ended before every "
         "group (launched fewer times than there are groups, or a budget ran out; --profile-groups 1 collects "
         "every metric in each profiled launch)";
}

Flushed flushed_of(const std::vector<ProcessRecord>& processes) {
  Flushed f;
  std::uint64_t first_start = 0, last_flush = 0;
  for (const auto& p : processes) {
    f.complete = f.complete && p.complete;
    f.launches += p.launches.size();
    if (p.started_ns > 0 && (first_start == 0 || p.started_ns < first_start)) first_start = p.started_ns;
    last_flush = std::max(last_flush, p.last_flush_ns);
  }
  if (last_flush > 0 && last_flush >= first_start) f.last_flush_s = static_cast<double>(last_flush - first_start) / 1e9;
  return f;
}

std::string nothing_recorded_reason(std::size_t processes, const Flushed& flushed, int exit_status,
                                    const std::string& inject_library) {
  if (processes == 0) return "it made no CUDA call (or the CUDA driver could not load " + inject_library + ")";
  if (flushed.complete) return "it launched no kernel";
  const std::string how = exit_status < 0 ? "it was killed (" + describe_exit_status(exit_status) + ")"
                                          : "it ended (" + describe_exit_status(exit_status) + ") without flushing";
  if (flushed.last_flush_s < 0)
    return how + " before anything was flushed (records reach the file every second): what it launched is lost";
  return how + ": no kernel launch was flushed up to " + seconds_text(flushed.last_flush_s) +
         " after it started, and what it launched later is lost";
}

std::string incomplete_message(const Flushed& flushed, int exit_status) {
  std::string out = "incomplete: the program ended (" + describe_exit_status(exit_status) +
                    ") before its last flush; " + std::to_string(flushed.launches) + " launches kept";
  if (flushed.last_flush_s >= 0)
    out += ", flushed up to " + seconds_text(flushed.last_flush_s) + " after it started; later ones are lost";
  return out;
}

std::string describe_profiled(const KernelTotals& totals, const std::vector<ProcessRecord>& processes,
                              std::uint64_t per_identity, bool source_lines) {
  // Partial ones count as identities with counters (what they collected is stored), and are told apart.
  const std::size_t with = totals.identities_with_counters + totals.identities_partial_counters;
  // Ranks of a distributed job (Y lines): one pass a launch, one metric group each of an identity's launches, and
  // what that cannot collect.
  std::size_t one_pass = 0, one_pass_groups = 0;
  std::vector<std::string> not_collected;
  // x lines: counters CUPTI failed to give, their groups collected again by a later launch of the identity.
  std::uint64_t lost = 0;
  std::string lost_first;
  for (const auto& p : processes) {
    if (lost == 0) lost_first = p.lost_first;
    lost += p.lost_counters;
    if (!p.one_pass) continue;
    ++one_pass;
    one_pass_groups = std::max(one_pass_groups, p.metric_groups.size());
    for (std::size_t j = 0; j < p.not_collected.size() && j < p.metric_names.size(); ++j) {
      if (p.not_collected[j] &&
          std::find(not_collected.begin(), not_collected.end(), p.metric_names[j]) == not_collected.end())
        not_collected.push_back(p.metric_names[j]);
    }
  }
  std::string out = "counters for " + std::to_string(with) + " of " + std::to_string(totals.identities) +
                    " identities (the first " + std::to_string(per_identity) + " launches of each are profiled";
  if (one_pass_groups > per_identity)
    out += ", " + std::to_string(one_pass_groups) + " where one pass a launch is replayed: one a metric group";
  out += ")";
  if (totals.identities_partial_counters > 0)  // each profiled launch collects one group of the metrics
    out += ", " + std::to_string(totals.identities_partial_counters) +
           " of them partial (their profiled launches did not cover every metric group)";
  const std::string profile_time = describe_profile_time(processes);
  if (one_pass > 0) {
    out += "; " + std::to_string(one_pass) +
           " process(es) replayed one pass a launch (a rank of a distributed job, or --profile-replay one-pass: "
           "nothing restored, so no peer's write is lost and each launch starts from the emptied L2)";
    if (!not_collected.empty()) {
      out += ": not collected there, needing more passes:";
      for (std::size_t i = 0; i < not_collected.size(); ++i) out += (i == 0 ? " " : ", ") + not_collected[i];
    }
    if (source_lines && totals.identities_partial_counters > 0)
      out +=
          " (with source lines a one-pass process begins the profiler's session for each profiled launch; "
          "--no-source-lines lets it keep the session, so its launches cost far less and more identities are "
          "whole)";
  }
  if (lost > 0)
    out += "; " + std::to_string(lost) + " profiled launch(es) lost their counters (" + lost_first +
           "), each one's group given back to a later launch of its identity (once an identity)";
  const std::size_t left = totals.identities - std::min(totals.identities, with);
  std::uint64_t budget = 0, time_budget_ms = 0;
  std::size_t unreplayed_ranks = 0, unreplayed_after_communication = 0;  // U lines
  std::string given_up;                                                  // the watchdog's first give-up
  std::uint64_t busy = 0, busy_ms = 0;  // launches not profiled: a communication kernel still running
  for (const auto& p : processes) {
    busy += p.communication_busy;
    busy_ms = std::max(busy_ms, p.communication_wait_ms);
    budget = std::max(budget, p.profile_budget_spent);
    unreplayed_ranks += p.unreplayed == "distributed" ? 1 : 0;
    unreplayed_after_communication += p.unreplayed == "communication" ? 1 : 0;
    time_budget_ms = std::max(time_budget_ms, p.profile_time_budget_ms);
    if (given_up.empty() && !p.given_up.empty()) {
      const GivenUp& g = p.given_up.front();
      given_up = "profiling was given up after " + seconds_text(static_cast<double>(g.ms) * 1e-3) + " in launch " +
                 std::to_string(g.correlation) + " of " + given_up_identity(g.identity) + " (process " +
                 std::to_string(p.pid) + "; --profile-watchdog-ms): nothing was profiled after it";
    }
  }
  const std::string waited = busy == 0 ? ""
                                       : std::to_string(busy) +
                                             " launch(es) were not profiled because a communication kernel was still " +
                                             "running after " + seconds_text(static_cast<double>(busy_ms) * 1e-3) +
                                             " (GPUPERF_RECORD_COMMUNICATION_WAIT_MS)";
  if (left == 0) {
    if (!waited.empty()) out += "; " + waited;
    if (!given_up.empty()) out += "; " + given_up;
    if (time_budget_ms > 0)
      out += "; the time budget of " + seconds_text(static_cast<double>(time_budget_ms) * 1e-3) +
             " of profiling was spent";
    return out + profile_time;
  }
  std::vector<std::string> why;
  if (totals.identities_communication > 0)
    why.push_back(std::to_string(totals.identities_communication) +
                  " are communication kernels (never profiled: a replay would wait for peers that have left the "
                  "collective)");
  if (!given_up.empty()) why.push_back(given_up);
  if (!waited.empty()) why.push_back(waited);
  if (totals.identities_graph_only > 0)
    why.push_back(std::to_string(totals.identities_graph_only) +
                  " ran only in CUDA graph replays (launches captured into a graph are not profiled)");
  if (unreplayed_ranks + unreplayed_after_communication > 0) {
    std::string which =
        unreplayed_ranks > 0
            ? std::to_string(unreplayed_ranks) + " process(es) are ranks of a distributed job"
            : std::to_string(unreplayed_after_communication) + " process(es) launched communication kernels";
    if (unreplayed_ranks > 0 && unreplayed_after_communication > 0)
      which += " and " + std::to_string(unreplayed_after_communication) + " launched communication kernels";
    why.push_back(which +
                  ", where kernel replay is not used (a replay of several passes restores memory that peers write "
                  "into, and a collective then waits forever; --profile-replay kernel replays anyway)");
  }
  if (budget > 0)
    why.push_back("the budget of " + std::to_string(budget) + " profiled launches was spent (--profile-budget)");
  if (time_budget_ms > 0)
    why.push_back("the time budget of " + seconds_text(static_cast<double>(time_budget_ms) * 1e-3) +
                  " of profiling was spent (--profile-seconds)");
  out += "; " + std::to_string(left) + " left unprofiled";
  for (std::size_t i = 0; i < why.size(); ++i) out += (i == 0 ? ": " : "; ") + why[i];
  return out + profile_time;
}

std::string describe_source_lines(const std::vector<Run>& runs, const KernelTotals& totals,
                                  const std::vector<ProcessRecord>& processes) {
  std::map<std::string, std::size_t> without;  // why -> identities
  for (const Run& run : runs) {
    for (const Result& r : run.results) {
      if (r.source.status != Status::ok) ++without[r.source.message];
    }
  }
  std::string out = "lines for " + std::to_string(totals.identities_with_lines) + " of " +
                    std::to_string(totals.identities) + " identities";
  std::size_t left = 0;
  for (const auto& [why, n] : without) left += n;
  if (left > 0) {
    out += "; " + std::to_string(left) + " without:";
    bool first = true;
    for (const auto& [why, n] : without) {
      out += (first ? " " : "; ") + std::to_string(n) + " " + (why.empty() ? "(no reason given)" : why);
      first = false;
    }
  }
  std::vector<std::uint64_t> ns;
  std::size_t unfinished = 0;
  for (const auto& p : processes) {
    if (!p.source) continue;
    for (const auto& [corr, l] : p.source->launches) {
      if (l.ns > 0) ns.push_back(l.ns);  // 0: cut off by the process's end
    }
    unfinished += p.source->unfinished;
  }
  if (!ns.empty()) {
    std::uint64_t total = 0;
    for (std::uint64_t v : ns) total += v;
    char text[160];
    std::snprintf(text, sizeof text,
                  "; %zu instrumented launches took %s, %.1f ms a launch (median), the slowest %.1f ms", ns.size(),
                  seconds_text(static_cast<double>(total) * 1e-9).c_str(),
                  median(std::vector<double>(ns.begin(), ns.end())) * 1e-6,
                  static_cast<double>(*std::max_element(ns.begin(), ns.end())) * 1e-6);
    out += text;
  }
  if (unfinished > 0)
    out += "; " + std::to_string(unfinished) + " instrumented launches were cut off (the process was killed)";
  return out;
}

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

std::string describe_own_work(const std::vector<ProcessRecord>& processes) {
  struct Sum {
    std::uint64_t calls = 0, items = 0, ns = 0;
  };
  std::map<std::pair<std::string, std::string>, Sum> sums;  // (thread, work)
  for (const auto& p : processes) {
    for (const auto& w : p.own_work) {
      Sum& s = sums[{w.thread, w.work}];
      s.calls += w.calls;
      s.items = w.work == "flush" ? std::max(s.items, w.items) : s.items + w.items;  // flush: the longest call
      s.ns += w.ns;
    }
  }
  if (sums.empty()) return "";
  auto ms = [](std::uint64_t ns) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f ms", static_cast<double>(ns) * 1e-6);
    return std::string(text);
  };
  auto part = [&](const std::string& thread, const std::string& work, const Sum& s, bool on_program) {
    std::string where;
    if (!on_program)
      where = thread == "cupti"     ? " on CUPTI's thread"
              : thread == "gpuperf" ? " on gpuperf's flush thread"
                                    : " on thread " + thread;
    if (work == "nvtx") return ms(s.ns) + " in " + thousands(s.calls) + " NVTX callbacks" + where;
    if (work == "write")
      return ms(s.ns) + " writing " + thousands(s.items) + " records (" + thousands(s.calls) + " buffers)" + where;
    if (work == "request") return ms(s.ns) + " in " + thousands(s.calls) + " buffer requests" + where;
    return ms(s.ns) + " in " + thousands(s.calls) + " " + work + " calls" + where;
  };
  std::uint64_t program_ns = 0, other_ns = 0, external_ns = 0, external_calls = 0;
  Sum flush;  // CUPTI's part of the periodic flush, beside the program: said apart, below
  std::string program, other;
  for (const auto& [key, s] : sums) {
    if (key.second == "external") {  // CUPTI's own call inside our NVTX callbacks: said apart, not ours
      external_ns += s.ns;
      external_calls += s.calls;
      continue;
    }
    if (key.second == "flush") {
      flush.ns += s.ns;
      flush.calls += s.calls;
      flush.items = std::max(flush.items, s.items);
      continue;
    }
    const bool on_program = key.first == "program";
    std::string& list = on_program ? program : other;
    list += (list.empty() ? "" : ", ") + part(key.first, key.second, s, on_program);
    (on_program ? program_ns : other_ns) += s.ns;
  }
  std::string out = "inside the program: " + ms(program_ns) + " on its threads" +
                    (program.empty() ? "" : " (" + program + ")") + "; " + ms(other_ns) + " on other threads" +
                    (other.empty() ? "" : " (" + other + ")");
  if (external_calls > 0)
    out += "; besides, CUPTI's push and pop of the NVTX paths' external ids took " + ms(external_ns) + " in " +
           thousands(external_calls) + " of those callbacks (CUPTI's cost, which the bare tracer pays too)";
  if (flush.calls > 0)
    out += "; CUPTI's part of the periodic flush took " + ms(flush.ns) + " in " + thousands(flush.calls) +
           " calls on gpuperf's flush thread (the longest " + ms(flush.items) + ")";
  return out;
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
