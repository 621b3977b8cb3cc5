// Fakes for the collector's seams: a CUPTI back end that records every call and serves values from a
// function, device operations that record flushes and synchronisations, and workloads that record their
// launches. All three write into one shared log, so tests can check the exact order of events.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/benchmark.hpp"
#include "profiler/cupti/range_backend.hpp"
#include "profiler/metric_device.hpp"

namespace gpuperf::testing {

struct EventLog {
  std::vector<std::string> events;
  std::string joined() const {
    std::string out;
    for (const auto& e : events) out += (out.empty() ? "" : " ") + e;
    return out;
  }
  std::size_t count(const std::string& e) const {
    std::size_t n = 0;
    for (const auto& x : events) n += x == e;
    return n;
  }
};

class FakeBackend final : public cupti::RangeProfilerBackend {
 public:
  explicit FakeBackend(std::shared_ptr<EventLog> log) : log_(std::move(log)) {
    bases_["dram__bytes_read"] = cupti::MetricKind::counter;
    bases_["dram__bytes_write"] = cupti::MetricKind::counter;
    bases_["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld"] = cupti::MetricKind::counter;
    bases_["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st"] = cupti::MetricKind::counter;
    bases_["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld"] = cupti::MetricKind::counter;
    bases_["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st"] = cupti::MetricKind::counter;
    bases_["sm__warps_active"] = cupti::MetricKind::counter;
    bases_["smsp__sass_average_data_bytes_per_sector_mem_global_op_ld"] = cupti::MetricKind::ratio;
    bases_["smsp__sass_average_data_bytes_per_sector_mem_global_op_st"] = cupti::MetricKind::ratio;
    bases_["gpu__time_duration"] = cupti::MetricKind::counter;
    // Speed of light's compute side (the chip's other new counters are left out: "unsupported" on this chip).
    bases_["sm__throughput"] = cupti::MetricKind::throughput;
  }

  // Knobs.
  std::size_t passes = 2;
  // Passes a configuration needs; default: `passes` for each kind of metric in it (elapsed rates, the others),
  // so one configuration of both kinds needs as many as two apart and the collector keeps them apart.
  std::function<std::size_t(const std::vector<std::string>& metrics)> passes_for;
  // Value of `metric` in the range named `range`; default: a number that encodes both.
  std::function<double(const std::string& range, const std::string& metric)> value = [](const std::string& range,
                                                                                        const std::string& metric) {
    return static_cast<double>(range.size() * 1000 + metric.size());
  };
  // Throw BackendError with this CUPTI code from the named call ("begin_session", "end_pass", ...).
  std::optional<std::pair<std::string, int>> fail;
  std::size_t drop_last_ranges = 0;  // pretend the counter-data image was too small

  std::vector<std::string> configured;  // every configuration's metrics, concatenated
  std::vector<std::vector<std::string>> configurations;

  std::string chip_name() const override { return "GH100"; }
  std::vector<std::string> base_metrics(cupti::MetricKind kind) override {
    std::vector<std::string> out;
    for (const auto& [n, k] : bases_) {
      if (k == kind) out.push_back(n);
    }
    return out;
  }
  std::vector<std::string> sub_metrics(cupti::MetricKind kind, const std::string&) override {
    if (kind == cupti::MetricKind::ratio) return {".pct", ".ratio", ".max_rate"};
    if (kind == cupti::MetricKind::throughput) return {".avg.pct_of_peak_sustained_elapsed"};
    return {".sum", ".avg", ".max", ".min", ".avg.pct_of_peak_sustained_active", ".sum.per_second"};
  }
  std::optional<cupti::MetricProperties> metric_properties(const std::string& full) override {
    const auto dot = full.find('.');
    if (dot == std::string::npos) return std::nullopt;
    auto it = bases_.find(full.substr(0, dot));
    if (it == bases_.end()) return std::nullopt;
    for (const auto& s : sub_metrics(it->second, it->first)) {
      if (full.substr(dot) != s) continue;
      std::string dim = it->first.find("bytes") != std::string::npos ? "byte" : "";
      if (s == ".pct" || s.find("pct_of_peak") != std::string::npos) dim = "percent";
      if (it->first == "gpu__time_duration") dim = "nsecond";
      if (s.find("per_second") != std::string::npos) dim += "/second";
      return cupti::MetricProperties{"", "", dim, it->second};
    }
    return std::nullopt;
  }
  std::size_t add_configuration(const std::vector<std::string>& metrics) override {
    maybe_fail("configure");
    configured.insert(configured.end(), metrics.begin(), metrics.end());
    configurations.push_back(metrics);
    log_->events.push_back("configure:" + std::to_string(metrics.size()));
    std::size_t n = passes;
    if (passes_for) {
      n = passes_for(metrics);
    } else {
      const auto elapsed = [](const std::string& m) { return m.find("_elapsed") != std::string::npos; };
      const bool some = std::any_of(metrics.begin(), metrics.end(), elapsed);
      const bool all = std::all_of(metrics.begin(), metrics.end(), elapsed);
      if (some && !all) n = 2 * passes;
    }
    configuration_passes_.push_back(n);
    return n;
  }
  void begin_session(std::size_t configuration, cupti::SessionReplay replay, std::size_t max_ranges) override {
    log_->events.push_back(std::string("begin:") +
                           (configurations.size() > 1 ? std::to_string(configuration) + ":" : "") +
                           (replay == cupti::SessionReplay::user     ? "user"
                            : replay == cupti::SessionReplay::kernel ? "kernel"
                                                                     : "auto") +
                           ":" + std::to_string(max_ranges));
    maybe_fail("begin_session");
    active_ = configuration;
    replay_ = replay;
    open_ = true;
    pass_ = 0;
    ranges_.clear();
  }
  void start_pass() override {
    log_->events.push_back("start");
    maybe_fail("start_pass");
    in_pass_ = true;
    kernel_launches_ = 0;
  }
  void push_range(const std::string& name) override {
    log_->events.push_back("push:" + name);
    if (pass_ == 0) ranges_.push_back(name);
  }
  void pop_range() override { log_->events.push_back("pop"); }
  bool end_pass() override {
    log_->events.push_back("end_pass");
    maybe_fail("end_pass");
    in_pass_ = false;
    if (replay_ != cupti::SessionReplay::user && pass_ == 0) {
      // Auto range: one range per kernel launched in the pass, named by launch order.
      for (std::size_t i = 0; i < kernel_launches_; ++i) ranges_.push_back(std::to_string(i));
    }
    kernel_launches_ = 0;
    if (replay_ == cupti::SessionReplay::kernel) return true;  // kernel replay: CUPTI replays inside the pass
    return ++pass_ >= configuration_passes_.at(active_);
  }
  std::size_t decode() override {
    log_->events.push_back("decode");
    maybe_fail("decode");
    const std::size_t drop = std::min(drop_last_ranges, ranges_.size());
    ranges_.resize(ranges_.size() - drop);
    return drop;
  }
  std::vector<cupti::RangeValues> evaluate() override {
    log_->events.push_back("evaluate");
    std::vector<cupti::RangeValues> out;
    for (const auto& r : ranges_) {
      cupti::RangeValues rv{r, {}};
      for (const auto& m : configurations.at(active_)) rv.values.push_back(value(r, m));
      out.push_back(rv);
    }
    return out;
  }
  bool restart_session(std::size_t configuration, cupti::SessionReplay replay, std::size_t max_ranges) override {
    if (!open_) return false;
    log_->events.push_back("restart:" + std::to_string(configuration) + ":" + std::to_string(max_ranges));
    maybe_fail("restart_session");
    active_ = configuration;
    replay_ = replay;
    pass_ = 0;
    ranges_.clear();
    return true;
  }
  void end_session() override {
    if (!open_) return;
    open_ = false;
    log_->events.push_back("end_session");
  }

  // Called by FakeWorkload and FakeDevice's flush for every kernel they launch, so auto ranges can be
  // named by launch order (only kernels between start_pass and end_pass are profiled).
  void note_kernel_launch() {
    if (open_ && in_pass_ && replay_ != cupti::SessionReplay::user) ++kernel_launches_;
  }

 private:
  void maybe_fail(const std::string& call) {
    if (fail && fail->first == call) {
      throw cupti::BackendError(cupti::classify_cupti_result(fail->second), call, fail->second,
                                call + " failed at fake.cpp:1: CUPTI_ERROR_" + std::to_string(fail->second));
    }
  }
  std::shared_ptr<EventLog> log_;
  std::map<std::string, cupti::MetricKind> bases_;
  cupti::SessionReplay replay_ = cupti::SessionReplay::user;
  std::size_t active_ = 0;
  std::vector<std::size_t> configuration_passes_;  // what add_configuration answered, per configuration
  bool open_ = false;
  std::size_t pass_ = 0;
  bool in_pass_ = false;
  std::size_t kernel_launches_ = 0;
  std::vector<std::string> ranges_;
};

class FakeDevice final : public DeviceOps {
 public:
  explicit FakeDevice(std::shared_ptr<EventLog> log, FakeBackend* backend = nullptr)
      : log_(std::move(log)), backend_(backend) {}
  StaticAttributes attrs{40, 2048, 0, 0, 6, 2048, 32};
  bool fail_static = false;
  std::size_t flush_kernels = 2;  // kernels per flush, as the CUDA implementation launches
  void* cu_context() override { return this; }
  std::string device_name() override { return "Fake H200"; }
  void flush_l2(StreamHandle) override {
    log_->events.push_back("flush");
    for (std::size_t i = 0; i < flush_kernels && backend_ != nullptr; ++i) backend_->note_kernel_launch();
  }
  std::size_t flush_l2_kernels() const override { return flush_kernels; }
  // Warm lists, as the cooperative flush offers them (one kernel); off: as a two-kernel flush (none).
  bool warm_lists = false;
  struct List final : WarmList {
    std::size_t bytes = 0;
  };
  std::unique_ptr<WarmList> make_warm_list(const std::vector<DeviceRange>& memory) override {
    if (!warm_lists) return nullptr;
    auto list = std::make_unique<List>();
    for (const auto& r : memory) list->bytes += r.bytes;
    return list;
  }
  void flush_l2(StreamHandle, const WarmList& warm) override {
    log_->events.push_back("flush+warm:" + std::to_string(static_cast<const List&>(warm).bytes));
    for (std::size_t i = 0; i < flush_kernels && backend_ != nullptr; ++i) backend_->note_kernel_launch();
  }
  void synchronize(StreamHandle) override { log_->events.push_back("sync"); }
  void nvtx_push(const std::string&) override {}
  void nvtx_pop() override {}
  StaticAttributes static_attributes(const void*, const LaunchShape& shape) override {
    if (fail_static) throw std::runtime_error("cudaFuncGetAttributes failed: cudaErrorInvalidDeviceFunction");
    StaticAttributes a = attrs;
    a.threads_per_block = static_cast<int>(shape.threads_per_block());
    return a;
  }

 private:
  std::shared_ptr<EventLog> log_;
  FakeBackend* backend_;
};

class FakeWorkload final : public Workload {
 public:
  FakeWorkload(std::shared_ptr<EventLog> log, std::string name, FakeBackend* backend)
      : log_(std::move(log)), name_(std::move(name)), backend_(backend) {}
  bool throw_on_launch = false;
  std::size_t kernels_per_launch = 1;
  void launch(StreamHandle) override {
    log_->events.push_back("launch:" + name_);
    if (throw_on_launch) throw std::runtime_error("an illegal memory access was encountered");
    for (std::size_t i = 0; i < kernels_per_launch && backend_ != nullptr; ++i) backend_->note_kernel_launch();
  }
  void poison_outputs(StreamHandle) override {}
  Verification verify(StreamHandle) override { return {true, "", 0}; }
  const void* kernel_function() const override { return this; }
  LaunchShape launch_shape() const override {
    LaunchShape s;
    s.block[0] = 256;
    return s;
  }

 private:
  std::shared_ptr<EventLog> log_;
  std::string name_;
  FakeBackend* backend_;
};

}  // namespace gpuperf::testing
