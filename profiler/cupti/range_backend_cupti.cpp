// The CUPTI back end: the only code in gpuperf that calls the Range Profiler API and the profiler Host
// API (CUPTI 13.0). Built as the module libgpuperf_cupti.so, linked against libcupti, and loaded by
// range_backend_loader.cpp, so gpuperf itself starts on machines without libcupti.
//
// Every CUPTI call goes through GPUPERF_CUPTI_CHECK (cupti_check.hpp). The CUDA context comes from the caller (the
// collector reads it through cudart's driver entry point); nothing here links libcuda.
#include <cuda.h>  // CUcontext, CUdevice (types only)
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "profiler/cupti/cupti_check.hpp"
#include "profiler/cupti/device_support_cupti.hpp"
#include "profiler/cupti/host_config.hpp"
#include "profiler/cupti/range_backend.hpp"

namespace gpuperf::cupti {
namespace {

CUpti_MetricType metric_type(MetricKind k) {
  switch (k) {
    case MetricKind::counter: return CUPTI_METRIC_TYPE_COUNTER;
    case MetricKind::ratio: return CUPTI_METRIC_TYPE_RATIO;
    case MetricKind::throughput: return CUPTI_METRIC_TYPE_THROUGHPUT;
  }
  return CUPTI_METRIC_TYPE_COUNTER;
}

std::vector<const char*> c_strings(const std::vector<std::string>& v) {
  std::vector<const char*> out;
  out.reserve(v.size());
  for (const auto& s : v) out.push_back(s.c_str());
  return out;
}

class CuptiRangeBackend final : public RangeProfilerBackend {
 public:
  // Host only: `availability` may be empty (then CUPTI assumes every counter of the chip is free).
  CuptiRangeBackend(std::string chip, std::vector<std::uint8_t> availability, CUcontext ctx, bool initialized)
      : chip_(std::move(chip)), availability_(std::move(availability)), ctx_(ctx), profiler_initialized_(initialized) {
    if (ctx_ == nullptr) host_ = new_host();  // host only: fail now for a chip CUPTI does not know
  }

  ~CuptiRangeBackend() override {
    // Destructors must not throw: release in reverse order and ignore failures of the teardown itself.
    if (range_profiler_ != nullptr) {
      auto p = params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
      p.pRangeProfilerObject = range_profiler_;
      (void)cuptiRangeProfilerDisable(&p);  // teardown: nothing useful to do with a failure here
    }
    for (auto& c : configs_) release_host(c.host);
    release_host(host_);
    if (profiler_initialized_) {
      auto p = params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
      (void)cuptiProfilerDeInitialize(&p);  // teardown, as above
    }
  }

  std::string chip_name() const override { return chip_; }

  std::vector<std::string> base_metrics(MetricKind kind) override {
    auto p = params<CUpti_Profiler_Host_GetBaseMetrics_Params>(CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE);
    p.pHostObject = catalog_host();
    p.metricType = metric_type(kind);
    GPUPERF_CUPTI_CHECK(cuptiProfilerHostGetBaseMetrics(&p));
    std::vector<std::string> out;
    out.reserve(p.numMetrics);
    for (std::size_t i = 0; i < p.numMetrics; ++i) out.emplace_back(p.ppMetricNames[i]);
    return out;
  }

  std::vector<std::string> sub_metrics(MetricKind kind, const std::string& base) override {
    auto p = params<CUpti_Profiler_Host_GetSubMetrics_Params>(CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE);
    p.pHostObject = catalog_host();
    p.metricType = metric_type(kind);
    p.pMetricName = base.c_str();
    GPUPERF_CUPTI_CHECK(cuptiProfilerHostGetSubMetrics(&p));
    std::vector<std::string> out;
    out.reserve(p.numOfSubmetrics);
    for (std::size_t i = 0; i < p.numOfSubmetrics; ++i) out.emplace_back(p.ppSubMetrics[i]);
    return out;
  }

  std::optional<MetricProperties> metric_properties(const std::string& full_name) override {
    auto p = params<CUpti_Profiler_Host_GetMetricProperties_Params>(
        CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
    p.pHostObject = catalog_host();
    p.pMetricName = full_name.c_str();
    CUptiResult r = cuptiProfilerHostGetMetricProperties(&p);
    if (r == CUPTI_ERROR_INVALID_METRIC_NAME) return std::nullopt;
    GPUPERF_CUPTI_CHECK(r);
    MetricProperties out;
    out.description = p.pDescription != nullptr ? p.pDescription : "";
    out.hw_unit = p.pHwUnit != nullptr ? p.pHwUnit : "";
    out.dim_unit = p.pDimUnit != nullptr ? p.pDimUnit : "";
    out.kind = p.metricType == CUPTI_METRIC_TYPE_RATIO        ? MetricKind::ratio
               : p.metricType == CUPTI_METRIC_TYPE_THROUGHPUT ? MetricKind::throughput
                                                              : MetricKind::counter;
    return out;
  }

  std::size_t add_configuration(const std::vector<std::string>& metrics) override {
    // A host object accumulates every metric added to it, so each configuration gets its own; it also
    // evaluates that configuration's counter data.
    Configuration cfg;
    cfg.metrics = metrics;
    const auto names = c_strings(cfg.metrics);
    HostConfiguration made;
    if (CuptiFailure f =
            host_configure(CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip_.c_str(), availability(), names, made)) {
      throw_cupti(f.result, f.call, __FILE__, __LINE__);
    }
    cfg.host = made.host;
    cfg.image = std::move(made.image);
    configs_.push_back(std::move(cfg));  // owned from here on, released by the destructor
    return made.passes;
  }

  void begin_session(std::size_t configuration, SessionReplay replay, std::size_t max_ranges) override {
    if (ctx_ == nullptr) {
      throw BackendError(FailureKind::no_device, "begin_session", 0,
                         "the CUPTI back end was opened for chip " + chip_ + " only, without a device");
    }
    if (configuration >= configs_.size()) {
      throw BackendError(FailureKind::other, "begin_session", 0,
                         "configuration " + std::to_string(configuration) + " was never added");
    }
    end_session();
    auto enable = params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    enable.ctx = ctx_;
    GPUPERF_CUPTI_CHECK(cuptiRangeProfilerEnable(&enable));
    range_profiler_ = enable.pRangeProfilerObject;
    configure_session(configuration, replay, max_ranges);
  }

  bool restart_session(std::size_t configuration, SessionReplay replay, std::size_t max_ranges) override {
    if (range_profiler_ == nullptr) return false;
    if (configuration >= configs_.size()) {
      throw BackendError(FailureKind::other, "restart_session", 0,
                         "configuration " + std::to_string(configuration) + " was never added");
    }
    configure_session(configuration, replay, max_ranges);
    return true;
  }

  // A counter-data image for `max_ranges` ranges and the configuration set on the enabled range profiler.
  void configure_session(std::size_t configuration, SessionReplay replay, std::size_t max_ranges) {
    active_ = configuration;
    const Configuration& cfg = configs_[active_];
    auto names = c_strings(cfg.metrics);
    auto size = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
    size.pRangeProfilerObject = range_profiler_;
    size.pMetricNames = names.data();
    size.numMetrics = names.size();
    size.maxNumOfRanges = max_ranges;
    size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(max_ranges);
    GPUPERF_CUPTI_CHECK(cuptiRangeProfilerGetCounterDataSize(&size));
    counter_data_.assign(size.counterDataSize, 0);

    auto init = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    init.pRangeProfilerObject = range_profiler_;
    init.counterDataSize = counter_data_.size();
    init.pCounterData = counter_data_.data();
    GPUPERF_CUPTI_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&init));

    auto set = params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
    set.pRangeProfilerObject = range_profiler_;
    set.configSize = cfg.image.size();
    set.pConfig = cfg.image.data();
    set.counterDataImageSize = counter_data_.size();
    set.pCounterDataImage = counter_data_.data();
    set.range = replay == SessionReplay::user ? CUPTI_UserRange : CUPTI_AutoRange;
    set.replayMode = replay == SessionReplay::kernel ? CUPTI_KernelReplay : CUPTI_UserReplay;
    set.maxRangesPerPass = max_ranges;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    GPUPERF_CUPTI_CHECK(cuptiRangeProfilerSetConfig(&set));
  }

  void start_pass() override {
    auto p = params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = session();
    GPUPERF_CUPTI_CHECK(cuptiRangeProfilerStart(&p));
  }

  void push_range(const std::string& name) override {
    auto p = params<CUpti_RangeProfiler_PushRange_Params>(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = session();
    p.pRangeName = name.c_str();
    GPUPERF_CUPTI_CHECK(cuptiRangeProfilerPushRange(&p));
  }

  void pop_range() override {
    auto p = params<CUpti_RangeProfiler_PopRange_Params>(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = session();
    GPUPERF_CUPTI_CHECK(cuptiRangeProfilerPopRange(&p));
  }

  bool end_pass() override {
    auto p = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = session();
    GPUPERF_CUPTI_CHECK(cuptiRangeProfilerStop(&p));
    return p.isAllPassSubmitted != 0;
  }

  std::size_t decode() override {
    auto p = params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = session();
    GPUPERF_CUPTI_CHECK(cuptiRangeProfilerDecodeData(&p));
    return p.numOfRangeDropped;
  }

  std::vector<RangeValues> evaluate() override {
    auto info = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = counter_data_.data();
    info.counterDataImageSize = counter_data_.size();
    GPUPERF_CUPTI_CHECK(cuptiRangeProfilerGetCounterDataInfo(&info));

    const Configuration& cfg = configs_.at(active_);
    auto names = c_strings(cfg.metrics);
    std::vector<RangeValues> out;
    out.reserve(info.numTotalRanges);
    for (std::size_t i = 0; i < info.numTotalRanges; ++i) {
      auto range = params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
          CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
      range.pCounterDataImage = counter_data_.data();
      range.counterDataImageSize = counter_data_.size();
      range.rangeIndex = i;
      range.rangeDelimiter = "/";
      GPUPERF_CUPTI_CHECK(cuptiRangeProfilerCounterDataGetRangeInfo(&range));

      RangeValues rv;
      rv.name = range.rangeName != nullptr ? range.rangeName : std::to_string(i);
      if (CuptiFailure f = host_evaluate(cfg.host, counter_data_, i, names, rv.values)) {
        throw_cupti(f.result, f.call, __FILE__, __LINE__);
      }
      out.push_back(std::move(rv));
    }
    return out;
  }

  void end_session() override {
    if (range_profiler_ == nullptr) return;
    auto p = params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = range_profiler_;
    range_profiler_ = nullptr;  // gone even if Disable reports an error
    GPUPERF_CUPTI_CHECK(cuptiRangeProfilerDisable(&p));
  }

 private:
  struct Configuration {
    CUpti_Profiler_Host_Object* host = nullptr;
    std::vector<std::string> metrics;
    std::vector<std::uint8_t> image;
  };

  const std::uint8_t* availability() const { return availability_.empty() ? nullptr : availability_.data(); }

  CUpti_Profiler_Host_Object* new_host() {
    CUpti_Profiler_Host_Object* host = nullptr;
    if (CuptiFailure f = host_initialize(CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip_.c_str(), availability(), &host)) {
      throw_cupti(f.result, f.call, __FILE__, __LINE__);
    }
    return host;
  }

  // The host object that answers metric-list questions, made on first use (about 0.1 s): a collector
  // asked only for gpuperf's own metrics never needs it.
  CUpti_Profiler_Host_Object* catalog_host() {
    if (host_ == nullptr) host_ = new_host();
    return host_;
  }

  static void release_host(CUpti_Profiler_Host_Object*& host) {
    host_free(host);
    host = nullptr;
  }

  CUpti_RangeProfiler_Object* session() const {
    if (range_profiler_ == nullptr) {
      throw BackendError(FailureKind::other, "session", 0, "range profiler call outside begin_session/end_session");
    }
    return range_profiler_;
  }

  std::string chip_;
  std::vector<std::uint8_t> availability_;
  CUcontext ctx_ = nullptr;
  bool profiler_initialized_ = false;
  CUpti_Profiler_Host_Object* host_ = nullptr;  // for the metric catalog
  std::vector<Configuration> configs_;
  std::size_t active_ = 0;  // the open session's configuration
  std::vector<std::uint8_t> counter_data_;
  CUpti_RangeProfiler_Object* range_profiler_ = nullptr;
};

class CuptiBackendFactory final : public BackendFactory {
 public:
  std::unique_ptr<RangeProfilerBackend> open_host(const std::string& chip) const override {
    return std::make_unique<CuptiRangeBackend>(chip, std::vector<std::uint8_t>{}, nullptr, false);
  }

  std::size_t pm_sampling_passes(const std::string& chip, const std::vector<std::string>& metrics) const override {
    return cupti::pm_sampling_passes(chip, metrics);
  }

  std::unique_ptr<RangeProfilerBackend> open_device(int device, void* cu_context) const override {
    auto init = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    GPUPERF_CUPTI_CHECK(cuptiProfilerInitialize(&init));
    // From here on the back end owns the initialisation and undoes it in its destructor; until it
    // exists, undo it here on failure.
    struct Guard {
      bool armed = true;
      ~Guard() {
        if (!armed) return;
        auto p = params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
        (void)cuptiProfilerDeInitialize(&p);  // unwinding after an earlier failure
      }
    } guard;

    std::string chip_name = supported_chip_name(device, ProfilerApi::range_profiler);

    auto ctx = static_cast<CUcontext>(cu_context);
    auto avail =
        params<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    avail.ctx = ctx;
    GPUPERF_CUPTI_CHECK(cuptiProfilerGetCounterAvailability(&avail));  // size first
    std::vector<std::uint8_t> image(avail.counterAvailabilityImageSize, 0);
    avail.pCounterAvailabilityImage = image.data();
    GPUPERF_CUPTI_CHECK(cuptiProfilerGetCounterAvailability(&avail));

    auto backend = std::make_unique<CuptiRangeBackend>(chip_name, std::move(image), ctx, true);
    guard.armed = false;
    return backend;
  }
};

}  // namespace
}  // namespace gpuperf::cupti

extern "C" __attribute__((visibility("default"))) const gpuperf::cupti::BackendFactory* gpuperf_cupti_backend_factory(
    int abi_version) {
  static const gpuperf::cupti::CuptiBackendFactory factory;
  return abi_version == gpuperf::cupti::kBackendAbiVersion ? &factory : nullptr;
}
