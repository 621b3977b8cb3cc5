// The collector's logic above the CUPTI seam: resolves metrics, drives sessions and passes, maps ranges
// back to instances and failures to statuses. Runs against any RangeProfilerBackend and DeviceOps, so it
// is tested with fakes (tests/collector/test_collector.cpp).
#include "profiler/collector.hpp"

#include <cstddef>
#include <exception>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "profiler/cupti/range_backend.hpp"
#include "profiler/cupti/range_backend_loader.hpp"
#include "profiler/metric_catalog.hpp"
#include "profiler/metric_device.hpp"
#include "profiler/metric_eval.hpp"
#include "profiler/metric_plan.hpp"
#include "profiler/phase_log.hpp"
#include "profiler/speed_of_light.hpp"

namespace gpuperf {
namespace {

// CUPTI needs 1-4 passes for gpuperf's metrics on GH100; a session that is not done after this many is
// broken, not slow.
constexpr std::size_t kMaxPasses = 256;

bool is_environment_failure(cupti::FailureKind k) {
  return k == cupti::FailureKind::insufficient_privileges || k == cupti::FailureKind::profiler_busy ||
         k == cupti::FailureKind::unsupported_device || k == cupti::FailureKind::no_device;
}

// What to tell the user about a CUPTI failure that stops all profiling in this process.
std::string environment_message(const cupti::BackendError& e) {
  switch (e.kind()) {
    case cupti::FailureKind::insufficient_privileges:
      return "no permission to read GPU performance counters (" + std::string(e.what()) +
             "). Run as root, or let all users profile: set the NVIDIA driver option "
             "NVreg_RestrictProfilingToAdminUsers=0 (a line `options nvidia NVreg_RestrictProfilingToAdminUsers=0` "
             "in /etc/modprobe.d/, then reload the driver or reboot; see "
             "https://developer.nvidia.com/ERR_NVGPUCTRPERM). Timings are not affected.";
    case cupti::FailureKind::profiler_busy:
      return "another profiler holds the GPU's performance counters (" + std::string(e.what()) +
             "): run gpuperf outside ncu/nsys, or pause DCGM profiling (dcgmi profile --pause)";
    case cupti::FailureKind::unsupported_device: return std::string("this GPU cannot be profiled: ") + e.what();
    case cupti::FailureKind::no_device: return std::string("no usable GPU context for profiling: ") + e.what();
    default: return e.what();
  }
}

class Collector final : public MetricCollector {
 public:
  // `unavailable`: why profiling is impossible in this process (then `backend` is null and only static
  // metrics are measured).
  Collector(std::unique_ptr<cupti::RangeProfilerBackend> backend, std::unique_ptr<DeviceOps> device,
            const CollectorOptions& options, std::string unavailable = "")
      : backend_(std::move(backend)),
        device_(std::move(device)),
        options_(options),
        environment_error_(std::move(unavailable)) {
    std::vector<std::string> names = options.metrics.empty() ? default_collector_metrics() : options.metrics;
    std::unique_ptr<PerfworksCatalog> catalog;
    if (backend_) catalog = backend_catalog(*backend_);
    std::vector<MetricRequest> requests = resolve_metric_requests(names, catalog.get());
    for (const auto& r : requests) names_.push_back(r.name);
    // A gpuperf metric whose counters this chip lacks (an older GPU, a MIG slice) is unsupported for the run,
    // with the reason; the others are measured as usual.
    std::vector<MetricRequest> measurable;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      std::string lacking;
      if (catalog && find_metric(requests[i].name) != nullptr) {
        for (const auto& p : requests[i].perfworks) {
          if (!catalog->has(p)) lacking += (lacking.empty() ? "" : ", ") + p;
        }
      }
      if (lacking.empty()) {
        measurable.push_back(std::move(requests[i]));
      } else {
        unsupported_.push_back({i, failed_measurement(requests[i].info, Status::unsupported,
                                                      "not a metric of " + catalog->chip() + ": " + lacking)});
      }
    }
    plan_ = plan_metrics(std::move(measurable), options.separate_sass);
    if (plan_.needs_profiler() && environment_error_.empty()) {
      if (!backend_) throw EnvironmentError("profiler metrics requested but no CUPTI back end is loaded");
      try {
        configure(options.separate_sass);
      } catch (const cupti::BackendError& e) {
        if (e.kind() == cupti::FailureKind::invalid_metric) throw InputError(e.what());
        throw EnvironmentError("cannot configure CUPTI for " + std::to_string(plan_.perfworks.size()) +
                               " metrics: " + e.what());
      }
    }
  }

  ~Collector() override {
    if (backend_) {
      try {
        backend_->end_session();
      } catch (const std::exception&) {  // teardown: the process is done with the profiler either way
      }
    }
  }

  std::vector<Measurement> collect(const InstanceRef& ref, Workload& workload, StreamHandle stream) override {
    return collect_batch({ProfileTarget{&ref, &workload}}, stream).front();
  }

  std::vector<std::vector<Measurement>> collect_batch(const std::vector<ProfileTarget>& targets,
                                                      StreamHandle stream) override {
    const std::size_t n = targets.size();
    Outcome outcome;
    outcome.values.assign(n, std::vector<double>(plan_.perfworks.size(), 0.0));
    outcome.failed.assign(n, false);
    outcome.failure.assign(n, "");
    outcome.status.assign(n, Status::failed);

    if (plan_.needs_profiler()) {
      std::vector<bool> idempotent(n);
      for (std::size_t i = 0; i < n; ++i) idempotent[i] = targets[i].ref->benchmark->idempotent;
      const auto sessions = plan_sessions(idempotent, options_.replay, options_.max_ranges_per_session);
      // Elapsed rates need ranges that hold the kernel alone: auto ranges (with user replay for idempotent
      // targets, a whole batch per session), unless the user chose user replay.
      const auto kernel_sessions = plan_sessions(idempotent, options_.replay, options_.max_ranges_per_session, true);
      for (std::size_t c = 0; c < plan_.configurations.size(); ++c) {
        for (const SessionPlan& session : plan_.kernel_ranges[c] ? kernel_sessions : sessions) {
          if (!environment_error_.empty()) {
            for (std::size_t t : session.targets) outcome.fail(t, environment_error_, Status::failed);
            continue;
          }
          run_session(c, session, targets, stream, outcome);
        }
      }
    }

    std::vector<std::vector<Measurement>> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      StaticAttributes statics;
      std::string static_failure;
      bool have_statics = false;
      if (plan_.needs_static()) {
        try {
          statics =
              device_->static_attributes(targets[i].workload->kernel_function(), targets[i].workload->launch_shape());
          have_statics = true;
        } catch (const std::exception& e) {
          static_failure = e.what();
        }
      }
      out.push_back(evaluate_target(plan_, outcome.failed[i] ? nullptr : &outcome.values[i], outcome.status[i],
                                    outcome.failure[i], have_statics ? &statics : nullptr, static_failure));
      for (const auto& [at, m] : unsupported_)
        out.back().insert(out.back().begin() + static_cast<std::ptrdiff_t>(at), m);
    }
    return out;
  }

  const std::vector<std::string>& metric_names() const override { return names_; }
  std::size_t passes() const override { return passes_; }
  std::string environment_error() const override { return environment_error_; }

 private:
  // What the sessions of one batch found, per target: every Perfworks value of the plan, or why not.
  struct Outcome {
    std::vector<std::vector<double>> values;  // [target][plan_.perfworks index]
    std::vector<bool> failed;
    std::vector<std::string> failure;  // the first failure's reason
    std::vector<Status> status;
    void fail(std::size_t t, const std::string& why, Status s) {
      if (failed[t]) return;
      failed[t] = true;
      failure[t] = why;
      status[t] = s;
    }
  };

  // Adds the plan's configurations to the back end, and, when there are several, one of every metric too: if
  // that one needs fewer passes, the plan becomes it (merge_configurations). On an H100 each pass costs about
  // 4 ms per instance in either kind of range (docs/bound.md), so the default set's 11 passes instead of 13
  // take a sixth off the suite's profiling. `separate_sass` (the user keeps SASS-patched metrics apart) is
  // never merged. configuration_ids_ maps the plan's configurations to the back end's.
  void configure(bool separate_sass) {
    const auto add = [&](const std::vector<std::size_t>& configuration) {
      std::vector<std::string> metrics;
      for (std::size_t i : configuration) metrics.push_back(plan_.perfworks[i]);
      return backend_->add_configuration(metrics);
    };
    for (std::size_t c = 0; c < plan_.configurations.size(); ++c) {
      passes_ += add(plan_.configurations[c]);
      configuration_ids_.push_back(c);
    }
    if (plan_.configurations.size() < 2 || separate_sass) return;
    MetricPlan merged = plan_;
    merge_configurations(merged);
    const std::size_t merged_passes = add(merged.configurations.front());
    if (merged_passes >= passes_) return;
    plan_.configurations = std::move(merged.configurations);
    plan_.kernel_ranges = std::move(merged.kernel_ranges);
    configuration_ids_ = {configuration_ids_.size()};
    passes_ = merged_passes;
  }

  // Profiles `session`'s targets with configuration `configuration` (indices into plan_.perfworks).
  //   user:            per pass and target: warm launch, flush, then the launch inside a range of its name;
  //   auto_range_user: the same launches, but CUPTI makes every kernel a range: the target's range is the last
  //                    of its launches in the pass (after the warm launch and the flush kernels);
  //   kernel:          one target, the flush before the pass; CUPTI replays the kernel inside it.
  void run_session(std::size_t configuration, const SessionPlan& session, const std::vector<ProfileTarget>& targets,
                   StreamHandle stream, Outcome& outcome) {
    const std::vector<std::size_t>& metric_index = plan_.configurations[configuration];
    const bool user_replay = session.replay != cupti::SessionReplay::kernel;  // we launch once per pass
    const bool user_ranges = session.replay == cupti::SessionReplay::user;
    const bool warm = user_replay && options_.warm_launch;
    const bool flush = user_replay && options_.flush_l2;
    const bool auto_ranges = session.replay == cupti::SessionReplay::auto_range_user;
    const std::vector<std::unique_ptr<WarmList>> warm_lists =
        warm_lists_for(session, targets, auto_ranges && warm && flush);
    // Auto ranges with user replay: the kernels each target launches per pass, its profiled one last;
    // last_range[k] is the index of target k's range among a pass's.
    std::vector<std::size_t> last_range(session.targets.size());
    std::size_t kernels_per_pass = 0;
    for (std::size_t k = 0; k < session.targets.size(); ++k) {
      kernels_per_pass += (warm && !warm_lists[k] ? 1 : 0) + (flush ? device_->flush_l2_kernels() : 0) + 1;
      last_range[k] = kernels_per_pass - 1;
    }
    std::vector<std::string> display;
    for (std::size_t t : session.targets) display.push_back(targets[t].ref->instance().display_name());
    const std::vector<std::string> range_names = unique_range_names(display);
    auto fail_all = [&](const std::string& why, Status s) {
      for (std::size_t t : session.targets) outcome.fail(t, why, s);
    };

    std::vector<cupti::RangeValues> ranges;
    std::size_t dropped = 0;
    PhaseTimer phase;
    const std::string phase_name = "session " + std::to_string(configuration) + " (" +
                                   (user_ranges   ? "user ranges"
                                    : user_replay ? "auto ranges"
                                                  : "kernel replay") +
                                   ", " + std::to_string(session.targets.size()) + " instance(s)";
    try {
      const std::size_t max_ranges = auto_ranges ? kernels_per_pass : session.targets.size();
      backend_->begin_session(configuration_ids_[configuration], session.replay, max_ranges);
      phase.lap(phase_name + "): begin");
      const std::size_t passes = run_passes(session, targets, stream, warm_lists, range_names);
      phase.lap(phase_name + "): " + std::to_string(passes) + " passes");
      dropped = backend_->decode();
      ranges = backend_->evaluate();
      phase.lap(phase_name + "): decode and evaluate");
      backend_->end_session();
      phase.lap(phase_name + "): end");
    } catch (const cupti::BackendError& e) {
      end_session_quietly();
      if (is_environment_failure(e.kind())) {
        environment_error_ = environment_message(e);
        fail_all(environment_error_,
                 e.kind() == cupti::FailureKind::unsupported_device ? Status::unsupported : Status::failed);
      } else {
        fail_all(std::string("CUPTI: ") + e.what(), Status::failed);
      }
      return;
    } catch (const std::exception& e) {
      end_session_quietly();
      fail_all(std::string("profiling launch failed: ") + e.what(), Status::failed);
      return;
    }

    if (session.replay == cupti::SessionReplay::auto_range_user) {
      // Auto ranges come in launch order, one per kernel; a count that differs means some launch() started
      // more or fewer kernels than one, and then no range can be trusted to be its target's.
      if (ranges.size() != kernels_per_pass) {
        fail_all("CUPTI returned " + std::to_string(ranges.size()) + " kernel range(s) for " +
                     std::to_string(kernels_per_pass) + " kernel launches" +
                     (dropped > 0 ? " (" + std::to_string(dropped) + " range(s) dropped)" : std::string()) +
                     " (auto ranges: did launch() start exactly one kernel?)",
                 Status::failed);
        return;
      }
      assign_auto_ranges(session, metric_index, ranges, last_range, range_names, outcome);
      return;
    }
    assign_named_ranges(session, metric_index, ranges, dropped, user_ranges, range_names, outcome);
  }

  // In auto ranges every kernel is a range (about 1.5 ms of CUPTI's in every pass on an H100): where the
  // flush can warm a target's address translations itself (`use`), it replaces the warm launch there.
  std::vector<std::unique_ptr<WarmList>> warm_lists_for(const SessionPlan& session,
                                                        const std::vector<ProfileTarget>& targets, bool use) {
    std::vector<std::unique_ptr<WarmList>> warm_lists(session.targets.size());
    if (use) {
      for (std::size_t k = 0; k < session.targets.size(); ++k) {
        const Workload& w = *targets[session.targets[k]].workload;
        if (w.device_memory.empty()) continue;
        try {
          warm_lists[k] = device_->make_warm_list(w.device_memory);
        } catch (const std::exception&) {  // no room for the list: this instance keeps its warm launch
        }
      }
    }
    return warm_lists;
  }

  // The passes CUPTI asks for, each launching every target once (run_session says how per replay mode).
  // Returns the number of passes.
  std::size_t run_passes(const SessionPlan& session, const std::vector<ProfileTarget>& targets, StreamHandle stream,
                         const std::vector<std::unique_ptr<WarmList>>& warm_lists,
                         const std::vector<std::string>& range_names) {
    const bool user_replay = session.replay != cupti::SessionReplay::kernel;
    const bool user_ranges = session.replay == cupti::SessionReplay::user;
    const bool warm = user_replay && options_.warm_launch;
    const bool flush = user_replay && options_.flush_l2;
    bool done = false;
    std::size_t pass = 0;
    for (; !done; ++pass) {
      if (pass == kMaxPasses) {
        throw cupti::BackendError(cupti::FailureKind::other, "cuptiRangeProfilerStop", 0,
                                  "CUPTI still wants passes after " + std::to_string(kMaxPasses));
      }
      if (!user_replay && options_.flush_l2) {
        device_->flush_l2(stream);  // before start: in kernel replay every kernel in the pass is a range
        device_->synchronize(stream);
      }
      backend_->start_pass();
      for (std::size_t k = 0; k < session.targets.size(); ++k) {
        Workload& w = *targets[session.targets[k]].workload;
        if (warm_lists[k]) {
          device_->flush_l2(stream, *warm_lists[k]);  // warms the translations, then empties L2
        } else {
          if (warm) w.launch(stream);            // user ranges: outside every range; auto ranges: skipped
          if (flush) device_->flush_l2(stream);  // likewise, in every pass: each pass starts with L2 empty
        }
        if (warm || flush) device_->synchronize(stream);
        device_->nvtx_push(range_names[k]);
        if (user_ranges) backend_->push_range(range_names[k]);
        w.launch(stream);
        // Waiting inside the range keeps its end after the kernel's, whichever stream CUPTI marks it on.
        device_->synchronize(stream);
        if (user_ranges) backend_->pop_range();
        device_->nvtx_pop();
      }
      done = backend_->end_pass();
    }
    return pass;
  }

  // Auto ranges, as many as the kernels launched: target k's values are those of its last kernel's range.
  void assign_auto_ranges(const SessionPlan& session, const std::vector<std::size_t>& metric_index,
                          const std::vector<cupti::RangeValues>& ranges, const std::vector<std::size_t>& last_range,
                          const std::vector<std::string>& range_names, Outcome& outcome) {
    for (std::size_t k = 0; k < session.targets.size(); ++k) {
      const cupti::RangeValues& r = ranges[last_range[k]];
      if (r.values.size() != metric_index.size()) {
        outcome.fail(session.targets[k], "CUPTI returned no values for " + range_names[k], Status::failed);
        continue;
      }
      for (std::size_t j = 0; j < metric_index.size(); ++j) {
        outcome.values[session.targets[k]][metric_index[j]] = r.values[j];
      }
    }
  }

  // Ranges by name; auto ranges are named by launch order ("0", "1", ...), so fall back to order when
  // the names do not match and the count does.
  void assign_named_ranges(const SessionPlan& session, const std::vector<std::size_t>& metric_index,
                           const std::vector<cupti::RangeValues>& ranges, std::size_t dropped, bool user_ranges,
                           const std::vector<std::string>& range_names, Outcome& outcome) {
    std::map<std::string, const cupti::RangeValues*> by_name;
    for (const auto& r : ranges) by_name.emplace(r.name, &r);
    const bool by_order = !user_ranges || ranges.size() == session.targets.size();
    for (std::size_t k = 0; k < session.targets.size(); ++k) {
      const std::size_t t = session.targets[k];
      const cupti::RangeValues* r = nullptr;
      if (auto it = by_name.find(range_names[k]); it != by_name.end()) {
        r = it->second;
      } else if (by_order && k < ranges.size() && ranges.size() == session.targets.size()) {
        r = &ranges[k];
      }
      if (r == nullptr || r->values.size() != metric_index.size()) {
        outcome.fail(t,
                     "CUPTI returned no range for " + range_names[k] +
                         (dropped > 0 ? " (" + std::to_string(dropped) + " range(s) dropped)" : std::string()) +
                         (!user_ranges ? " (kernel replay: did launch() start exactly one kernel?)" : std::string()),
                     Status::failed);
        continue;
      }
      for (std::size_t j = 0; j < metric_index.size(); ++j) outcome.values[t][metric_index[j]] = r->values[j];
    }
  }

  void end_session_quietly() {
    try {
      backend_->end_session();
    } catch (const std::exception&) {  // the failure being reported is the one that matters
    }
  }

  std::unique_ptr<cupti::RangeProfilerBackend> backend_;
  std::unique_ptr<DeviceOps> device_;
  CollectorOptions options_;
  std::string environment_error_;
  MetricPlan plan_;
  std::vector<std::string> names_;
  // Requested metrics the chip cannot measure: (position among names_, their unsupported measurement).
  std::vector<std::pair<std::size_t, Measurement>> unsupported_;
  std::size_t passes_ = 0;
  std::vector<std::size_t> configuration_ids_;  // per plan configuration: its number in the back end
};

}  // namespace

std::unique_ptr<MetricCollector> make_collector(std::unique_ptr<cupti::RangeProfilerBackend> backend,
                                                std::unique_ptr<DeviceOps> device, const CollectorOptions& options) {
  return std::make_unique<Collector>(std::move(backend), std::move(device), options);
}

std::unique_ptr<MetricCollector> make_cupti_collector(const CollectorOptions& options) {
  // Our names are checked before anything is loaded, so a typo is an InputError even without a GPU.
  const std::vector<std::string> names = options.metrics.empty() ? default_collector_metrics() : options.metrics;
  const MetricPlan plan = plan_metrics(resolve_metric_requests(names, nullptr));

  auto device = make_cuda_device_ops(options.device);  // no GPU: nothing can be measured, throw
  std::unique_ptr<cupti::RangeProfilerBackend> backend;
  std::string unavailable;
  if (plan.needs_profiler()) {
    try {
      const cupti::BackendFactory& factory = cupti::load_backend();
      backend = factory.open_device(options.device, device->cu_context());
    } catch (const cupti::BackendError& e) {
      unavailable = is_environment_failure(e.kind())
                        ? environment_message(e)
                        : "cannot start CUPTI on device " + std::to_string(options.device) + " (" +
                              device->device_name() + "): " + e.what();
    } catch (const EnvironmentError& e) {  // libcupti or the back-end module missing
      unavailable = e.what();
    }
  }
  if (backend && options.triage_speed_of_light) {
    CollectorOptions chosen = options;
    chosen.metrics = speed_of_light_for_chip(names, backend->chip_name());
    return make_collector(std::move(backend), std::move(device), chosen);
  }
  if (!unavailable.empty()) {
    // Raw names cannot be checked against the chip without CUPTI; they fail with the reason instead.
    return std::make_unique<Collector>(nullptr, std::move(device), options, unavailable);
  }
  return make_collector(std::move(backend), std::move(device), options);
}

// A host-only back end for the chip answers (the device's own numbers its configurations, which the collector's
// plan relies on).
std::vector<std::string> speed_of_light_for_chip(const std::vector<std::string>& names, const std::string& chip) {
  try {
    auto host = cupti::load_backend().open_host(chip);
    const AcceptsMetric accepts = [&](const std::string& m) {
      try {
        host->add_configuration({m});
        return true;
      } catch (const cupti::BackendError&) {
        return false;
      }
    };
    const PassesOfList passes = [&](const std::vector<std::string>& list) {
      const MetricPlan plan = plan_metrics(resolve_metric_requests(list, nullptr));
      return plan.perfworks.empty() ? std::size_t{0} : host->add_configuration(plan.perfworks);
    };
    return speed_of_light_names(names, accepts, passes);
  } catch (const std::exception&) {  // the host API refused the chip: today's names, as before
    return names;
  }
}

std::vector<std::string> list_chip_metrics(const std::string& chip, const std::string& filter) {
  try {
    auto backend = cupti::load_backend().open_host(chip);
    auto catalog = backend_catalog(*backend);
    return list_perfworks_metrics(*catalog, filter);
  } catch (const cupti::BackendError& e) {
    throw EnvironmentError("cannot list the metrics of chip '" + chip + "': " + e.what());
  }
}

std::string device_chip_name(int device) {
  auto ops = make_cuda_device_ops(device);
  try {
    return cupti::load_backend().open_device(device, ops->cu_context())->chip_name();
  } catch (const cupti::BackendError& e) {
    throw EnvironmentError(is_environment_failure(e.kind()) ? environment_message(e) : e.what());
  }
}

std::unique_ptr<MetricCollector> make_cupti_collector(int device, std::vector<std::string> metric_names) {
  CollectorOptions options;
  options.device = device;
  options.metrics = std::move(metric_names);
  return make_cupti_collector(options);
}

}  // namespace gpuperf
