#include "profiler/source_line_pass.hpp"

#include <exception>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.hpp"
#include "profiler/cupti/range_backend.hpp"
#include "profiler/cupti/range_backend_loader.hpp"
#include "profiler/cupti/sass_backend.hpp"
#include "profiler/metric_device.hpp"
#include "profiler/source_line_aggregate.hpp"

namespace gpuperf {
namespace {

SourceLines not_collected(Status status, const std::string& why) {
  SourceLines s;
  s.status = status;
  s.message = why;
  return s;
}

bool is_environment(cupti::FailureKind k) {
  return k == cupti::FailureKind::insufficient_privileges || k == cupti::FailureKind::profiler_busy ||
         k == cupti::FailureKind::unsupported_device || k == cupti::FailureKind::no_device;
}

class Pass final : public SourceLineCollector {
 public:
  Pass(std::unique_ptr<cupti::SassMetricsBackend> backend, std::unique_ptr<DeviceOps> device,
       const SourceLineOptions& options, std::string unavailable)
      : backend_(std::move(backend)),
        device_(std::move(device)),
        options_(options),
        unavailable_(std::move(unavailable)) {
    if (!backend_ && unavailable_.empty()) unavailable_ = "no SASS metrics back end";
    if (!unavailable_.empty()) return;
    // The counters this chip offers, in SassCounter order; a missing one is named in every result's message.
    try {
      const std::vector<std::string> offered = backend_->chip_metrics();
      const std::set<std::string> have(offered.begin(), offered.end());
      std::vector<std::string> names;
      for (std::size_t i = 0; i < kSassCounters; ++i) {
        const std::string name = sass_counter_names()[i];
        if (have.count(name) == 0) {
          missing_ += (missing_.empty() ? "" : ", ") + name;
          continue;
        }
        names.push_back(name);
        counter_of_.push_back(static_cast<SassCounter>(i));
      }
      if (names.empty()) {
        unavailable_ = "CUPTI offers none of the SASS metrics source lines need on " + backend_->chip_name();
        return;
      }
      backend_->configure(names);
    } catch (const cupti::BackendError& e) {
      unavailable_ = std::string("cannot configure CUPTI's SASS metrics: ") + e.what();
    }
  }

  ~Pass() override {
    if (!backend_) return;
    try {
      backend_->disable();
    } catch (const std::exception&) {  // teardown: the process is done with the pass either way
    }
  }

  std::vector<SourceLines> collect_batch(const std::vector<ProfileTarget>& targets, StreamHandle stream) override {
    std::vector<SourceLines> out;
    out.reserve(targets.size());
    if (!unavailable_.empty()) {
      for (std::size_t i = 0; i < targets.size(); ++i) out.push_back(not_collected(Status::unsupported, unavailable_));
      return out;
    }
    SourceTextCache& texts = texts_;
    const LocateFn locate = [this](std::uint32_t crc, const std::string& f, std::uint32_t pc) {
      return backend_->locate(crc, f, pc);
    };
    try {
      backend_->enable();
    } catch (const cupti::BackendError& e) {
      return fail_all(targets.size(), e);
    }
    for (std::size_t k = 0; k < targets.size(); ++k) {
      Workload& w = *targets[k].workload;
      const std::string name = targets[k].ref->instance().display_name();
      bool pushed = false;
      try {
        device_->nvtx_push(name);
        pushed = true;
        for (std::int64_t i = 0; i < options_.launches; ++i) w.launch(stream);
        device_->synchronize(stream);
        pushed = false;
        device_->nvtx_pop();
        const std::vector<cupti::SassValue> values = backend_->flush();
        SourceLines lines = aggregate_source_lines(values, counter_of_, options_.launches, locate, texts);
        if (values.empty()) {
          lines.status = Status::failed;
          lines.message = "CUPTI returned no SASS records for the instrumented launch";
        } else if (!missing_.empty()) {
          lines.message += (lines.message.empty() ? "" : "; ") + ("not on " + backend_->chip_name() + ": " + missing_);
        }
        out.push_back(std::move(lines));
      } catch (const cupti::BackendError& e) {
        if (pushed) device_->nvtx_pop();
        end_quietly();
        auto rest = fail_all(targets.size() - k, e);
        out.insert(out.end(), rest.begin(), rest.end());
        return out;
      } catch (const std::exception& e) {
        if (pushed) device_->nvtx_pop();
        // The launch or the wait failed: the context may be gone, so the rest of the group is not tried.
        end_quietly();
        out.push_back(not_collected(Status::failed, std::string("instrumented launch failed: ") + e.what()));
        while (out.size() < targets.size()) {
          out.push_back(not_collected(Status::failed, "not collected: an earlier instrumented launch failed"));
        }
        return out;
      }
    }
    try {
      backend_->disable();
    } catch (const cupti::BackendError& e) {
      // The counters are read, but kernels may stay instrumented: say it where the user looks, and enable no
      // more (the next groups' timings must run the kernels' own code).
      const std::string why = std::string("cuptiSassMetricsDisable failed: ") + e.what();
      for (auto& s : out) s.message += (s.message.empty() ? "" : "; ") + why;
      unavailable_ = why;
    }
    return out;
  }

  std::string unavailable() const override { return unavailable_; }

 private:
  std::vector<SourceLines> fail_all(std::size_t n, const cupti::BackendError& e) {
    const bool env = is_environment(e.kind());
    const std::string why = std::string("CUPTI SASS metrics: ") + e.what();
    if (env) unavailable_ = why;  // it will not go away in this process
    return std::vector<SourceLines>(n, not_collected(env ? Status::unsupported : Status::failed, why));
  }

  void end_quietly() {
    try {
      backend_->disable();
    } catch (const std::exception&) {  // the failure being reported is the one that matters
    }
  }

  std::unique_ptr<cupti::SassMetricsBackend> backend_;
  std::unique_ptr<DeviceOps> device_;
  SourceLineOptions options_;
  std::string unavailable_;
  std::vector<SassCounter> counter_of_;  // per configured metric
  std::string missing_;                  // counters this chip lacks
  SourceTextCache texts_;                // for the whole run: each file read once, a missing one said once
};

}  // namespace

std::unique_ptr<SourceLineCollector> make_source_line_collector(std::unique_ptr<cupti::SassMetricsBackend> backend,
                                                                std::unique_ptr<DeviceOps> device,
                                                                const SourceLineOptions& options,
                                                                std::string unavailable) {
  return std::make_unique<Pass>(std::move(backend), std::move(device), options, std::move(unavailable));
}

std::unique_ptr<SourceLineCollector> make_cupti_source_line_collector(const SourceLineOptions& options) {
  auto device = make_cuda_device_ops(options.device);  // no GPU: throw
  std::unique_ptr<cupti::SassMetricsBackend> backend;
  std::string unavailable;
  try {
    const cupti::SassBackendFactory& factory = cupti::load_sass_backend();
    unavailable = factory.track_modules();
    if (unavailable.empty()) backend = factory.open_device(options.device, device->cu_context());
  } catch (const cupti::BackendError& e) {
    unavailable = std::string("CUPTI SASS metrics: ") + e.what();
  } catch (const EnvironmentError& e) {  // libcupti or the back-end module missing
    unavailable = e.what();
  }
  return make_source_line_collector(std::move(backend), std::move(device), options, unavailable);
}

}  // namespace gpuperf
